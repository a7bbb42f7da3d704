/**
 * What the Pod picture shows, read from an injected pod and the pod it was injected from, with no
 * DOM: the init containers in order (native sidecars marked), the containers, the volumes and who
 * mounts them, each container's ports and probes. The sidecar's ports are the ones the pod declares
 * or uses: its containerPorts and probe ports, the agent's status port and Envoy's admin port from
 * the effective proxy config (proxy-config's computation), and the capture ports from istio-init's
 * rules (capture-rules' computation). A probe that injection re-pointed at the agent's status port
 * is followed to the app port it really checks through the rewrite the injection recorded
 * (ISTIO_KUBE_APP_PROBERS on istio-proxy). What injection added or changed is marked against the
 * original pod.
 */
import { stringify } from "yaml";
import { DNS_PROXY_PORT } from "../src/agent/capture/config.js";
import { proxyContainer } from "../src/agent/pod-containers.js";
import { isRecord } from "../src/go/json.js";
import type { Container, Json } from "../src/inject/pod.js";
import { PROXY_CONTAINER } from "../src/inject/pod.js";
import type { PodParts } from "../src/kube/workloads.js";

/** The facts about the pod that come from the proxy-config and capture-rules computations. */
export interface SidecarFacts {
  /** The agent's status port (ProxyConfig statusPort). */
  statusPort?: number;
  /** Envoy's admin port (ProxyConfig proxyAdminPort). */
  adminPort?: number;
  /** Who programs the capture, and its ports; undefined without capture. */
  capture?: {
    by: "istio-init" | "istio-cni";
    proxyPort: string;
    inboundCapturePort: string;
    /** Whether DNS is sent to the agent's DNS proxy (RedirectDNS). */
    dns: boolean;
  };
}

/** How the agent's status port row names its use (the probes' arrows start there). */
export const AGENT_STATUS = "agent status";

export interface PortRow {
  id: string;
  port: number | string;
  /** Why the pod has it: `containerPort http`, `readiness probe`, `Envoy admin (proxyAdminPort)`... */
  uses: string[];
  added: boolean;
  yaml: Yaml;
}

export type ProbeKind = "liveness" | "readiness" | "startup";

export interface ProbeRow {
  id: string;
  kind: ProbeKind;
  /** As the pod has it: `httpGet :15020 /app-health/web/livez`. */
  text: string;
  /** The port the kubelet connects to. */
  port: number | string | undefined;
  /** When the probe was re-pointed at the agent: what the agent really checks. */
  rewritten?: { path: string; check: string; port: number | string | undefined };
  changed: boolean;
  yaml: Yaml;
}

export interface MountRow {
  id: string;
  volume: string;
  path: string;
  readOnly: boolean;
  added: boolean;
  yaml: Yaml;
}

export interface ContainerModel {
  id: string;
  name: string;
  image: string;
  init: boolean;
  /** 1-based order among the init containers. */
  order?: number;
  /** An init container with restartPolicy Always: it keeps running beside the containers. */
  nativeSidecar: boolean;
  added: boolean;
  /** The fields injection changed (`resources`, `readinessProbe`...); empty when none or added. */
  changed: string[];
  ports: PortRow[];
  probes: ProbeRow[];
  mounts: MountRow[];
  yaml: Yaml;
}

export interface VolumeModel {
  id: string;
  name: string;
  /** `emptyDir (Memory)`, `configMap istio-ca-root-cert`... */
  source: string;
  added: boolean;
  yaml: Yaml;
}

export interface PodModel {
  /** `Deployment default/web`. */
  header: string;
  inits: ContainerModel[];
  containers: ContainerModel[];
  volumes: VolumeModel[];
  /** Annotations and labels injection added (their keys). */
  addedMetadata: string[];
  podYaml: Yaml;
}

const PROBES: readonly ProbeKind[] = ["liveness", "readiness", "startup"];
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isRecord) : []);
const str = (v: unknown): string => (typeof v === "string" ? v : v === undefined || v === null ? "" : String(v));
const portOf = (v: unknown): number | string | undefined =>
  typeof v === "number" || typeof v === "string" ? v : undefined;
/**
 * A part's YAML, written when the part is selected: writing every part's on each edit would take
 * most of a re-render.
 */
export type Yaml = () => string;
const yamlOf = (v: unknown): string => stringify(v, { lineWidth: 0 });
const lazy =
  (v: unknown): Yaml =>
  () =>
    yamlOf(v);
/** `yaml` with a comment line after it. */
const withNote =
  (yaml: Yaml, note: string): Yaml =>
  () =>
    `${yaml()}# ${note}\n`;
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The fields of `after` that differ from `before`'s (added, changed or removed). */
function changedFields(before: Json, after: Json): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((k) => !same(before[k], after[k]));
}

/** The probe's handler as one line, and the port it connects to. */
function handler(probe: Json): { text: string; port: number | string | undefined } {
  for (const key of ["httpGet", "tcpSocket", "grpc"] as const) {
    const h = probe[key];
    if (!isRecord(h)) continue;
    const port = portOf(h.port);
    const path = key === "httpGet" && h.path !== undefined ? ` ${str(h.path)}` : "";
    const service = key === "grpc" && typeof h.service === "string" ? ` service ${h.service}` : "";
    return { text: `${key} :${str(port)}${path}${service}`, port };
  }
  if (isRecord(probe.exec)) return { text: "exec", port: undefined };
  return { text: "(no handler)", port: undefined };
}

