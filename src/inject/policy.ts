/**
 * The injection decision (Istio's injectRequired in pkg/kube/inject/inject.go): whether a pod gets a
 * sidecar, and why. In order:
 *
 * 1. host networking → no (iptables would rewrite the node's routing, not the pod's);
 * 2. a namespace in the ignored list (kube-system, kube-public, kube-node-lease,
 *    local-path-storage) → no;
 * 3. the pod's opinion: the `sidecar.istio.io/inject` label if the key is present (even empty),
 *    else the annotation; only `true` / `false` count, anything else means no opinion;
 * 4. no opinion: the first non-empty neverInjectSelector matching the labels → no, else the first
 *    non-empty alwaysInjectSelector matching → yes;
 * 5. the policy: `enabled` injects unless told not to, `disabled` only when told to, any other value
 *    never injects.
 *
 * A pod that already carries `sidecar.istio.io/status` is not skipped: the webhook re-injects it
 * (the earlier injection is stripped first). The decision reports it so callers can tell.
 *
 * The pod is expected typed (as Go decodes it: label and annotation values are strings; YAML's
 * `yes` or `1` already coerced to "true" and "1", see src/kube/typed.ts). A value the decision
 * reads that is not a string raises {@link PolicyInputError} naming the field.
 */

import { isRecord } from "../go/json.js";
import { quote } from "../go/strconv.js";
import { valueKind } from "../kube/value-kind.js";
import { hasInjectionStatus } from "./pod.js";
import { compileSelector, type LabelSelector, LabelSelectorError } from "./policy-selector.js";

export { parseInjectEnvs } from "./policy-inject-path.js";
export {
  type CompiledSelector,
  compileSelector,
  type LabelSelector,
  LabelSelectorError,
  type LabelSelectorRequirement,
} from "./policy-selector.js";

/** Namespaces the injector never touches (Istio's IgnoredNamespaces). */
export const IGNORED_NAMESPACES: readonly string[] = [
  "kube-system",
  "kube-public",
  "kube-node-lease",
  "local-path-storage",
];

/** A field the decision reads has the wrong type (the pod was not typed first); the message names it. */
export class PolicyInputError extends Error {
  override name = "PolicyInputError";
}

/** A string-to-string map of the pod (null: none); a null value reads as "", as Go decodes it. */
function stringMap(v: unknown, field: string): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (!isRecord(v)) throw new PolicyInputError(`${field} must be a map, got ${valueKind(v)}`);
  let out: Record<string, string> | undefined;
  for (const key of Object.keys(v)) {
    const value = v[key];
    if (typeof value === "string") continue;
    if (value !== null) {
      throw new PolicyInputError(`${field}[${JSON.stringify(key)}] must be a string, got ${valueKind(value)}`);
    }
    out ??= { ...(v as Record<string, string>) };
    out[key] = "";
  }
  return out ?? (v as Record<string, string>);
}

/** The value of one key of a string map of the pod; null reads as "". */
function stringEntry(map: unknown, key: string, field: string): string | undefined {
  if (!isRecord(map) || !Object.hasOwn(map, key)) return undefined;
  const value = map[key];
  if (value === null) return "";
  if (typeof value !== "string") {
    throw new PolicyInputError(`${field}[${JSON.stringify(key)}] must be a string, got ${valueKind(value)}`);
  }
  return value;
}

export const INJECT_LABEL = "sidecar.istio.io/inject";
export const INJECT_ANNOTATION = "sidecar.istio.io/inject";

/** The policy part of the injector configuration (the `config` of istio-sidecar-injector). */
export interface InjectionPolicyConfig {
  /** `enabled`, `disabled`; anything else disables injection altogether. */
  policy: string;
  neverInjectSelector?: readonly LabelSelector[] | null;
  alwaysInjectSelector?: readonly LabelSelector[] | null;
  /** Defaults to {@link IGNORED_NAMESPACES}. */
  ignoredNamespaces?: readonly string[];
}

/** What the decision reads of a pod: metadata (namespace, labels, annotations) and `spec.hostNetwork`. */
export interface PolicyPod {
  metadata?: {
    namespace?: string;
    labels?: Record<string, string> | null;
    annotations?: Record<string, string> | null;
    [f: string]: unknown;
  } | null;
  spec?: { hostNetwork?: boolean | null; [f: string]: unknown } | null;
}

export interface InjectionDecision {
  inject: boolean;
  /** Why, in a sentence (for logs and `check-inject`-style explanations). */
  reason: string;
  /** The pod carries `sidecar.istio.io/status`: a previous injection is replaced, not skipped. */
  alreadyInjected: boolean;
  /** What Istio logs as warnings while deciding (odd inject values, invalid selectors, bad policy). */
  warnings: string[];
}

export function isIgnoredNamespace(namespace: string, ignored: readonly string[] = IGNORED_NAMESPACES): boolean {
  return ignored.includes(namespace);
}

