/**
 * "Why was (not) my pod injected?" for every workload of a YAML stream (Lists included, item by
 * item), as `meshinject check-inject` prints it under a `# Kind namespace/name` line:
 *
 *   1. the labels the decision reads (the namespace's, the pod template's);
 *   2. `istioctl x check-inject`'s table over the webhook configurations (./check-inject-table.ts,
 *      the analysis of ./webhook-match.ts);
 *   3. the webhooks the API server calls: those of the Istio configurations whose rules cover pod
 *      CREATE and whose namespace and object selectors both match;
 *   4. the injector's own decision once called (../inject/policy.ts);
 *   5. the verdict: injected only when some webhook is called AND the injector injects.
 *
 * Pure: the caller reads the files. Errors name the input and the document, on one line.
 */

import { isRecord } from "../go/json.js";
import type { Json } from "../inject/pod.js";
import { type InjectionPolicyConfig, injectionDecision, PolicyInputError } from "../inject/policy.js";
import type { Labels } from "../inject/policy-selector.js";
import { podNamespace, podPathsOf } from "../kube/workloads.js";
import {
  type CheckInjectResult,
  checkInject,
  isIstioConfiguration,
  selectorMatches,
  webhooksOf,
} from "../webhook/webhook-match.js";
import {
  CheckInjectInputError,
  type NamespaceLabelSource,
  namespaceLabels,
  stringLabels,
} from "./check-inject-inputs.js";
import { checkInjectTable } from "./check-inject-table.js";
import { forEachWorkload, nothingInjectedMessage, workloadHeader } from "./injected-pods.js";

/** An error for the user: one line naming the input, the document and the cause. */
export class CheckInjectError extends Error {
  override name = "CheckInjectError";
}

export interface CheckInjectOptions {
  /** The input's name for messages (`stdin`, a path). */
  source: string;
  /** The namespace of objects that name none (`-n`; `default`, as kubectl applies). */
  namespace: string;
  /** Where the namespaces' labels come from. */
  namespaces: NamespaceLabelSource;
  /** The MutatingWebhookConfigurations installed (or assumed). */
  webhookConfigs: readonly unknown[];
  /** The injector's policy settings (the `config` of istio-sidecar-injector). */
  policy: InjectionPolicyConfig;
  /** Lines printed first, each as `# LINE` (what was assumed). */
  notes?: readonly string[];
  /**
   * Report a workload that cannot be decided as undecided, with why, and go on with the others
   * (the command line); without it, the first one is thrown as a CheckInjectError.
   */
  undecided?: boolean;
}

export interface CheckInjectReport {
  text: string;
  /** The same, as data: one entry per workload decided, in input order. */
  workloads: WorkloadCheck[];
  /** The workloads that could not be decided (with `undecided` on), in input order. */
  undecided: UndecidedWorkload[];
  /** Injector warnings (an invalid inject value, a bad selector), each naming the document. */
  warnings: string[];
}

/** A webhook the API server calls for the pod. */
export interface CalledWebhook {
  /** The webhook's name (`namespace.sidecar-injector.istio.io`). */
  webhook: string;
  /** The name of its MutatingWebhookConfiguration. */
  configuration: string;
}

const has = (list: unknown, ...values: string[]) =>
  Array.isArray(list) && list.some((v) => typeof v === "string" && values.includes(v));

/** Whether a rule of the webhook covers CREATE of core v1 pods (no rules: nothing is sent to it). */
function coversPodCreate(webhook: Json): boolean {
  const rules = Array.isArray(webhook.rules) ? webhook.rules : [];
  return rules.some(
    (r) =>
      isRecord(r) &&
      has(r.operations, "CREATE", "*") &&
      has(r.apiGroups, "", "*") &&
      has(r.apiVersions, "v1", "*") &&
      has(r.resources, "pods", "*", "*/*"),
  );
}

