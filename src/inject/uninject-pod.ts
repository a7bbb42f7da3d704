/**
 * Undoing an injection on one pod, from what the injection recorded in the pod itself:
 * - `sidecar.istio.io/status` names the containers, init containers, volumes and image pull secrets
 *   the templates added;
 * - the proxy's `ISTIO_KUBE_APP_PROBERS` holds the app's probes as they were before they were pointed
 *   at the agent, and `ISTIO_PROMETHEUS_ANNOTATIONS` the app's own scrape annotations;
 * - `proxy.istio.io/overrides` holds the user's own `istio-proxy` (or other injected) containers.
 * Labels and annotations the templates derive are not recorded; uninject-object.ts works those out.
 * Pure: every function returns a new pod and leaves its argument as it was.
 */

import { isRecord } from "../go/json.js";
import { type ParsedOverrides, readOverrides } from "./overrides.js";
import {
  type Container,
  clone,
  findPodContainer,
  type Json,
  OVERRIDES_ANNOTATION,
  type Pod,
  PROXY_CONTAINER,
  parseInjectionStatus,
  STATUS_ANNOTATION,
} from "./pod.js";
import { APP_PROBERS_ENV, type EnvVar, type ProbeContainer, proberPaths } from "./probes.js";
import { type AppProbers, decodeAppProbers, type Prober } from "./probes-json.js";
import {
  AGENT_SCRAPE_PATH,
  PROMETHEUS_ANNOTATIONS,
  PROMETHEUS_ENV,
  SCRAPE_TARGETS_ANNOTATION,
} from "./prometheus-merge.js";

/** The pod's injection cannot be undone safely; the message says what is in the way. */
export class UninjectError extends Error {
  override name = "UninjectError";
}

/** The value of an env var of the container, if it has one with a literal value. */
function envValue(container: Container | undefined, name: string): string | undefined {
  const env = (container as ProbeContainer | undefined)?.env ?? [];
  const entry = env.find((e: EnvVar) => e.name === name);
  return typeof entry?.value === "string" ? entry.value : undefined;
}

/** The status annotation must be a JSON object, or what the injection added cannot be told. */
function checkStatusText(pod: Pod): void {
  const text = pod.metadata.annotations?.[STATUS_ANNOTATION] ?? "";
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!isRecord(parsed)) {
    throw new UninjectError(
      `annotation ${STATUS_ANNOTATION} is not a JSON object (${JSON.stringify(text.slice(0, 60))}): what the injection added cannot be told`,
    );
  }
}

/** The recorded user containers (`proxy.istio.io/overrides`), in the lists they were recorded for. */
function recordedOverrides(pod: Pod): ParsedOverrides {
  try {
    return readOverrides(pod);
  } catch (e) {
    throw new UninjectError(`${(e as Error).message}: the user's own containers cannot be restored`);
  }
}

/**
 * A user's container as written: the recording drops `image: auto` (it means "the injected image"),
 * so a recorded container without an image had `auto`.
 */
function asWritten(c: Container): Container {
  const out = clone(c);
  if (out.image === "" || out.image === undefined) out.image = "auto";
  return out;
}

/**
 * The probe action as the app had it, from its prober entry, as recorded: a port is given back as
 * the entry has it (the injection writes a named port's number there, as istioctl's
 * DumpAppProbers does, so a name comes back as its number: the same port to the kubelet).
 */
function originalAction(prober: Prober): Json {
  if (prober.httpGet) return { httpGet: { ...clone(prober.httpGet) } };
  if (prober.tcpSocket) return { tcpSocket: { ...clone(prober.tcpSocket) } };
  if (prober.grpc) {
    const { service, ...rest } = prober.grpc;
    return { grpc: service == null ? rest : { ...rest, service } };
  }
  return {};
}

/**
 * A probe or lifecycle handler pointed at the agent's `path`, put back as it was: the action from the
 * prober, every other field (periods, thresholds, timeout) as the probe has it. Unchanged when the
 * probe does not point at the agent.
 */
function restoreHandler(handler: unknown, path: string, probers: AppProbers | undefined, where: string): unknown {
  if (!isRecord(handler) || !isRecord(handler.httpGet) || handler.httpGet.path !== path) return handler;
  const prober = probers?.[path];
  if (prober == null) {
    throw new UninjectError(
      `${where} points at the agent (${path}) but ${APP_PROBERS_ENV} has no entry for it: the original probe cannot be restored`,
    );
  }
  const { httpGet: _agent, ...rest } = handler;
  return { ...originalAction(prober), ...rest };
}

function restoreContainerProbes(c: ProbeContainer, probers: AppProbers | undefined, list: string): Container {
  const paths = proberPaths(c.name);
  const out: Json = { ...c };
  const where = (field: string) => `${list}[${JSON.stringify(c.name)}].${field}`;
  for (const [field, path] of [
    ["readinessProbe", paths.readyz],
    ["livenessProbe", paths.livez],
    ["startupProbe", paths.startupz],
  ] as const) {
    if (out[field] != null) out[field] = restoreHandler(out[field], path, probers, where(field));
  }
  if (isRecord(out.lifecycle)) {
    const lifecycle = { ...out.lifecycle };
    for (const [field, path] of [
      ["preStop", paths.prestopz],
      ["postStart", paths.poststartz],
    ] as const) {
      if (lifecycle[field] != null) {
        lifecycle[field] = restoreHandler(lifecycle[field], path, probers, where(`lifecycle.${field}`));
      }
    }
    out.lifecycle = lifecycle;
  }
  return out as Container;
}

