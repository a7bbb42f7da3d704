/**
 * What `meshinject check-inject` reads besides the manifest, as plain values: the
 * MutatingWebhookConfigurations of a YAML stream (`kubectl get mutatingwebhookconfigurations -o
 * yaml` prints a List; an install manifest holds other kinds, which are skipped), the labels of the
 * Namespaces of a YAML stream (`kubectl get ns X -o yaml`, or a List of them), and `k=v,k2=v2` label
 * pairs. Pure: the caller reads the files. Errors name the input and the document, on one line.
 */

import { isRecord } from "../go/json.js";
import { quote } from "../go/strconv.js";
import type { Json } from "../inject/pod.js";
import type { Labels } from "../inject/policy-selector.js";
import { readStream } from "../kube/read-stream.js";
import { describeObject } from "../kube/workloads.js";

/** Input the command cannot use: one line naming the input (and document) and the cause. */
export class CheckInjectInputError extends Error {
  override name = "CheckInjectInputError";
}

/** The label the API server puts on every namespace (Kubernetes 1.21+), its value the namespace's name. */
export const NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";

const MWC = "MutatingWebhookConfiguration";

/** Each document of a stream (Lists opened one level) with where it is, for messages. */
function documents(text: string, source: string): { obj: Json; where: string }[] {
  const out: { obj: Json; where: string }[] = [];
  for (const { obj, where: prefix } of readStream(text, source, (message) => new CheckInjectInputError(message))) {
    if (!isRecord(obj)) continue;
    const where = `${prefix} (${describeObject(obj)})`;
    const kind = typeof obj.kind === "string" ? obj.kind : "";
    if (kind === "List" || (kind.endsWith("List") && Array.isArray(obj.items))) {
      const items = Array.isArray(obj.items) ? obj.items : [];
      for (const [j, item] of items.entries()) {
        if (isRecord(item)) out.push({ obj: item, where: `${where} item ${j + 1} (${describeObject(item)})` });
      }
    } else {
      out.push({ obj, where });
    }
  }
  return out;
}

/** A map of strings (labels); null values read as "" (as Go decodes them); anything else is an error. */
export function stringLabels(v: unknown, field: string): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (!isRecord(v)) throw new CheckInjectInputError(`${field} must be a map of strings`);
  const out: Record<string, string> = {};
  for (const [k, value] of Object.entries(v)) {
    if (value === null) out[k] = "";
    else if (typeof value === "string") out[k] = value;
    else {
      const hint = typeof value === "object" ? "" : ` (quote it: "${String(value)}"; the API server rejects it)`;
      throw new CheckInjectInputError(`${field}[${quote(k)}] must be a string, got ${typeof value}${hint}`);
    }
  }
  return out;
}

/**
 * The MutatingWebhookConfigurations of a YAML stream, in order (Lists opened; other kinds skipped).
 * Throws when the stream holds none, or one whose `webhooks` is not a list of maps.
 */
export function parseWebhookConfigurations(text: string, source: string): Json[] {
  const out: Json[] = [];
  for (const { obj, where } of documents(text, source)) {
    if (obj.kind !== MWC) continue;
    const webhooks = obj.webhooks;
    if (webhooks != null && (!Array.isArray(webhooks) || !webhooks.every(isRecord))) {
      throw new CheckInjectInputError(`${where}: webhooks must be a list of webhooks`);
    }
    out.push(obj);
  }
  if (out.length === 0) {
    throw new CheckInjectInputError(
      `${source}: no ${MWC} (save the installed ones with: kubectl get mutatingwebhookconfigurations -o yaml)`,
    );
  }
  return out;
}

/**
 * The labels of each Namespace of a YAML stream, by name (a Namespace object or a List of them, as
 * kubectl prints them). Every document must be a named Namespace.
 */
export function parseNamespaces(text: string, source: string): Map<string, Labels> {
  const out = new Map<string, Labels>();
  for (const { obj, where } of documents(text, source)) {
    if (obj.kind !== "Namespace") throw new CheckInjectInputError(`${where}: not a Namespace`);
    const metadata = isRecord(obj.metadata) ? obj.metadata : {};
    const name = metadata.name;
    if (typeof name !== "string" || name === "") throw new CheckInjectInputError(`${where}: metadata.name is missing`);
    try {
      out.set(name, stringLabels(metadata.labels, "metadata.labels"));
    } catch (e) {
      if (e instanceof CheckInjectInputError) throw new CheckInjectInputError(`${where}: ${e.message}`);
      throw e;
    }
  }
  if (out.size === 0) throw new CheckInjectInputError(`${source}: no Namespace`);
  return out;
}

/** `k=v,k2=v2` (spaces around items ignored; a value may be empty); `flag` names the option in errors. */
export function parseLabelPairs(text: string, flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of text.split(",")) {
    const pair = item.trim();
    if (pair === "") continue;
    const at = pair.indexOf("=");
    const key = at < 0 ? "" : pair.slice(0, at).trim();
    if (key === "") throw new CheckInjectInputError(`${flag}: ${quote(pair)} is not key=value`);
    out[key] = pair.slice(at + 1).trim();
  }
  return out;
}

/**
 * How a namespace's labels are known: from Namespace objects (`byName`), and label pairs applied
 * over them (`extra`). The API server's `kubernetes.io/metadata.name` is added where missing.
 */
export interface NamespaceLabelSource {
  /** Namespace objects by name; when given, a namespace not among them is an error. */
  byName?: ReadonlyMap<string, Labels>;
  extra?: Labels;
}

/** The labels of `namespace`; throws CheckInjectInputError when objects were given but not this one. */
export function namespaceLabels(source: NamespaceLabelSource, namespace: string): Labels {
  let base: Labels = {};
  if (source.byName !== undefined) {
    const found = source.byName.get(namespace);
    if (found === undefined) {
      const known = [...source.byName.keys()].join(", ");
      throw new CheckInjectInputError(
        `namespace ${quote(namespace)} is not in --namespace-file (it has ${known}), so its labels are unknown; add that Namespace to the file (kubectl get ns ${namespace} -o yaml)`,
      );
    }
    base = found;
  }
  return { [NAMESPACE_NAME_LABEL]: namespace, ...base, ...source.extra };
}
