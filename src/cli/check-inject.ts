/**
 * `meshinject check-inject`: "why was (not) my pod injected?" for each workload of a manifest,
 * offline. The work is the pure {@link checkInjectReport} (src/webhook/check-inject-report.ts:
 * istioctl x check-inject's table, the webhooks the API server calls, the injector's own decision and
 * the verdict); the command reads the manifest, the Namespace, the webhook configurations and the
 * injector config, assuming what `meshinject webhook-config` and the built-in config give when they
 * are not given, and says so. Errors are printed as `meshinject: MESSAGE` (exit code 1), one line.
 */
import { Command, Option } from "commander";
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
import {
  filenameOption,
  inputName,
  type ManifestCommandIO,
  namespaceOption,
  PROCESS_IO,
  runManifestCommand,
} from "./manifest-command.js";

const isUserError = (e: unknown) =>
  e instanceof CheckInjectError ||
  e instanceof CheckInjectInputError ||
  e instanceof ConfigError ||
  e instanceof WebhookConfigError;

interface CheckInjectCliOptions {
  filename: string;
  namespace: string;
  namespaceLabels?: string[];
  namespaceFile?: string;
  webhookConfig?: string[];
  injectConfigFile?: string;
}

/** The shared `-f` option, described for this command (the manifest need not be injected). */
function manifestOption(): Option {
  const option = filenameOption();
  option.description = "Kubernetes YAML with the workloads to check; - reads standard input (required)";
  return option;
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
Assumed defaults are noted at the top of the output. Errors name the document (Kind "name") and the
cause, and exit with code 1.

Examples:
  meshinject check-inject -f app.yaml -n shop --namespace-labels istio-injection=enabled
  kubectl get ns shop -o yaml > ns.yaml
  kubectl get mutatingwebhookconfigurations -o yaml > mwc.yaml
  kubectl -n istio-system get cm istio-sidecar-injector -o yaml > inject.yaml
  meshinject check-inject -f app.yaml --namespace-file ns.yaml --webhook-config mwc.yaml --injectConfigFile inject.yaml
  kubectl get deploy web -n shop -o yaml | meshinject check-inject -f - --namespace-file ns.yaml
`;

/** `meshinject check-inject`: register with `program.addCommand(checkInjectCommand())`. */
export function checkInjectCommand(io: ManifestCommandIO = PROCESS_IO): Command {
  return new Command("check-inject")
    .description(
      "explain whether each workload's pods are injected: webhook selectors (istioctl x check-inject) and the injector's decision",
    )
    .addOption(manifestOption())
    .addOption(namespaceOption())
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
    .action((opts: CheckInjectCliOptions, command: Command) =>
      runManifestCommand(io, isUserError, async () => {
        const notes: string[] = [];

        const namespaces: NamespaceLabelSource = {};
        let namespace = opts.namespace;
        if (opts.namespaceFile !== undefined) {
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
        if (opts.namespaceFile === undefined && opts.namespaceLabels === undefined) {
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
        } else {
          notes.push("injector config: the built-in default; pass --injectConfigFile with the installed one");
        }
        const config = parseInjectorConfig(configText, configName);

        const input = await io.readInput(opts.filename);
        const report = checkInjectReport(input, {
          source: inputName(opts.filename),
          namespace,
          namespaces,
          webhookConfigs,
          policy: {
            policy: config.policy,
            neverInjectSelector: config.neverInjectSelector,
            alwaysInjectSelector: config.alwaysInjectSelector,
          },
          notes,
        });
        for (const warning of report.warnings) io.stderr(`meshinject: warning: ${warning}\n`);
        io.stdout(report.text);
      }),
    );
}