/** The first selector of the list that is valid, non-empty and matches the labels. */
function firstMatch(
  selectors: readonly LabelSelector[] | null | undefined,
  labels: Record<string, string>,
  listName: string,
  warnings: string[],
): boolean {
  for (const selector of selectors ?? []) {
    try {
      const compiled = compileSelector(selector);
      if (!compiled.empty && compiled.matches(labels)) return true;
    } catch (e) {
      if (!(e instanceof LabelSelectorError)) throw e;
      warnings.push(`Invalid selector for ${listName}: ${JSON.stringify(selector)} (${e.message})`);
    }
  }
  return false;
}

/** The injection decision with its reason. */
export function injectionDecision(pod: PolicyPod, config: InjectionPolicyConfig): InjectionDecision {
  const warnings: string[] = [];
  const injected = hasInjectionStatus(pod);
  const decide = (inject: boolean, reason: string): InjectionDecision => ({
    inject,
    reason,
    alreadyInjected: injected,
    warnings,
  });
  if (pod.spec?.hostNetwork === true) return decide(false, "the pod uses host networking");
  const namespace = pod.metadata?.namespace ?? "";
  if (typeof namespace !== "string") {
    throw new PolicyInputError(`metadata.namespace must be a string, got ${valueKind(namespace)}`);
  }
  if (isIgnoredNamespace(namespace, config.ignoredNamespaces ?? IGNORED_NAMESPACES)) {
    return decide(false, `namespace ${quote(namespace)} is never injected`);
  }

  // Every label counts for the selectors; of the annotations only the inject one is read.
  const labels = stringMap(pod.metadata?.labels, "metadata.labels");
  if (pod.metadata?.annotations != null && !isRecord(pod.metadata.annotations)) {
    throw new PolicyInputError(`metadata.annotations must be a map, got ${valueKind(pod.metadata.annotations)}`);
  }
  let opinion: boolean | undefined;
  let source = "";
  const fromLabel = Object.hasOwn(labels, INJECT_LABEL);
  const value = fromLabel
    ? labels[INJECT_LABEL]
    : stringEntry(pod.metadata?.annotations, INJECT_ANNOTATION, "metadata.annotations");
  if (value === "true" || value === "false") {
    opinion = value === "true";
    source = `${fromLabel ? "label" : "annotation"} ${INJECT_LABEL}=${quote(value)}`;
  } else if (value !== undefined && value !== "") {
    warnings.push(
      `Invalid value for ${INJECT_LABEL}: ${quote(value)}. Only 'true' and 'false' are accepted. Falling back to default injection policy.`,
    );
  }
  if (opinion === undefined) {
    if (firstMatch(config.neverInjectSelector, labels, "NeverInjectSelector", warnings)) {
      opinion = false;
      source = "the pod labels match a neverInjectSelector";
    } else if (firstMatch(config.alwaysInjectSelector, labels, "AlwaysInjectSelector", warnings)) {
      opinion = true;
      source = "the pod labels match an alwaysInjectSelector";
    }
  }

  switch (config.policy) {
    case "enabled":
      if (opinion === undefined) return decide(true, 'the injection policy is "enabled"');
      return decide(opinion, source);
    case "disabled":
      if (opinion === undefined) return decide(false, 'the injection policy is "disabled"');
      return decide(opinion, source);
    default:
      warnings.push(
        `Illegal value for autoInject:${config.policy}, must be one of [disabled,enabled]. Auto injection disabled!`,
      );
      return decide(false, `the injection policy ${quote(String(config.policy))} is neither "enabled" nor "disabled"`);
  }
}

/** Istio's injectRequired: the decision alone. */
export function injectRequired(pod: PolicyPod, config: InjectionPolicyConfig): boolean {
  return injectionDecision(pod, config).inject;
}

/** How kube-inject names the workload in its skip messages: `Kind "namespace/name"`. */
export interface WorkloadDescription {
  /** The object's kind; may be empty. */
  kind?: string;
  /** `namespace/name`, or the name alone when the object has no namespace. */
  fullName: string;
}

export interface KubeInjectDecision {
  inject: boolean;
  /** The line istioctl kube-inject prints when it skips the workload (ends with a newline). */
  warning?: string;
  /** What Istio logs while deciding, e.g. that an invalid `sidecar.istio.io/inject` value falls back to the default. */
  logged: string[];
}

/**
 * `istioctl kube-inject`'s decision for one pod template: host networking is checked first, then
 * injectRequired with policy `enabled`, no selectors and the default ignored namespaces.
 */
export function kubeInjectDecision(pod: PolicyPod, workload: WorkloadDescription): KubeInjectDecision {
  const subject = workload.kind ? `${workload.kind} ${quote(workload.fullName)}` : quote(workload.fullName);
  if (pod.spec?.hostNetwork === true) {
    return {
      inject: false,
      warning: `===> Skipping injection because ${subject} has host networking enabled\n`,
      logged: [],
    };
  }
  const decision = injectionDecision(pod, { policy: "enabled" });
  if (!decision.inject) {
    return {
      inject: false,
      warning: `===> Skipping injection because ${subject} has sidecar injection disabled\n`,
      logged: decision.warnings,
    };
  }
  return { inject: true, logged: decision.warnings };
}
