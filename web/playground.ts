/**
 * The playground's computation, with no DOM: the page's state in, every output tab out. It runs
 * the same code as the CLI (kube-inject, check-inject, capture-rules, proxy-config), on the texts
 * the user gives or the built-in configuration.
 */
import { LineCounter, parseAllDocuments } from "yaml";
import { envoyBootstrapPreview } from "../src/agent/bootstrap/envoy-preview.js";
import { proxyConfigReport } from "../src/agent/bootstrap/index.js";
import { captureRules } from "../src/agent/capture/capture-report.js";
import { injectYaml, loadInjectorConfig } from "../src/index.js";
import { defaultConfigFiles } from "../src/inject/defaults.js";
import { configMapKey } from "../src/inject/injector.js";
import { documentDiffs } from "../src/kube/document-diff.js";
import { parseLabelPairs } from "../src/report/check-inject-inputs.js";
import { checkInjectReport } from "../src/report/check-inject-report.js";
import { webhookConfiguration } from "../src/webhook/webhook-config.js";
import { type WorkloadPictures, workloadPictures } from "./pictures.js";

/** Everything the page lets the user set; also what the share URL carries. */
export interface PlaygroundState {
  workload: string;
  namespace: string;
  /** The namespace's labels, `k=v,k2=v2`. */
  namespaceLabels: string;
  /** A pasted istio-sidecar-injector ConfigMap (or its `config` key); "" = built-in. */
  injectorConfig: string;
  /** A pasted istio ConfigMap (or its `mesh` key); "" = built-in. */
  meshConfig: string;
  revision: string;
  nativeSidecars: boolean;
}

export const INITIAL_STATE: Omit<PlaygroundState, "workload"> = {
  namespace: "default",
  namespaceLabels: "istio-injection=enabled",
  injectorConfig: "",
  meshConfig: "",
  revision: "",
  nativeSidecars: false,
};

export interface PlaygroundError {
  /** Which input: "workload", "injector config", "mesh config", "namespace labels". */
  input: string;
  /** 1-based document and line when known. */
  document?: number;
  line?: number;
  message: string;
}

export interface PlaygroundResult {
  injected: string;
  diff: string;
  why: string;
  traffic: string;
  proxy: string;
  /** The Envoy bootstrap each injected pod's agent would write. */
  bootstrap: string;
  /** The Pod and Traffic pictures' models, one per workload of the injected output. */
  pictures: WorkloadPictures[];
  /** Whether every workload would be injected in the cluster (the why tab's verdict). */
  verdict: "injected" | "not injected" | "partly injected" | "no workload";
  errors: PlaygroundError[];
  warnings: string[];
}

const WORKLOAD = "workload";

/** YAML syntax errors with their document and line, before anything else reads the text. */
function yamlErrors(text: string, input: string): PlaygroundError[] {
  const lineCounter = new LineCounter();
  const out: PlaygroundError[] = [];
  parseAllDocuments(text, { lineCounter }).forEach((doc, i) => {
    for (const e of doc.errors) {
      const line = lineCounter.linePos(e.pos[0]).line;
      out.push({ input, document: i + 1, line, message: e.message.split("\n")[0] ?? e.message });
    }
  });
  return out;
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e)).replace(/\s*\n\s*/g, " ");

/** Runs one step; an error becomes an inline error and an empty tab. */
function attempt(errors: PlaygroundError[], input: string, f: () => string): string {
  try {
    return f();
  } catch (e) {
    errors.push({ input, message: message(e) });
    return "";
  }
}

/** The loaded injector of a configuration, and the mesh config text it was loaded from. */
interface LoadedConfiguration {
  injector: ReturnType<typeof loadInjectorConfig>;
  meshText: string;
}

let lastConfiguration: { key: string; loaded: LoadedConfiguration } | undefined;

/**
 * The injector for the state's configuration, loaded (templates parsed) once per configuration:
 * typing in the workload re-injects without reading the configuration again. The ConfigMap keys are
 * looked up first, so that their errors name the playground's inputs.
 */
function loadedConfiguration(state: PlaygroundState): LoadedConfiguration {
  const key = JSON.stringify([state.injectorConfig, state.meshConfig, state.revision]);
  if (lastConfiguration?.key !== key) {
    const defaults = defaultConfigFiles(state.revision);
    if (state.injectorConfig.trim() !== "") configMapKey(state.injectorConfig, "config", "injector config");
    const meshText =
      state.meshConfig.trim() === "" ? defaults.mesh : configMapKey(state.meshConfig, "mesh", "mesh config");
    const injector = loadInjectorConfig({
      config: state.injectorConfig.trim() === "" ? undefined : state.injectorConfig,
      mesh: state.meshConfig.trim() === "" ? undefined : state.meshConfig,
      revision: state.revision,
    });
    lastConfiguration = { key, loaded: { injector, meshText } };
  }
  return lastConfiguration.loaded;
}

