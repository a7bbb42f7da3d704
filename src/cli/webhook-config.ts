/**
 * `meshinject webhook-config`: the I/O around src/webhook/webhook-config.ts (reading the CA bundle
 * file, writing the YAML to stdout or atomically to a file).
 */
import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { writeYaml } from "../kube/yaml.js";
import {
  type FailurePolicy,
  type ReinvocationPolicy,
  type WebhookConfigOptions,
  webhookConfiguration,
} from "../webhook/webhook-config.js";
import { writeFileAtomic } from "./output.js";

export interface WebhookConfigCliOptions {
  revision: string;
  tag?: string;
  namespace: string;
  service?: string;
  port?: string;
  path?: string;
  cluster?: string;
  network?: string;
  url?: string;
  caBundleFile?: string;
  failurePolicy: string;
  reinvocationPolicy: string;
  timeoutSeconds: string;
  enableNamespacesByDefault?: boolean;
  name?: string;
  output?: string;
}

/** An error for the user (exit code 1, one line). */
export class WebhookConfigCliError extends Error {
  override name = "WebhookConfigCliError";
}

function integer(flag: string, text: string): number {
  if (!/^[0-9]+$/.test(text))
    throw new WebhookConfigCliError(`${flag} must be a whole number, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** The generator options for the parsed flags (reads the CA bundle file). */
export async function webhookConfigOptions(opts: WebhookConfigCliOptions): Promise<WebhookConfigOptions> {
  const options: WebhookConfigOptions = {
    revision: opts.revision,
    namespace: opts.namespace,
    failurePolicy: opts.failurePolicy as FailurePolicy,
    reinvocationPolicy: opts.reinvocationPolicy as ReinvocationPolicy,
    timeoutSeconds: integer("--timeout-seconds", opts.timeoutSeconds),
    enableNamespacesByDefault: opts.enableNamespacesByDefault ?? false,
  };
  if (opts.tag !== undefined) options.tag = opts.tag;
  if (opts.service !== undefined) options.service = opts.service;
  if (opts.port !== undefined) options.port = integer("--port", opts.port);
  if (opts.path !== undefined) options.path = opts.path;
  if (opts.cluster !== undefined) options.cluster = opts.cluster;
  if (opts.network !== undefined) options.network = opts.network;
  if (opts.url !== undefined) options.url = opts.url;
  if (opts.name !== undefined) options.name = opts.name;
  if (opts.caBundleFile !== undefined) {
    try {
      options.caBundlePem = await readFile(opts.caBundleFile, "utf8");
    } catch (e) {
      throw new WebhookConfigCliError(`cannot read CA bundle file ${opts.caBundleFile}: ${(e as Error).message}`);
    }
  }
  return options;
}

export async function runWebhookConfig(opts: WebhookConfigCliOptions): Promise<void> {
  const text = writeYaml(webhookConfiguration(await webhookConfigOptions(opts)));
  if (opts.output === undefined) {
    process.stdout.write(text);
    return;
  }
  try {
    await writeFileAtomic(opts.output, text);
  } catch (e) {
    throw new WebhookConfigCliError(`cannot write ${opts.output}: ${(e as Error).message}`);
  }
}

export const WEBHOOK_CONFIG_HELP = `
Prints the MutatingWebhookConfiguration Istio installs for its sidecar injector, pointing at the
webhook Service (or --url). Webhooks: rev.namespace. and rev.object. (namespace or pod labelled
istio.io/rev=REVISION), and for the default revision also namespace. (namespace labelled
istio-injection=enabled) and object. (pod labelled sidecar.istio.io/inject=true). A pod labelled
sidecar.istio.io/inject=false is never sent.

Examples:
  meshinject webhook-config --ca-bundle-file certs/ca.crt | kubectl apply -f -
  meshinject webhook-config --revision canary --service meshinject --ca-bundle-file certs/ca.crt
  meshinject webhook-config --tag prod --revision canary     # istio-revision-tag-prod
  meshinject webhook-config --cluster c1 --network n1        # path /inject/cluster/c1/net/n1
`;

/** Adds `webhook-config` to the program. */
export function registerWebhookConfig(program: Command): void {
  program
    .command("webhook-config")
    .description("print the MutatingWebhookConfiguration for the injector (Istio's four webhooks and selectors)")
    .option("--revision <name>", "control-plane revision; empty for the default revision", "")
    .option("--tag <name>", "revision tag: istio-revision-tag-TAG, selecting istio.io/rev=TAG, served by --revision")
    .option("--namespace <ns>", "namespace of the webhook Service", "istio-system")
    .option("--service <name>", "webhook Service name (default istiod, or istiod-REVISION)")
    .option("--port <port>", "webhook Service port (default 443)")
    .option("--path <path>", "request path (default /inject, plus /cluster/C/net/N)")
    .option("--cluster <id>", "cluster ID passed in the path (/inject/cluster/ID)")
    .option("--network <name>", "network passed in the path (/net/NAME)")
    .option("--url <url>", "call this https URL instead of a Service")
    .option("--ca-bundle-file <file>", "PEM file of the CA that signed the serving certificate (caBundle)")
    .option("--failure-policy <policy>", "Fail or Ignore", "Fail")
    .option("--reinvocation-policy <policy>", "Never or IfNeeded", "Never")
    .option("--timeout-seconds <n>", "1 to 30", "10")
    .option("--enable-namespaces-by-default", "also inject in every unlabelled namespace but the system ones")
    .option("--name <name>", "name of the configuration (default as Istio names it)")
    .option("-o, --output <file>", "write the result to this file instead of stdout (replaced atomically)")
    .addHelpText("after", WEBHOOK_CONFIG_HELP)
    .action(runWebhookConfig);
}