/** The webhooks of the Istio configurations that the API server calls for a pod with these labels. */
export function calledWebhooks(
  configs: readonly unknown[],
  namespaceLabels: Labels,
  podLabels: Labels,
): CalledWebhook[] {
  const out: CalledWebhook[] = [];
  for (const config of configs.filter(isIstioConfiguration)) {
    const metadata = isRecord(config) && isRecord(config.metadata) ? config.metadata : {};
    for (const w of webhooksOf(config)) {
      if (
        coversPodCreate(w) &&
        selectorMatches(w.namespaceSelector, namespaceLabels) &&
        selectorMatches(w.objectSelector, podLabels)
      ) {
        out.push({ webhook: String(w.name), configuration: String(metadata.name ?? "") });
      }
    }
  }
  return out;
}

/** `k=v, k2=v2`, sorted by key; `(none)` when empty. */
function labelList(labels: Labels): string {
  const keys = Object.keys(labels).sort();
  return keys.length === 0 ? "(none)" : keys.map((k) => `${k}=${labels[k]}`).join(", ");
}

const calledName = (c: CalledWebhook) => `${c.webhook} (${c.configuration})`;

/** What the report finds for one workload: the data behind its lines (and `-o json`). */
export interface WorkloadCheck {
  /** `Kind namespace/name`. */
  workload: string;
  namespace: string;
  namespaceLabels: Labels;
  podLabels: Labels;
  /** istioctl x check-inject's rows, one per Istio webhook configuration. */
  webhookConfigurations: CheckInjectResult[];
  /** The webhooks the API server calls for the pod. */
  webhooksCalled: CalledWebhook[];
  /** The injector's own decision once called. */
  injector: { inject: boolean; reason: string; alreadyInjected: boolean };
  verdict: { injected: boolean; reason: string };
}

/** A workload whose injection cannot be decided from what was given, and why. */
export interface UndecidedWorkload {
  /** `Kind namespace/name`. */
  workload: string;
  /** Where it is in the input: `SOURCE: document N (Kind "name")`. */
  where: string;
  /** Why: a namespace the Namespace files lack, labels that are not strings, an invalid workload. */
  undecided: string;
}

/** The header of a workload that could not be read as one: its kind, namespace (or -n's) and name. */
function undecidedHeader(obj: Json, namespace: string): string {
  const metadata = isRecord(obj.metadata) ? obj.metadata : {};
  const name = typeof metadata.name === "string" && metadata.name !== "" ? metadata.name : "(no name)";
  const ns = typeof metadata.namespace === "string" && metadata.namespace !== "" ? metadata.namespace : namespace;
  return `${String(obj.kind)} ${ns ? `${ns}/${name}` : name}`;
}

/** The check of one workload. */
function checkWorkload(
  obj: Json,
  metadata: Json,
  spec: Json,
  where: string,
  workload: string,
  options: CheckInjectOptions,
  warnings: string[],
): WorkloadCheck {
  const namespace = podNamespace(obj, metadata, options.namespace);
  const metadataPath = podPathsOf(String(obj.kind)).metadata;
  const podLabels = stringLabels(metadata.labels, `${metadataPath}.labels`);
  const annotations = stringLabels(metadata.annotations, `${metadataPath}.annotations`);
  const nsLabels = namespaceLabels(options.namespaces, namespace);
  const called = calledWebhooks(options.webhookConfigs, nsLabels, podLabels);
  const decision = injectionDecision(
    { metadata: { namespace, labels: podLabels, annotations }, spec: { hostNetwork: spec.hostNetwork === true } },
    options.policy,
  );
  for (const w of decision.warnings) warnings.push(`${where}: ${w}`);
  let verdict: WorkloadCheck["verdict"];
  if (called.length === 0) {
    verdict = { injected: false, reason: "no injection webhook is called for the pod, so the injector never sees it" };
  } else if (!decision.inject) {
    verdict = {
      injected: false,
      reason: `${called.map((c) => c.webhook).join(", ")} calls the injector, which skips the pod`,
    };
  } else {
    verdict = { injected: true, reason: `injected by ${called.map(calledName).join(", ")}` };
  }
  return {
    workload,
    namespace,
    namespaceLabels: nsLabels,
    podLabels,
    webhookConfigurations: checkInject(options.webhookConfigs, podLabels, nsLabels),
    webhooksCalled: called,
    injector: { inject: decision.inject, reason: decision.reason, alreadyInjected: decision.alreadyInjected === true },
    verdict,
  };
}