/** Every output tab for `state`. */
export function runPlayground(state: PlaygroundState): PlaygroundResult {
  const empty: PlaygroundResult = {
    injected: "",
    diff: "",
    why: "",
    traffic: "",
    proxy: "",
    bootstrap: "",
    pictures: [],
    verdict: "no workload",
    errors: [],
    warnings: [],
  };
  const errors = [
    ...yamlErrors(state.workload, WORKLOAD),
    ...(state.injectorConfig.trim() === "" ? [] : yamlErrors(state.injectorConfig, "injector config")),
    ...(state.meshConfig.trim() === "" ? [] : yamlErrors(state.meshConfig, "mesh config")),
  ];
  if (errors.length > 0) return { ...empty, errors };

  const warnings: string[] = [];
  let injector: ReturnType<typeof loadInjectorConfig>;
  let meshText: string;
  try {
    ({ injector, meshText } = loadedConfiguration(state));
  } catch (e) {
    return { ...empty, errors: [{ input: "configuration", message: message(e) }] };
  }

  let labels: Record<string, string>;
  try {
    labels = parseLabelPairs(state.namespaceLabels, "namespace labels");
  } catch (e) {
    return { ...empty, errors: [{ input: "namespace labels", message: message(e) }] };
  }

  const injected = attempt(errors, WORKLOAD, () =>
    // kube-inject's own call: the same settings the CLI passes.
    kubeInjectText(injector, state, (w) => warnings.push(w)),
  );
  const diff =
    injected === "" ? "" : attempt(errors, WORKLOAD, () => documentDiffs(WORKLOAD, state.workload, injected));

  const namespace = state.namespace.trim() === "" ? "default" : state.namespace.trim();
  let verdict: PlaygroundResult["verdict"] = "no workload";
  const why = attempt(errors, WORKLOAD, () => {
    const config = injector.config;
    const report = checkInjectReport(state.workload, {
      source: WORKLOAD,
      namespace,
      namespaces: { extra: labels },
      webhookConfigs: [webhookConfiguration(state.revision === "" ? {} : { revision: state.revision })],
      policy: {
        policy: config.policy,
        neverInjectSelector: config.neverInjectSelector,
        alwaysInjectSelector: config.alwaysInjectSelector,
      },
    });
    warnings.push(...report.warnings);
    const yes = report.workloads.filter((w) => w.verdict.injected).length;
    verdict =
      report.workloads.length === 0
        ? "no workload"
        : yes === report.workloads.length
          ? "injected"
          : yes === 0
            ? "not injected"
            : "partly injected";
    return report.text;
  });

  const traffic =
    injected === ""
      ? ""
      : attempt(errors, "traffic", () => {
          const r = captureRules(injected, { source: WORKLOAD, namespace, ipv6: false, dnsServers: [] });
          warnings.push(...r.warnings);
          return r.text;
        });
  const proxy =
    injected === ""
      ? ""
      : attempt(errors, "proxy", () =>
          proxyConfigReport(injected, {
            source: WORKLOAD,
            meshConfigText: meshText,
            mesh: injector.meshConfig,
            namespace,
          }),
        );
  const bootstrap =
    injected === ""
      ? ""
      : attempt(errors, "bootstrap", () =>
          envoyBootstrapPreview(injected, { source: WORKLOAD, namespace, podIP: "10.0.0.1", meshConfigText: meshText }),
        );
  let pictures: WorkloadPictures[] = [];
  if (injected !== "") {
    attempt(errors, WORKLOAD, () => {
      pictures = workloadPictures(state.workload, injected, {
        namespace,
        meshConfigText: meshText,
        mesh: injector.meshConfig,
      });
      return "";
    });
  }
  return { injected, diff, why, traffic, proxy, bootstrap, pictures, verdict, errors, warnings };
}

function kubeInjectText(
  injector: ReturnType<typeof loadInjectorConfig>,
  state: PlaygroundState,
  warn: (w: string) => void,
): string {
  return injectYaml(injector, state.workload, {
    revision: state.revision,
    nativeSidecars: state.nativeSidecars,
    onWarning: warn,
  });
}

/** The equivalent CLI call, self-contained (the workload and any pasted ConfigMaps as here-documents). */
export function kubeInjectCommand(state: PlaygroundState): string {
  const files: string[] = [];
  const args = ["meshinject kube-inject -f workload.yaml"];
  const heredoc = (name: string, text: string) =>
    files.push(`cat > ${name} <<'MESHINJECT_EOF'\n${text.replace(/\n?$/, "\n")}MESHINJECT_EOF`);
  heredoc("workload.yaml", state.workload);
  if (state.injectorConfig.trim() !== "") {
    heredoc("inject-config.yaml", state.injectorConfig);
    args.push("--injectConfigFile inject-config.yaml");
  }
  if (state.meshConfig.trim() !== "") {
    heredoc("mesh-config.yaml", state.meshConfig);
    args.push("--meshConfigFile mesh-config.yaml");
  }
  if (state.revision !== "") args.push(`--revision ${state.revision}`);
  if (state.nativeSidecars) args.push("--native-sidecars on");
  return `${files.join("\n")}\n${args.join(" ")}\n`;
}
