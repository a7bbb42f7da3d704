/**
 * Renders an Envoy bootstrap template (Go text/template, Sprig's functions plus Istio's `toJSON`)
 * with the template parameters, as pilot-agent's bootstrap.Instance does before writing
 * `envoy-rev.json`. `bootstrapText` is the one way from a bootstrap config to the text: the running
 * agent, `agent bootstrap` and the playground's preview all render through it.
 */
import { type GoValue, parse, sprigFuncs, TemplateError } from "../../template/index.js";
import { type BootstrapConfig, type TemplateParams, templateParams } from "./template-params.js";

/** A bootstrap template's text and its name for messages (its path, or "built-in"). */
export interface BootstrapTemplate {
  text: string;
  name: string;
}

/** A bootstrap template that does not parse or execute; the message is Go's, prefixed by the template's name. */
export class BootstrapTemplateError extends Error {
  override name = "BootstrapTemplateError";
}

const funcs = {
  ...sprigFuncs,
  toJSON: { ...(sprigFuncs.toJson as NonNullable<typeof sprigFuncs.toJson>), name: "toJSON" },
};

/** The rendered bootstrap text. `name` names the template in errors (its path, or "built-in"). */
export function renderBootstrap(templateText: string, params: TemplateParams, name = "bootstrap"): string {
  try {
    return parse(name, templateText, { funcs }).execute(params as GoValue);
  } catch (e) {
    if (e instanceof TemplateError) throw new BootstrapTemplateError(`bootstrap template ${name}: ${e.message}`);
    throw e;
  }
}

/** The bootstrap for `cfg` (toTemplateParams), rendered from `template` (bootstrap.Instance.WriteTo). */
export function bootstrapText(cfg: BootstrapConfig, template: BootstrapTemplate): string {
  return renderBootstrap(template.text, templateParams(cfg), template.name);
}
