/**
 * `meshinject check-inject`: "why was (not) my pod injected?" for each workload of a manifest,
 * offline. The work is the pure {@link checkInjectReport} (src/webhook/check-inject-report.ts:
 * istioctl x check-inject's table, the webhooks the API server calls, the injector's own decision and
 * the verdict); the command reads the manifest, the Namespace, the webhook configurations and the
 * injector config, assuming what `meshinject webhook-config` and the built-in config give when they
 * are not given, and says so. Errors are printed as `meshinject: MESSAGE` (exit code 1), one line.
 */
import { Command, Option } from "commander";
import { ClusterError } from "../cluster/client.js";
import { ConfigError, parseInjectorConfig } from "../inject/config.js";
import { defaultConfigFiles } from "../inject/defaults.js";
import { configMapKey } from "../inject/injector.js";
import type { Labels } from "../inject/policy-selector.js";
import {
  CheckInjectInputError,
  NAMESPACE_NAME_LABEL,
  type NamespaceLabelSource,
  parseLabelPairs,
  parseNamespaces,
  parseWebhookConfigurations,
} from "../report/check-inject-inputs.js";
import { CheckInjectError, checkInjectReport } from "../report/check-inject-report.js";
import { WebhookConfigError, webhookConfiguration } from "../webhook/webhook-config.js";
import { LiveInputError, readLiveInputs } from "./check-inject-live.js";
import { CliError } from "./cli-error.js";
import {
  filenameOption,
  inputName,
  type ManifestCommandIO,
  namespaceOption,
  runManifestCommand,
} from "./manifest-command.js";
import { requestTimeoutMs } from "./request-timeout.js";

const isUserError = (e: unknown) =>
  e instanceof CliError ||
  e instanceof ClusterError ||
  e instanceof LiveInputError ||
  e instanceof CheckInjectError ||
  e instanceof CheckInjectInputError ||
  e instanceof ConfigError ||
  e instanceof WebhookConfigError;

interface CheckInjectCliOptions {
  filename?: string;
  selector?: string;
  output: string;
  istioNamespace?: string;
  kubeconfig?: string;
  context?: string;
  requestTimeout?: string;
  namespace: string;
  namespaceLabels?: string[];
  namespaceFile?: string;
  webhookConfig?: string[];
  injectConfigFile?: string;
  exitCode?: boolean;
}

/** The shared `-f` option, described for this command (the manifest need not be injected; a live object may stand instead). */
function manifestOption(): Option {
  const option = filenameOption();
  option.description = "Kubernetes YAML with the workloads to check; - reads standard input (or name a live object)";
  option.mandatory = false;
  return option;
}