/** The recorded probe rewrite: the JSON of ISTIO_KUBE_APP_PROBERS on istio-proxy, path → original handler. */
function appProbers(proxy: Container | undefined): Record<string, Json> {
  const env = list(proxy?.env).find((e) => e.name === "ISTIO_KUBE_APP_PROBERS");
  if (typeof env?.value !== "string") return {};
  try {
    const parsed: unknown = JSON.parse(env.value);
    if (!isRecord(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, Json] => isRecord(e[1])));
  } catch {
    return {};
  }
}

/** A volume's source as a few words. */
function volumeSource(v: Json): string {
  const kinds = Object.keys(v).filter((k) => k !== "name");
  const kind = kinds[0];
  // Kubernetes defaults a volume that names no source to an emptyDir.
  if (kind === undefined) return "emptyDir (no source given)";
  const s = v[kind];
  if (kind === "emptyDir") return isRecord(s) && s.medium ? `emptyDir (${str(s.medium)})` : "emptyDir";
  if (kind === "configMap" || kind === "secret") {
    const name = isRecord(s) ? str(s.name ?? s.secretName) : "";
    return `${kind} ${name}`.trim();
  }
  if (kind === "persistentVolumeClaim") return `PVC ${isRecord(s) ? str(s.claimName) : ""}`.trim();
  if (kind === "projected" && isRecord(s)) {
    const sources = list(s.sources).flatMap((x) => Object.keys(x));
    return `projected (${sources.join(", ")})`;
  }
  return kind;
}

function containerModel(
  c: Container,
  original: Container | undefined,
  init: boolean,
  order: number | undefined,
  proxy: { probers: Record<string, Json>; statusPort?: number },
): ContainerModel {
  const id = `${init ? "init" : "container"}:${c.name}`;
  const added = original === undefined;
  const ports = new Map<string, PortRow>();
  const addPort = (port: number | string | undefined, use: string, yaml: Yaml, isNew: boolean) => {
    if (port === undefined || port === "") return;
    const key = String(port);
    const row = ports.get(key);
    if (row !== undefined) {
      if (!row.uses.includes(use)) row.uses.push(use);
      return;
    }
    ports.set(key, {
      id: `${id}/port:${key}`,
      port,
      uses: [use],
      added: added || isNew,
      yaml,
    });
  };
  const originalPorts = list(original?.ports);
  for (const p of list(c.ports)) {
    const name = str(p.name);
    addPort(
      portOf(p.containerPort),
      name === "" ? "containerPort" : `containerPort ${name}`,
      lazy(p),
      !originalPorts.some((o) => same(o, p)),
    );
  }
  const byName = (port: number | string | undefined) =>
    typeof port === "string" ? (portOf(list(c.ports).find((p) => p.name === port)?.containerPort) ?? port) : port;

  const probes: ProbeRow[] = [];
  for (const kind of PROBES) {
    const probe = c[`${kind}Probe`];
    if (!isRecord(probe)) continue;
    const h = handler(probe);
    const path = isRecord(probe.httpGet) ? str(probe.httpGet.path) : "";
    const real = proxy.statusPort !== undefined && h.port === proxy.statusPort ? proxy.probers[path] : undefined;
    const row: ProbeRow = {
      id: `${id}/probe:${kind}`,
      kind,
      text: h.text,
      port: h.port,
      changed: original !== undefined && !same(original[`${kind}Probe`], probe),
      yaml: lazy({ [`${kind}Probe`]: probe }),
    };
    if (real !== undefined) {
      const r = handler(real);
      const port = byName(r.port);
      row.rewritten = { path, check: r.text, port };
      const rewritten = row.yaml;
      row.yaml = () =>
        `${rewritten()}# re-pointed at the agent (ISTIO_KUBE_APP_PROBERS on ${PROXY_CONTAINER}); the agent checks:\n${yamlOf({ [path]: real })}`;
      addPort(
        port,
        `${kind} probe (via :${proxy.statusPort})`,
        () => `# checked by the agent for the ${kind} probe\n${yamlOf(real)}`,
        false,
      );
    } else {
      // A probe injection added (istio-proxy's own in an override) brings its port.
      addPort(byName(h.port), `${kind} probe`, row.yaml, row.changed);
    }
    probes.push(row);
  }

  const originalMounts = list(original?.volumeMounts);
  const mounts: MountRow[] = list(c.volumeMounts).map((m, i) => ({
    id: `${id}/mount:${i}`,
    volume: str(m.name),
    path: str(m.mountPath),
    readOnly: m.readOnly === true,
    added: added || !originalMounts.some((o) => same(o, m)),
    yaml: lazy(m),
  }));

  return {
    id,
    name: c.name,
    image: str(c.image),
    init,
    order,
    nativeSidecar: init && c.restartPolicy === "Always",
    added,
    changed: original === undefined ? [] : changedFields(original, c),
    ports: [...ports.values()],
    probes,
    mounts,
    yaml: () =>
      original === undefined || same(original, c)
        ? yamlOf(c)
        : `# changed by injection: ${changedFields(original, c).join(", ")}\n${yamlOf(c)}`,
  };
}

