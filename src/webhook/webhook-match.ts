/**
 * Which webhooks of a MutatingWebhookConfiguration the API server calls for a pod (namespace selector
 * over the namespace's labels AND object selector over the pod's labels), and `istioctl x
 * check-inject`'s explanation of that (istioctl/pkg/checkinject: the same decision, with the reason
 * text istioctl prints). Pure.
 */
import { isRecord } from "../go/json.js";
import { compileSelector, type LabelSelector, LabelSelectorError, type Labels } from "../inject/policy-selector.js";
import { INJECTION_LABEL, NEVER_MATCH, REVISION_LABEL } from "./webhook-config.js";

type Json = Record<string, unknown>;

interface Expression {
  key: string;
  operator: string;
  values?: string[] | null;
}

/**
 * A webhook selector against labels: a missing selector matches everything (the API server's rule,
 * unlike the injector's own selectors); one Kubernetes rejects (bad key, operator) matches nothing.
 */
export function selectorMatches(selector: unknown, labels: Labels): boolean {
  if (selector == null) return true;
  try {
    return compileSelector(selector as LabelSelector).matches(labels);
  } catch (e) {
    if (e instanceof LabelSelectorError) return false;
    throw e;
  }
}

/** The webhooks of a MutatingWebhookConfiguration (those that are maps). */
export function webhooksOf(config: unknown): Json[] {
  const webhooks = isRecord(config) ? config.webhooks : undefined;
  return Array.isArray(webhooks) ? webhooks.filter(isRecord) : [];
}

/** Istio's configurations are those with a webhook named `…istio.io` (istioctl's test too). */
export function isIstioConfiguration(config: unknown): boolean {
  return webhooksOf(config).some((w) => String(w.name).endsWith("istio.io"));
}

function expressions(selector: unknown): Expression[] {
  const list = (selector as { matchExpressions?: unknown } | null)?.matchExpressions;
  return Array.isArray(list) ? (list as Expression[]) : [];
}

/** The names of the webhooks, in order, whose selectors both match. */
export function matchingWebhooks(config: unknown, namespaceLabels: Labels, podLabels: Labels): string[] {
  return webhooksOf(config)
    .filter(
      (w) => selectorMatches(w.namespaceSelector, namespaceLabels) && selectorMatches(w.objectSelector, podLabels),
    )
    .map((w) => String(w.name));
}

/** One configuration's line in `istioctl x check-inject`. */
export interface CheckInjectResult {
  name: string;
  revision: string;
  injected: boolean;
  reason: string;
}

const has = (labels: Labels, key: string) => Object.hasOwn(labels, key);

/** Whether the selector matches, and `k=v` for the first In/NotIn expression whose key the object carries. */
function matchInfo(selector: unknown, labels: Labels): { matched: boolean; label: string } {
  if (selector == null) return { matched: true, label: "" };
  if (!selectorMatches(selector, labels)) return { matched: false, label: "" };
  for (const e of expressions(selector)) {
    if ((e.operator === "In" || e.operator === "NotIn") && has(labels, e.key)) {
      return { matched: true, label: `${e.key}=${labels[e.key]}` };
    }
  }
  return { matched: true, label: "" };
}

function isNeverMatch(selector: unknown): boolean {
  const s = selector as { matchLabels?: unknown; matchExpressions?: unknown } | null;
  if (s == null || (Array.isArray(s.matchExpressions) && s.matchExpressions.length > 0)) return false;
  const labels = s.matchLabels as Record<string, unknown> | null | undefined;
  if (labels == null) return false;
  const [key, value] = Object.entries(NEVER_MATCH.matchLabels)[0] as [string, string];
  return Object.keys(labels).length === 1 && labels[key] === value;
}

function namespaceMatchReason(label: string): string {
  const automatic = label.startsWith("kubernetes.io/metadata.name=")
    ? " (Automatic injection is enabled in all namespaces)."
    : "";
  return `Namespace label ${label} matches${automatic}`;
}

function analyze(webhooks: Json[], podLabels: Labels, namespaceLabels: Labels): { injected: boolean; reason: string } {
  for (const w of webhooks) {
    const ns = matchInfo(w.namespaceSelector, namespaceLabels);
    const pod = matchInfo(w.objectSelector, podLabels);
    if (ns.matched && pod.matched) {
      if (ns.label && pod.label) {
        return { injected: true, reason: `Namespace label ${ns.label} matches, and pod label ${pod.label} matches` };
      }
      if (ns.label) return { injected: true, reason: namespaceMatchReason(ns.label) };
      if (pod.label) return { injected: true, reason: `Pod label ${pod.label} matches` };
    } else if (ns.matched) {
      for (const e of expressions(w.objectSelector)) {
        if (!has(podLabels, e.key)) continue;
        const v = podLabels[e.key] as string;
        if (e.operator === "DoesNotExist" || (e.operator === "NotIn" && (e.values ?? []).includes(v))) {
          return { injected: false, reason: `Pod has ${e.key}=${v} label, preventing injection` };
        }
      }
    } else if (pod.matched) {
      const v = namespaceLabels[INJECTION_LABEL];
      if (v !== undefined && v !== "enabled") {
        return { injected: false, reason: `Namespace has ${INJECTION_LABEL}=${v} label, preventing injection` };
      }
    }
  }
  if (webhooks.some((w) => isNeverMatch(w.namespaceSelector) && isNeverMatch(w.objectSelector))) {
    return { injected: false, reason: "The injection webhook is deactivated, and will never match labels." };
  }
  const inLabels = (selector: unknown) =>
    expressions(selector)
      .filter((e) => e.operator === "In")
      .flatMap((e) => (e.values ?? []).map((v) => `${e.key}=${v}`));
  const nsList = webhooks.flatMap((w) => inLabels(w.namespaceSelector));
  const podList = webhooks.flatMap((w) => inLabels(w.objectSelector));
  return {
    injected: false,
    reason: `No matching namespace labels (${nsList.join(", ")}) or pod labels (${podList.join(", ")})`,
  };
}

/**
 * `istioctl x check-inject` over installed configurations: one result per Istio configuration (one
 * with a webhook named `…istio.io`), sorted by name.
 */
export function checkInject(
  configs: readonly unknown[],
  podLabels: Labels,
  namespaceLabels: Labels,
): CheckInjectResult[] {
  const results: CheckInjectResult[] = [];
  for (const config of configs) {
    if (!isIstioConfiguration(config)) continue;
    const webhooks = webhooksOf(config);
    const metadata = (config as { metadata?: { name?: unknown; labels?: Record<string, unknown> } }).metadata;
    results.push({
      name: String(metadata?.name ?? ""),
      revision: String(metadata?.labels?.[REVISION_LABEL] ?? ""),
      ...analyze(webhooks, podLabels, namespaceLabels),
    });
  }
  return results.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