/** What to check: a manifest (-f) or live objects (KIND/NAME, or -l), never both. */
function inputMode(resource: string | undefined, opts: CheckInjectCliOptions): "file" | "live" {
  const given = [opts.filename !== undefined, resource !== undefined, opts.selector !== undefined].filter(
    Boolean,
  ).length;
  if (given !== 1) {
    throw new LiveInputError(
      given === 0
        ? "name what to check: -f FILE, a live object (deployment/web), or -l SELECTOR for live pods"
        : "give one of -f FILE, a live object (KIND/NAME) or -l SELECTOR",
    );
  }
  if (opts.output !== "text" && opts.output !== "json") {
    throw new LiveInputError(`-o must be text or json, got ${JSON.stringify(opts.output)}`);
  }
  return opts.filename !== undefined ? "file" : "live";
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

const HELP = `
For every Pod, Deployment, DaemonSet, StatefulSet, ReplicaSet, ReplicationController, Job, CronJob
and DeploymentConfig (Lists too) of a manifest, explains whether its pods get the Istio sidecar when
created, under a "# Kind namespace/name" line:
  - the namespace's labels and the pod template's labels;
  - istioctl x check-inject's table: for each Istio MutatingWebhookConfiguration, whether its
    selectors select the pod, and why (istioctl's reasons); istioctl's error when several do;
  - the webhooks the API server calls for the pod (namespaceSelector AND objectSelector match);
  - the injector's own decision once called: host networking, ignored namespaces, the
    sidecar.istio.io/inject label (else annotation), neverInjectSelector/alwaysInjectSelector, the
    policy;
  - the verdict: injected only when a webhook is called AND the injector injects.

What only the cluster knows is read from files or flags. The Namespace: with --namespace-file
(kubectl get ns NS -o yaml; a List of Namespaces is looked up by each workload's namespace, and a
single Namespace is also the default of -n), and/or --namespace-labels, which apply over it. The
webhook configurations installed (kubectl get mutatingwebhookconfigurations -o yaml): without
--webhook-config, what \`meshinject webhook-config\` generates for the default revision. The injector
config (the config key of istio-sidecar-injector, or the ConfigMap): without --injectConfigFile, the
built-in default (policy enabled, no selectors); give the one of the revision whose webhook is called.
The API server's kubernetes.io/metadata.name label is added to the namespace's labels where missing.
Assumed defaults are noted at the top of the output. A workload that cannot be decided (its
namespace is not in --namespace-file, a label value is not a string, the workload is invalid) is
reported with "verdict: undecided: WHY" and the others still are; the exit code is 1 only when no
workload could be decided, or with --exit-code when any could not. An input that cannot be read
is one error line naming the file (and the document), with exit code 1.

Live: name an object (deployment/web, pod/web-1, statefulset/db, ...) or -l SELECTOR (pods) instead
of -f, with -n, and the workload, its namespace, the installed MutatingWebhookConfigurations and the
injector config (ConfigMap istio-sidecar-injector in -i, default istio-system) are read from the
cluster of the kube context (--kubeconfig, --context), as istioctl x check-inject does; files given
with --webhook-config or --injectConfigFile still win. -o json prints the same findings as data.

As in istioctl, \`meshinject x check-inject\` is the same command.

Examples:
  meshinject check-inject deployment/web -n shop
  meshinject check-inject -l app=web -n shop -o json
  meshinject check-inject -f app.yaml -n shop --namespace-labels istio-injection=enabled
  kubectl get ns shop -o yaml > ns.yaml
  kubectl get mutatingwebhookconfigurations -o yaml > mwc.yaml
  kubectl -n istio-system get cm istio-sidecar-injector -o yaml > inject.yaml
  meshinject check-inject -f app.yaml --namespace-file ns.yaml --webhook-config mwc.yaml --injectConfigFile inject.yaml
  kubectl get deploy web -n shop -o yaml | meshinject check-inject -f - --namespace-file ns.yaml
`;

/** `meshinject check-inject`: register with `program.addCommand(checkInjectCommand(io))`. */
export function checkInjectCommand(io: ManifestCommandIO): Command {
  return new Command("check-inject")
    .description(
      "explain whether each workload's pods are injected: webhook selectors (istioctl x check-inject) and the injector's decision",
    )
    .argument("[resource]", "a live object to check, KIND/NAME (deployment/web, pod/web-1, statefulset/db, ...)")
    .addOption(manifestOption())
    .addOption(namespaceOption())
    .option("-l, --selector <k=v,...>", "check the live pods this label selector matches in the namespace")
    .option("-o, --output <format>", "text (default) or json", "text")
    .option("--exit-code", "exit with code 1 when some workload cannot be decided (it always does when none can)")
    .option(
      "-i, --istioNamespace <ns>",
      "the cluster's Istio namespace, for the injector config (default istio-system)",
    )
    .option("--kubeconfig <file>", "kubeconfig for live objects (default: $KUBECONFIG, ~/.kube/config, or in-cluster)")
    .option("--context <name>", "kubeconfig context for live objects (default: the current one)")
    .option("--request-timeout <seconds>", "how long one request to the API server may take (default 15)")
    .addOption(
      new Option(
        "--namespace-labels <k=v,...>",
        "labels of the namespace, comma-separated (repeatable; over --namespace-file's)",
      ).argParser(collect),
    )
    .option("--namespace-file <file>", "the Namespace as kubectl get ns NS -o yaml prints it (or a List of them)")
    .addOption(
      new Option(
        "--webhook-config <file>",
        "MutatingWebhookConfiguration YAML, a List or several documents (repeatable; default: the default revision's, generated)",
      ).argParser(collect),
    )
    .option(
      "--injectConfigFile <file>",
      "injector config: the `config` key of istio-sidecar-injector, or the ConfigMap (default: built-in)",
    )
    .addHelpText("after", HELP)
    .action((resource: string | undefined, opts: CheckInjectCliOptions, command: Command) =>
      runManifestCommand(io, isUserError, async () => {
        const mode = inputMode(resource, opts);
        const notes: string[] = [];
        const live =
          mode === "live"
            ? await readLiveInputs({
                resource,
                selector: opts.selector,
                namespace: opts.namespace,
                istioNamespace: opts.istioNamespace ?? "istio-system",
                readWebhooks: opts.webhookConfig === undefined,
                readInjectorConfig: opts.injectConfigFile === undefined,
                kubeconfig: opts.kubeconfig,
                context: opts.context,
                timeoutMs: requestTimeoutMs(opts.requestTimeout),
              })
            : undefined;
        if (live !== undefined) notes.push(...live.notes);

        const namespaces: NamespaceLabelSource = {};
        let namespace = opts.namespace;
        if (live !== undefined) {
          namespaces.byName = parseNamespaces(live.namespaces.map((n) => JSON.stringify(n)).join("\n---\n"), "cluster");
        } else if (opts.namespaceFile !== undefined) {
          const file = opts.namespaceFile;
          namespaces.byName = parseNamespaces(await io.readInput(file), inputName(file));
          const only = namespaces.byName.size === 1 ? [...namespaces.byName.keys()][0] : undefined;
          if (only !== undefined && command.getOptionValueSource("namespace") === "default") namespace = only;
        }
        if (opts.namespaceLabels !== undefined) {
          const extra: Record<string, string> = {};
          for (const text of opts.namespaceLabels) Object.assign(extra, parseLabelPairs(text, "--namespace-labels"));
          namespaces.extra = extra as Labels;
        }
        if (live === undefined && opts.namespaceFile === undefined && opts.namespaceLabels === undefined) {
          notes.push(
            `namespace labels: none given, only ${NAMESPACE_NAME_LABEL} (the API server's); pass --namespace-labels or --namespace-file`,
          );
        }

        let webhookConfigs: unknown[];
        if (opts.webhookConfig !== undefined) {
          webhookConfigs = [];
          for (const file of opts.webhookConfig) {
            webhookConfigs.push(...parseWebhookConfigurations(await io.readInput(file), inputName(file)));
          }
        } else if (live?.webhookConfigs !== undefined) {
          webhookConfigs = live.webhookConfigs;
        } else {
          const generated = webhookConfiguration();
          webhookConfigs = [generated];
          const name = String((generated.metadata as { name?: unknown }).name);
          notes.push(
            `webhook configurations: assumed ${name}, as \`meshinject webhook-config\` generates it for the default revision; pass --webhook-config with the installed ones`,
          );
        }

        let configText = defaultConfigFiles().config;
        let configName = "built-in config";
        if (opts.injectConfigFile !== undefined) {
          configName = inputName(opts.injectConfigFile);
          configText = configMapKey(await io.readInput(opts.injectConfigFile), "config", configName);
        } else if (live?.injectorConfig !== undefined) {
          configText = live.injectorConfig;
          configName = `ConfigMap ${opts.istioNamespace ?? "istio-system"}/istio-sidecar-injector`;
        } else if (live === undefined) {
          notes.push("injector config: the built-in default; pass --injectConfigFile with the installed one");
        }
        const config = parseInjectorConfig(configText, configName);

        const input = live?.input ?? (await io.readInput(opts.filename as string));
        const report = checkInjectReport(input, {
          source: live !== undefined ? "cluster" : inputName(opts.filename as string),
          namespace,
          namespaces,
          webhookConfigs,
          policy: {
            policy: config.policy,
            neverInjectSelector: config.neverInjectSelector,
            alwaysInjectSelector: config.alwaysInjectSelector,
          },
          notes,
          undecided: true,
        });
        for (const warning of report.warnings) io.stderr(`meshinject: warning: ${warning}\n`);
        const { workloads, undecided } = report;
        if (opts.output === "json") io.stdout(`${JSON.stringify({ notes, workloads, undecided }, null, 2)}\n`);
        else io.stdout(report.text);
        if (undecided.length > 0) {
          const all = workloads.length === 0;
          const what = all
            ? `none of the ${undecided.length} workload(s) could be decided`
            : `warning: ${undecided.length} of the ${undecided.length + workloads.length} workload(s) could not be decided`;
          io.stderr(`meshinject: ${what}; see "verdict: undecided" in the report\n`);
          // Nothing decided is a failed run; some undecided only when asked (--exit-code).
          if (all || opts.exitCode === true) io.fail();
        }
      }),
    );
}