/** The report's lines for one workload. */
function workloadLines(check: WorkloadCheck): string[] {
  const called = check.webhooksCalled;
  const lines = [
    `# ${check.workload}`,
    `namespace labels: ${labelList(check.namespaceLabels)}`,
    `pod labels: ${labelList(check.podLabels)}`,
  ];
  lines.push(...checkInjectTable(check.webhookConfigurations));
  lines.push(`webhooks called: ${called.length === 0 ? "none" : called.map(calledName).join(", ")}`);
  if (called.length > 1) {
    lines.push(
      `warning: ${called.length} webhooks are called for the pod: each sends it to an injector in turn, which can lead to errors`,
    );
  }
  const ifCalled = called.length === 0 ? " (if it were called)" : "";
  lines.push(`injector: ${check.injector.inject ? "injected" : "not injected"}: ${check.injector.reason}${ifCalled}`);
  if (check.injector.alreadyInjected && check.injector.inject && called.length > 0) {
    lines.push("note: the pod already carries sidecar.istio.io/status; the injector injects it again");
  }
  if (check.verdict.injected) lines.push(`verdict: ${check.verdict.reason}`);
  else lines.push(`verdict: not injected: ${check.verdict.reason}`);
  return lines;
}

/** The lines of a workload that could not be decided. */
function undecidedLines(check: UndecidedWorkload): string[] {
  return [`# ${check.workload}`, `verdict: undecided: ${check.undecided}`];
}

/**
 * The report for every workload of `input`. A workload that cannot be decided (an invalid
 * workload, label values that are not strings, a namespace the Namespace objects given do not
 * include) is reported as undecided, with why, and the others still are, with `options.undecided`;
 * without it, it is thrown. Throws CheckInjectError naming the input (and the document) for YAML
 * it cannot read, and when the input holds no workload.
 */
export function checkInjectReport(input: string, options: CheckInjectOptions): CheckInjectReport {
  const checks: (WorkloadCheck | UndecidedWorkload)[] = [];
  const warnings: string[] = [];
  const undecided: UndecidedWorkload[] = [];
  const workloads = forEachWorkload(
    input,
    {
      source: options.source,
      error: CheckInjectError,
      isDocumentError: (e) => e instanceof CheckInjectInputError || e instanceof PolicyInputError,
      onDocumentError: !options.undecided
        ? undefined
        : ({ obj, where, message }) => {
            const check = { workload: undecidedHeader(obj, options.namespace), where, undecided: message };
            undecided.push(check);
            checks.push(check);
          },
    },
    ({ obj, pod, where }) => {
      const workload = workloadHeader(obj, pod, options.namespace);
      checks.push(checkWorkload(obj, pod.metadata, pod.spec, where, workload, options, warnings));
    },
  );
  if (workloads === 0) throw new CheckInjectError(nothingInjectedMessage(options.source, 0, []));
  const notes = (options.notes ?? []).map((n) => `# ${n}`);
  const body = checks
    .map((check) => ("undecided" in check ? undecidedLines(check) : workloadLines(check)).join("\n"))
    .join("\n\n");
  const text = `${notes.length > 0 ? `${notes.join("\n")}\n\n` : ""}${body}\n`;
  const decided = checks.filter((check): check is WorkloadCheck => !("undecided" in check));
  return { text, workloads: decided, undecided, warnings };
}
