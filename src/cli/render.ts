/**
 * Renders one template the way `helm template` renders a chart file, minus the chart: the data is
 * `{ Values: <values> }`, the functions are Sprig's plus Helm's extras, and the text `<no value>`
 * is removed from the output afterwards (Helm runs templates with missingkey=zero and strips what
 * missing values print).
 */

import { newMap } from "../go/value.js";
import { processTemplateHost } from "../node/template-host.js";
import { type GoValue, helmFuncs, parse, sprigFuncs } from "../template/index.js";
import type { CliIo } from "./io.js";

/** The data a rendered template sees. Only `.Values` exists; there is no `.Release`, `.Chart` or `.Capabilities`. */
export function templateData(values: Record<string, GoValue>): Record<string, GoValue> {
  const data = newMap();
  data.Values = values;
  return data;
}

/**
 * Parses and executes `text` with the run's environment and the process's resolver (as `helm
 * template` has).
 * `name` names the template in error messages (`template: NAME:3:7: ...`), so callers pass the file
 * path. Rejects with the engine's TemplateError on parse or execution errors.
 */
export async function renderTemplate(
  name: string,
  text: string,
  values: Record<string, GoValue>,
  env: CliIo["env"],
): Promise<string> {
  const template = parse(name, text, { funcs: { ...sprigFuncs, ...helmFuncs } });
  const output = await template.executeAsync(templateData(values), processTemplateHost(env));
  return output.replaceAll("<no value>", "");
}
