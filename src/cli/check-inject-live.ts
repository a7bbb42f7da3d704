/**
 * `meshinject check-inject deployment/web -n shop` (or `pod/NAME`, or `-l app=web`): the live
 * objects the report needs, read from the cluster of the kube context as `istioctl x check-inject`
 * reads them: the workload (or the pods the selector matches), its namespace's labels, the installed
 * MutatingWebhookConfigurations, and the injector config of ConfigMap istio-sidecar-injector.
 */

import { type Cluster, ClusterError, connectCluster } from "../cluster/client.js";
import { DEFAULT_INJECT_CONFIGMAP } from "../cluster/istio-config.js";
import { isRecord } from "../go/json.js";

/** kubectl's names for the workload kinds (plural, singular, short) → the API path of the collection. */
const KINDS: ReadonlyArray<{ names: readonly string[]; kind: string; group: string; plural: string }> = [
  { names: ["pod", "pods", "po"], kind: "Pod", group: "/api/v1", plural: "pods" },
  { names: ["deployment", "deployments", "deploy"], kind: "Deployment", group: "/apis/apps/v1", plural: "deployments" },
  {
    names: ["statefulset", "statefulsets", "sts"],
    kind: "StatefulSet",
    group: "/apis/apps/v1",
    plural: "statefulsets",
  },
  { names: ["daemonset", "daemonsets", "ds"], kind: "DaemonSet", group: "/apis/apps/v1", plural: "daemonsets" },
  { names: ["replicaset", "replicasets", "rs"], kind: "ReplicaSet", group: "/apis/apps/v1", plural: "replicasets" },
  { names: ["job", "jobs"], kind: "Job", group: "/apis/batch/v1", plural: "jobs" },
  { names: ["cronjob", "cronjobs", "cj"], kind: "CronJob", group: "/apis/batch/v1", plural: "cronjobs" },
  {
    names: ["replicationcontroller", "replicationcontrollers", "rc"],
    kind: "ReplicationController",
    group: "/api/v1",
    plural: "replicationcontrollers",
  },
];

/** An error for the user about the live inputs (one line). */
export class LiveInputError extends Error {
  override name = "LiveInputError";
}

export interface LiveRequest {
  /** `KIND/NAME`, e.g. `deployment/web`. */
  resource?: string;
  /** A label selector for pods, e.g. `app=web`. */
  selector?: string;
  namespace: string;
  istioNamespace: string;
  /** Read the webhook configurations and the injector config (false when files give them). */
  readWebhooks: boolean;
  readInjectorConfig: boolean;
  kubeconfig?: string;
  context?: string;
  timeoutMs?: number;
}

export interface LiveInputs {
  /** The workloads as a YAML stream (JSON documents). */
  input: string;
  /** The namespace objects, as `kubectl get ns -o yaml` would give them. */
  namespaces: unknown[];
  webhookConfigs?: unknown[];
  /** The `config` key of the injector ConfigMap; undefined when it does not exist. */
  injectorConfig?: string;
  /** Where things came from, or what was assumed. */
  notes: string[];
}

const enc = encodeURIComponent;

function parseResource(resource: string): { def: (typeof KINDS)[number]; name: string } {
  const slash = resource.indexOf("/");
  const kindName = slash === -1 ? "" : resource.slice(0, slash).toLowerCase().split(".")[0];
  const name = slash === -1 ? "" : resource.slice(slash + 1);
  const def = KINDS.find((k) => k.names.includes(kindName ?? ""));
  if (def === undefined || name === "") {
    throw new LiveInputError(
      `${JSON.stringify(resource)} is not KIND/NAME with KIND one of ${KINDS.map((k) => k.names[0]).join(", ")} (e.g. deployment/web)`,
    );
  }
  return { def, name };
}

/** The objects of a List, with the kind and apiVersion list items leave out. */
function itemsOf(list: unknown, kind: string, apiVersion: string): Record<string, unknown>[] {
  const items = isRecord(list) && Array.isArray(list.items) ? list.items.filter(isRecord) : [];
  return items.map((item) => ({ apiVersion, kind, ...item }));
}

async function readWorkloads(cluster: Cluster, req: LiveRequest): Promise<Record<string, unknown>[]> {
  const ns = req.namespace;
  if (req.resource !== undefined) {
    const { def, name } = parseResource(req.resource);
    const path = `${def.group}/namespaces/${enc(ns)}/${def.plural}/${enc(name)}`;
    const obj = await cluster.get(path, `${def.kind} ${ns}/${name}`);
    if (!isRecord(obj)) throw new LiveInputError(`${def.kind} ${ns}/${name}: the API server's answer is not an object`);
    return [{ apiVersion: def.group.replace(/^\/apis?\//, ""), kind: def.kind, ...obj }];
  }
  const selector = req.selector ?? "";
  const list = await cluster.get(
    `/api/v1/namespaces/${enc(ns)}/pods?labelSelector=${enc(selector)}`,
    `pods -l ${selector} in ${ns}`,
  );
  const pods = itemsOf(list, "Pod", "v1");
  if (pods.length === 0) throw new LiveInputError(`no pod in namespace ${ns} matches -l ${selector}`);
  return pods;
}

/** Reads what the report needs from the cluster. Throws ClusterError or LiveInputError, one line each. */
export async function readLiveInputs(req: LiveRequest): Promise<LiveInputs> {
  const cluster = await connectCluster({ kubeconfig: req.kubeconfig, context: req.context, timeoutMs: req.timeoutMs });
  const notes = [`live objects from ${cluster.where}`];
  const workloads = await readWorkloads(cluster, req);
  const namespace = await cluster.get(`/api/v1/namespaces/${enc(req.namespace)}`, `Namespace ${req.namespace}`);
  const out: LiveInputs = {
    input: workloads
      .map((w) => `${JSON.stringify({ ...w, metadata: { ...(w.metadata as object), namespace: req.namespace } })}\n`)
      .join("---\n"),
    namespaces: [{ apiVersion: "v1", kind: "Namespace", ...(namespace as object) }],
    notes,
  };
  if (req.readWebhooks) {
    const list = await cluster.get(
      "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
      "the MutatingWebhookConfigurations",
    );
    out.webhookConfigs = itemsOf(list, "MutatingWebhookConfiguration", "admissionregistration.k8s.io/v1");
  }
  if (req.readInjectorConfig) {
    const name = `${req.istioNamespace}/${DEFAULT_INJECT_CONFIGMAP}`;
    try {
      const cm = await cluster.get(
        `/api/v1/namespaces/${enc(req.istioNamespace)}/configmaps/${DEFAULT_INJECT_CONFIGMAP}`,
        `ConfigMap ${name}`,
      );
      const config = isRecord(cm) && isRecord(cm.data) ? cm.data.config : undefined;
      if (typeof config !== "string") throw new LiveInputError(`ConfigMap ${name} has no key "config"`);
      out.injectorConfig = config;
      notes.push(`injector config: ConfigMap ${name}`);
    } catch (e) {
      if (!(e instanceof ClusterError) || e.status !== 404) throw e;
      notes.push(
        `injector config: ConfigMap ${name} not found; the built-in default is assumed (pass -i or --injectConfigFile)`,
      );
    }
  }
  return out;
}
