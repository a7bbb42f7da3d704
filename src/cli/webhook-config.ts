/**
 * `meshinject webhook-config`: the I/O around src/webhook/webhook-config.ts (reading the CA bundle
 * file, writing the YAML to stdout or atomically to a file).
 */
import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { writeYaml } from "../go/yaml/write.js";
import {
  type AdmissionReviewVersion,
  defaultExcludedNamespaces,
  type FailurePolicy,
  type ReinvocationPolicy,
  type WebhookConfigOptions,
  webhookConfiguration,
} from "../webhook/webhook-config.js";
import type { CliIo } from "./io.js";
import { WriteError } from "./output.js";
import { OUTPUT_FLAG_HELP } from "./output-help.js";
import { writeOutput } from "./output-target.js";
import { DEFAULT_NAMESPACE, DEFAULT_SERVICE, serviceFor } from "./service-defaults.js";

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
  /** Name it as Istio does (a deliberate replacement of Istio's own configuration). */
  istioName?: boolean;
  /** Comma-separated; default v1. */
  admissionReviewVersions?: string;
  /** false (--no-exclude-system-namespaces): no namespace kept out by name. */
  excludeSystemNamespaces?: boolean;
  /** NS/NAME of a cert-manager Certificate whose CA cert-manager injects as caBundle. */
  certManager?: string;
  output?: string;
}

/** `cert-manager.io/inject-ca-from`: cert-manager's CA injector fills every caBundle from that Certificate's Secret. */
export const CERT_MANAGER_INJECT_CA_FROM = "cert-manager.io/inject-ca-from";
const NS_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/;

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
    admissionReviewVersions: (opts.admissionReviewVersions ?? "v1")
      .split(",")
      .map((v) => v.trim())
      .filter((v) => v !== "") as AdmissionReviewVersion[],
    excludeNamespaces: opts.excludeSystemNamespaces === false ? [] : defaultExcludedNamespaces(opts.namespace),
  };
  if (opts.istioName) options.istioNames = true;
  if (opts.certManager !== undefined) {
    if (!NS_NAME.test(opts.certManager)) {
      throw new WebhookConfigCliError(
        `--cert-manager must be NAMESPACE/CERTIFICATE (a cert-manager Certificate), got ${JSON.stringify(opts.certManager)}`,
      );
    }
    if (opts.caBundleFile !== undefined) {
      throw new WebhookConfigCliError(
        "give either --cert-manager or --ca-bundle-file: cert-manager writes the caBundle",
      );
    }
    options.annotations = { [CERT_MANAGER_INJECT_CA_FROM]: opts.certManager };
  }
  if (opts.tag !== undefined) options.tag = opts.tag;
  // Without --url the webhooks call a Service: the one `certs` and deploy/ name unless told otherwise.
  if (opts.url === undefined) options.service = opts.service ?? serviceFor(opts.revision);
  else if (opts.service !== undefined) options.service = opts.service;
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

/** The stderr warning for a configuration without caBundle, or undefined when there is one. */
export function caBundleWarning(opts: WebhookConfigCliOptions): string | undefined {
  if (opts.caBundleFile !== undefined || opts.certManager !== undefined) return undefined;
  if (opts.url !== undefined) {
    return "meshinject: warning: no --ca-bundle-file: the webhooks have no caBundle, so the API server trusts --url only if its certificate chains to the API server's own trusted roots\n";
  }
  const consequence =
    opts.failurePolicy === "Fail"
      ? "; with failurePolicy Fail, pods in injected namespaces cannot be created until then"
      : "";
  return `meshinject: warning: no --ca-bundle-file: the webhooks have no caBundle, so the API server will not trust the webhook until caBundle is set${consequence} (meshinject certs writes ca.crt to pass as --ca-bundle-file)\n`;
}

/**
 * The stderr note about istiod's WebhookCertPatcher (istio/istio pkg/webhooks/webhookpatch.go): an
 * istiod whose revision is the configuration's `istio.io/rev` label rewrites the caBundle of every
 * webhook named `*sidecar-injector.istio.io` in it with istiod's own CA.
 */