/** The sidecar's ports that the pod uses without declaring them, from the proxy config and the capture. */
function sidecarPorts(model: ContainerModel, facts: SidecarFacts, annotations: Record<string, unknown>): void {
  const add = (given: number | string | undefined, use: string, note: string) => {
    if (given === undefined || given === "" || given === 0) return;
    // The capture's ports are flag text: as numbers, to merge with and sort among the others.
    const port = /^[1-9][0-9]*$/.test(String(given)) ? Number(given) : given;
    const row = model.ports.find((p) => String(p.port) === String(port));
    if (row !== undefined) {
      if (!row.uses.includes(use)) row.uses.push(use);
      row.yaml = withNote(row.yaml, note);
      return;
    }
    model.ports.push({
      id: `${model.id}/port:${port}`,
      port,
      uses: [use],
      // Used only once the pod is injected: new when injection added or changed the container.
      added: model.added || model.changed.length > 0,
      yaml: () => `# ${note}\n`,
    });
  };
  if (facts.statusPort !== undefined) {
    add(
      facts.statusPort,
      AGENT_STATUS,
      `${facts.statusPort}: pilot-agent's status server (the proxy config's statusPort): health, app probes, merged metrics`,
    );
    if (str(annotations["prometheus.io/port"]) === String(facts.statusPort)) {
      add(facts.statusPort, "prometheus.io/port", "the pod's prometheus.io/port annotation points here");
    }
  }
  if (facts.adminPort !== undefined) {
    add(
      facts.adminPort,
      "Envoy admin",
      `${facts.adminPort}: Envoy's admin interface (the proxy config's proxyAdminPort), on localhost only`,
    );
  }
  const capture = facts.capture;
  if (capture !== undefined) {
    const by = capture.by === "istio-init" ? "istio-init" : "istio-cni";
    add(
      capture.proxyPort,
      `Envoy outbound (${by})`,
      `${capture.proxyPort}: Envoy's outbound listener; ${by} redirects the app's outbound TCP here`,
    );
    add(
      capture.inboundCapturePort,
      `Envoy inbound (${by})`,
      `${capture.inboundCapturePort}: Envoy's inbound listener; ${by} redirects inbound TCP here`,
    );
    if (capture.dns)
      add(
        Number(DNS_PROXY_PORT),
        "agent DNS proxy (DNS capture)",
        `${DNS_PROXY_PORT}: the agent's DNS proxy; captured DNS (port 53) goes here`,
      );
  }
  model.ports.sort((a, b) => Number(a.port) - Number(b.port) || String(a.port).localeCompare(String(b.port)));
}

/** The picture's model of `injected`, marked against `original` (undefined: nothing to compare with). */
export function podModel(
  header: string,
  injected: PodParts,
  original: PodParts | undefined,
  facts: SidecarFacts,
): PodModel {
  const spec = injected.spec;
  const inits = list(spec.initContainers) as Container[];
  const containers = list(spec.containers) as Container[];
  const proxy = proxyContainer(spec);
  const probing = { probers: appProbers(proxy), statusPort: facts.statusPort };
  const originalOf = (key: string, name: string) =>
    original === undefined
      ? undefined
      : (list(original.spec[key]).find((c) => c.name === name) as Container | undefined);
  // Without an original pod nothing is marked as added: model it as its own original.
  const base = (key: string, c: Container) => (original === undefined ? c : originalOf(key, c.name));

  const models = {
    inits: inits.map((c, i) => containerModel(c, base("initContainers", c), true, i + 1, probing)),
    containers: containers.map((c) => containerModel(c, base("containers", c), false, undefined, probing)),
  };
  const proxyModel = [...models.containers, ...models.inits].find((c) => c.name === PROXY_CONTAINER);
  const annotations = isRecord(injected.metadata.annotations) ? injected.metadata.annotations : {};
  if (proxyModel !== undefined) sidecarPorts(proxyModel, facts, annotations);

  const originalVolumes = list(original?.spec.volumes);
  const volumes = list(spec.volumes).map((v) => ({
    id: `volume:${str(v.name)}`,
    name: str(v.name),
    source: volumeSource(v),
    added: original !== undefined && !originalVolumes.some((o) => o.name === v.name),
    yaml: lazy(v),
  }));

  const keys = (meta: Json, field: string) => (isRecord(meta[field]) ? Object.keys(meta[field] as Json) : []);
  const addedMetadata =
    original === undefined
      ? []
      : (["annotations", "labels"] as const).flatMap((field) =>
          keys(injected.metadata, field)
            .filter((k) => !keys(original.metadata, field).includes(k))
            .map((k) => `${field === "annotations" ? "annotation" : "label"} ${k}`),
        );

  return {
    header,
    ...models,
    volumes,
    addedMetadata,
    podYaml: lazy({ metadata: injected.metadata }),
  };
}