/**
 * Puts the app's own scrape annotations back: those recorded in the proxy's env when the merge
 * replaced them, else none when the three annotations are exactly what the merge writes. Recorded
 * targets come back as `prometheus.istio.io/scrape-targets`; the legacy port and path the merge
 * copied from the first target are not written back (injecting again derives them anew).
 */
function restorePrometheus(annotations: Record<string, string>, recorded: string | undefined, statusPort: number) {
  if (recorded !== undefined) {
    let scrape: unknown;
    try {
      scrape = JSON.parse(recorded);
    } catch (e) {
      throw new UninjectError(`${PROMETHEUS_ENV} is not valid JSON (${(e as Error).message})`);
    }
    if (!isRecord(scrape)) throw new UninjectError(`${PROMETHEUS_ENV} is not a JSON object`);
    for (const [key, annotation] of Object.entries(PROMETHEUS_ANNOTATIONS)) {
      const v = scrape[key];
      if (typeof v === "string" && v !== "") annotations[annotation] = v;
      else delete annotations[annotation];
    }
    const targets = Array.isArray(scrape.targets) ? scrape.targets.filter(isRecord) : [];
    const first = targets[0];
    if (first !== undefined) {
      annotations[SCRAPE_TARGETS_ANNOTATION] = targets.map((t) => `${String(t.port)}:${String(t.path)}`).join(",");
      if (
        annotations[PROMETHEUS_ANNOTATIONS.port] === first.port &&
        annotations[PROMETHEUS_ANNOTATIONS.path] === first.path
      ) {
        delete annotations[PROMETHEUS_ANNOTATIONS.port];
        delete annotations[PROMETHEUS_ANNOTATIONS.path];
      }
    }
    return;
  }
  if (
    annotations[PROMETHEUS_ANNOTATIONS.port] === String(statusPort) &&
    annotations[PROMETHEUS_ANNOTATIONS.path] === AGENT_SCRAPE_PATH &&
    annotations[PROMETHEUS_ANNOTATIONS.scrape] === "true"
  ) {
    for (const annotation of Object.values(PROMETHEUS_ANNOTATIONS)) delete annotations[annotation];
  }
}

function withoutNames<T extends Json>(list: T[] | null | undefined, names: readonly string[]): T[] | undefined {
  if (list == null) return undefined;
  return list.filter((x) => !names.includes(String(x.name)));
}

/**
 * The pod without what its injection recorded adding (containers, init containers, volumes, image
 * pull secrets, the status and overrides annotations), with the app's probes, lifecycle hooks and
 * scrape annotations as they were and the user's own injected-name containers back. Labels and
 * annotations the templates derived stay (see uninject-object.ts). Undefined when the pod carries no
 * status annotation (it was not injected). Throws {@link UninjectError} where the record is
 * unreadable or incomplete.
 * @param statusPort the mesh's agent status port, which the Prometheus merge points the pod at
 */
export function stripInjection(pod: Pod, statusPort: number): Pod | undefined {
  const status = parseInjectionStatus(pod);
  if (status === undefined) return undefined;
  checkStatusText(pod);
  const proxy = findPodContainer(PROXY_CONTAINER, pod);
  const probersText = envValue(proxy, APP_PROBERS_ENV);
  const probers = probersText === undefined ? undefined : decodeAppProbers(probersText);
  if (probersText !== undefined && probers === undefined) {
    throw new UninjectError(
      `${APP_PROBERS_ENV} of ${PROXY_CONTAINER} does not decode: the app's probes cannot be restored`,
    );
  }
  const overrides = recordedOverrides(pod);
  const out = clone(pod);
  const added = [...(status.containers ?? []), ...(status.initContainers ?? [])];
  const spec = out.spec;
  const containers = withoutNames(spec.containers, added)?.map((c) => restoreContainerProbes(c, probers, "containers"));
  const initContainers = withoutNames(spec.initContainers, added)?.map((c) =>
    restoreContainerProbes(c, probers, "initContainers"),
  );
  // The user's own containers under injected names go back where they are written: the proxy's in containers.
  const userContainers = [...(containers ?? [])];
  const userInit = [...(initContainers ?? [])];
  for (const c of overrides.containers) userContainers.push(asWritten(c));
  for (const c of overrides.initContainers) (c.name === PROXY_CONTAINER ? userContainers : userInit).push(asWritten(c));
  spec.containers = userContainers;
  if (userInit.length > 0) spec.initContainers = userInit;
  else delete spec.initContainers;
  const volumes = withoutNames(spec.volumes, status.volumes ?? []);
  if (volumes !== undefined && volumes.length > 0) spec.volumes = volumes;
  else delete spec.volumes;
  const secrets = withoutNames(spec.imagePullSecrets, status.imagePullSecrets ?? []);
  if (secrets !== undefined && secrets.length > 0) spec.imagePullSecrets = secrets;
  else delete spec.imagePullSecrets;

  const annotations = { ...(out.metadata.annotations ?? {}) };
  restorePrometheus(annotations, envValue(proxy, PROMETHEUS_ENV), statusPort);
  delete annotations[STATUS_ANNOTATION];
  delete annotations[OVERRIDES_ANNOTATION];
  out.metadata.annotations = annotations;
  return out;
}

/** Whether the pod has an `istio-proxy` container (injected or the user's own). */
export function hasProxyContainer(pod: Pod): boolean {
  return findPodContainer(PROXY_CONTAINER, pod) !== undefined;
}