export function certPatcherNote(opts: Pick<WebhookConfigCliOptions, "revision">): string {
  const label = opts.revision === "" ? "default" : opts.revision;
  return `meshinject: note: an istiod of revision ${JSON.stringify(label)} in this cluster overwrites the caBundle of this configuration (label istio.io/rev=${label}) with its own CA unless its webhook patcher is off; see deploy/README.md, "Next to istiod"\n`;
}

export async function runWebhookConfig(opts: WebhookConfigCliOptions, io: CliIo): Promise<void> {
  const text = writeYaml(webhookConfiguration(await webhookConfigOptions(opts)));
  const warning = caBundleWarning(opts);
  if (warning !== undefined) io.stderr.write(warning);
  if (opts.output === undefined) {
    io.stdout.write(text);
  } else {
    try {
      await writeOutput(opts.output, text, io);
    } catch (e) {
      if (!(e instanceof WriteError)) throw e;
      throw new WebhookConfigCliError(`-o ${opts.output}: ${e.message}`);
    }
  }
  // Once the configuration is out (an error stays the only line).
  io.stderr.write(certPatcherNote(opts));
}

export const WEBHOOK_CONFIG_HELP = `
Prints the MutatingWebhookConfiguration Istio installs for its sidecar injector, pointing at the
webhook Service (or --url). Webhooks: rev.namespace. and rev.object. (namespace or pod labelled
istio.io/rev=REVISION), and for the default revision also namespace. (namespace labelled
istio-injection=enabled) and object. (pod labelled sidecar.istio.io/inject=true). A pod labelled
sidecar.istio.io/inject=false is never sent.

Next to istiod: an istiod of the same revision (label istio.io/rev) rewrites the webhooks' caBundle
with its own CA unless its patcher is off (INJECTION_WEBHOOK_CONFIG_NAME=""); see deploy/README.md.

Next to istiod's own configuration: ours is named meshinject-sidecar-injector[-REVISION] (Istio's is
istio-sidecar-injector[-REVISION]); --istio-name takes Istio's name, to replace its configuration on
purpose. Every webhook leaves out kube-system, kube-node-lease, kube-public and --namespace by name
(kubernetes.io/metadata.name NotIn ...), unless --no-exclude-system-namespaces.

Examples:
  meshinject webhook-config --ca-bundle-file certs/ca.crt | kubectl apply -f -
  meshinject webhook-config --cert-manager istio-system/istio-sidecar-injector | kubectl apply -f -
  meshinject webhook-config --revision canary --ca-bundle-file certs/ca.crt   # Service istio-sidecar-injector-canary
  meshinject webhook-config --tag prod --revision canary     # istio-revision-tag-prod
  meshinject webhook-config --cluster c1 --network n1        # path /inject/cluster/c1/net/n1
`;

/** Adds `webhook-config` to the program. */
export function registerWebhookConfig(program: Command, io: CliIo): void {
  program
    .command("webhook-config")
    .description("print the MutatingWebhookConfiguration for the injector (Istio's four webhooks and selectors)")
    .option("-r, --revision <name>", "control-plane revision; empty for the default revision", "")
    .option("--tag <name>", "revision tag: istio-revision-tag-TAG, selecting istio.io/rev=TAG, served by --revision")
    .option("--namespace <ns>", "namespace of the webhook Service", DEFAULT_NAMESPACE)
    .option(
      "--service <name>",
      `webhook Service name (default: "${DEFAULT_SERVICE}", or "${DEFAULT_SERVICE}-REVISION" with --revision; as in deploy/ and certs)`,
    )
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
    .option("--name <name>", "name of the configuration (default meshinject-sidecar-injector[-REVISION])")
    .option(
      "--istio-name",
      "name it as Istio does (istio-sidecar-injector[-REVISION]): replaces Istio's own configuration",
    )
    .option("--admission-review-versions <list>", "AdmissionReview versions, comma-separated (v1, v1beta1)", "v1")
    .option(
      "--no-exclude-system-namespaces",
      "do not keep kube-system, kube-node-lease, kube-public and --namespace out of every webhook",
    )
    .option(
      "--cert-manager <ns/certificate>",
      "let cert-manager inject the caBundle from this Certificate (annotation cert-manager.io/inject-ca-from)",
    )
    .option("-o, --output <file>", OUTPUT_FLAG_HELP)
    .addHelpText("after", WEBHOOK_CONFIG_HELP)
    .action((opts: WebhookConfigCliOptions) => runWebhookConfig(opts, io));
}
