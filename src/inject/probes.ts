/**
 * App probe rewriting (Istio's `pkg/kube/inject/app_probe.go` and `applyRewrite` in webhook.go).
 *
 * With mTLS the kubelet cannot reach the application's HTTP/TCP/gRPC probes directly, so the injector
 * points them at the agent's status port, under `/app-health/<container>/{readyz,livez,startupz}`
 * (lifecycle hooks under `/app-lifecycle/<container>/{prestopz,poststartz}`), and hands the original
 * probes to the agent as JSON in the proxy's `ISTIO_KUBE_APP_PROBERS` variable.
 *
 * Pods are plain Kubernetes JSON. Every function here leaves its arguments untouched and returns new
 * values.
 */
import { parseBool, parseInt64 } from "../go/strconv.js";
import {
  type Container,
  findPodContainer,
  hasInjectionStatus,
  type Json,
  type PodLike,
  PROXY_CONTAINER,
} from "./pod.js";
import { type AppProbers, decodeAppProbers, encodeAppProbers, type PortValue, type Prober } from "./probes-json.js";

export const APP_PROBERS_ENV = "ISTIO_KUBE_APP_PROBERS";
export const REWRITE_PROBERS_ANNOTATION = "sidecar.istio.io/rewriteAppHTTPProbers";
export const STATUS_PORT_ANNOTATION = "status.sidecar.istio.io/port";

export interface EnvVar {
  name: string;
  value?: string;
  [field: string]: unknown;
}

export interface Probe {
  httpGet?: Json | null;
  tcpSocket?: Json | null;
  grpc?: Json | null;
  timeoutSeconds?: number;
  [field: string]: unknown;
}

export interface LifecycleHandler {
  httpGet?: Json | null;
  tcpSocket?: Json | null;
  [field: string]: unknown;
}

/** A container with the fields the probe step reads typed. */
export interface ProbeContainer extends Container {
  ports?: Array<{ name?: string; containerPort?: number; [field: string]: unknown }> | null;
  env?: EnvVar[] | null;
  readinessProbe?: Probe | null;
  livenessProbe?: Probe | null;
  startupProbe?: Probe | null;
  lifecycle?: {
    preStop?: LifecycleHandler | null;
    postStart?: LifecycleHandler | null;
    [field: string]: unknown;
  } | null;
}

type PodSpec = Json & { containers?: ProbeContainer[] | null; initContainers?: ProbeContainer[] | null };

/** The spec of any pod-shaped JSON, its containers read as {@link ProbeContainer}s. */
function specOf(pod: PodLike): PodSpec | undefined {
  return (pod.spec ?? undefined) as PodSpec | undefined;
}

function annotationsOf(pod: PodLike): Record<string, string> | undefined {
  return (pod.metadata?.annotations ?? undefined) as Record<string, string> | undefined;
}

/** The agent paths for one container (Istio's status.FormatProberURL). */
export function proberPaths(container: string) {
  return {
    readyz: `/app-health/${container}/readyz`,
    livez: `/app-health/${container}/livez`,
    startupz: `/app-health/${container}/startupz`,
    prestopz: `/app-lifecycle/${container}/prestopz`,
    poststartz: `/app-lifecycle/${container}/poststartz`,
  };
}

/** The annotation `sidecar.istio.io/rewriteAppHTTPProbers`, when it reads as a Go boolean, wins over the setting. */
export function shouldRewriteAppHTTPProbers(
  annotations: Readonly<Record<string, string>> | null | undefined,
  specSetting: boolean,
): boolean {
  const value = annotations?.[REWRITE_PROBERS_ANNOTATION];
  const parsed = value === undefined ? undefined : parseBool(value);
  return parsed ?? specSetting;
}

/** The `istio-proxy` container (regular, or init container with native sidecars). */
export function findSidecar(pod: PodLike): ProbeContainer | undefined {
  return findPodContainer(PROXY_CONTAINER, pod);
}

// ---------------------------------------------------------------------------------------------
// The prober JSON

function typedPort(v: unknown): PortValue {
  return typeof v === "string" ? v : typeof v === "number" ? v : 0;
}

function optString(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function toHTTPGet(a: Json): NonNullable<Prober["httpGet"]> {
  const headers = Array.isArray(a.httpHeaders)
    ? (a.httpHeaders as Json[]).map((h) => ({ name: optString(h?.name) ?? "", value: optString(h?.value) ?? "" }))
    : undefined;
  return {
    path: optString(a.path),
    port: typedPort(a.port),
    host: optString(a.host),
    scheme: optString(a.scheme),
    httpHeaders: headers,
  };
}

function toTCPSocket(a: Json): NonNullable<Prober["tcpSocket"]> {
  return { port: typedPort(a.port), host: optString(a.host) };
}

function toGRPC(a: Json): NonNullable<Prober["grpc"]> {
  return { port: typeof a.port === "number" ? a.port : 0, service: optString(a.service) ?? null };
}

/** What the agent needs of a probe: its action and timeout (Istio's kubeProbeToInternalProber). */
function probeToProber(probe: Probe | null | undefined): Prober | undefined {
  if (!probe) return undefined;
  const timeoutSeconds = typeof probe.timeoutSeconds === "number" ? probe.timeoutSeconds : undefined;
  if (probe.httpGet) return { httpGet: toHTTPGet(probe.httpGet), timeoutSeconds };
  if (probe.tcpSocket) return { tcpSocket: toTCPSocket(probe.tcpSocket), timeoutSeconds };
  if (probe.grpc) return { grpc: toGRPC(probe.grpc), timeoutSeconds };
  return undefined;
}

/** Lifecycle hooks carry no timeout. */
function handlerToProber(handler: LifecycleHandler | null | undefined): Prober | undefined {
  if (!handler) return undefined;
  if (handler.httpGet) return { httpGet: toHTTPGet(handler.httpGet) };
  if (handler.tcpSocket) return { tcpSocket: toTCPSocket(handler.tcpSocket) };
  return undefined;
}

/**
 * Resolves a named port through the container's own ports. A prober is dropped when its named port
 * is unknown, or when its numeric port is already the status port (the probe was rewritten by an
 * earlier injection). gRPC ports are numeric only and kept as they are.
 */
function resolvePort(p: Prober | undefined, namedPorts: Map<string, number>, statusPort: number): Prober | undefined {
  if (p === undefined) return undefined;
  if (p.grpc) return p;
  const action = p.httpGet ?? p.tcpSocket;
  if (action === undefined) return undefined;
  if (typeof action.port === "string") {
    const resolved = namedPorts.get(action.port);
    if (resolved === undefined) return undefined;
    action.port = resolved;
  } else if (action.port === statusPort) {
    return undefined;
  }
  return p;
}

/** Init containers first, then regular containers, without the proxy. */
function appContainers(pod: PodLike): ProbeContainer[] {
  return [...(specOf(pod)?.initContainers ?? []), ...(specOf(pod)?.containers ?? [])].filter(
    (c) => c.name !== PROXY_CONTAINER,
  );
}

/** The probers of every app container, keyed by agent path (Istio's DumpAppProbers before encoding). */
export function appProbers(pod: PodLike, statusPort: number): AppProbers {
  const out: AppProbers = {};
  for (const c of appContainers(pod)) {
    const name = c.name ?? "";
    const paths = proberPaths(name);
    const namedPorts = new Map<string, number>();
    for (const p of c.ports ?? []) {
      if (p.name) namedPorts.set(p.name, typeof p.containerPort === "number" ? p.containerPort : 0);
    }
    const entries: Array<[string, Prober | undefined]> = [
      [paths.readyz, probeToProber(c.readinessProbe)],
      [paths.livez, probeToProber(c.livenessProbe)],
      [paths.startupz, probeToProber(c.startupProbe)],
    ];
    if (c.lifecycle) {
      entries.push([paths.prestopz, handlerToProber(c.lifecycle.preStop)]);
      entries.push([paths.poststartz, handlerToProber(c.lifecycle.postStart)]);
    }
    for (const [path, prober] of entries) {
      const resolved = resolvePort(prober, namedPorts, statusPort);
      if (resolved !== undefined) out[path] = resolved;
    }
  }
  return out;
}

/** The `ISTIO_KUBE_APP_PROBERS` text for the pod, or undefined when no probe needs the agent. */
export function dumpAppProbers(pod: PodLike, statusPort: number): string | undefined {
  const probers = appProbers(pod, statusPort);
  return Object.keys(probers).length === 0 ? undefined : encodeAppProbers(probers);
}

/**
 * Puts the prober JSON into the proxy's env. A fresh injection appends the variable. On re-injection
 * an existing variable is merged (its entries win over the new ones) and replaced in place; if
 * either side does not decode, the env is left as it is, as Istio does.
 */
export function mergeOrAppendProbers(previouslyInjected: boolean, env: readonly EnvVar[], probers: string): EnvVar[] {
  const appended = [...env, { name: APP_PROBERS_ENV, value: probers }];
  if (!previouslyInjected) return appended;
  const index = env.findIndex((e) => e.name === APP_PROBERS_ENV);
  if (index < 0) return appended;
  const existing = decodeAppProbers(env[index]?.value ?? "");
  const fresh = decodeAppProbers(probers);
  if (existing === undefined || fresh === undefined) return [...env];
  const merged = encodeAppProbers({ ...fresh, ...existing });
  const out = [...env];
  out[index] = { name: APP_PROBERS_ENV, value: merged };
  return out;
}

// ---------------------------------------------------------------------------------------------
// Rewriting the probes

/** An httpGet action aimed at the agent: path and port replaced, HTTPS downgraded (the agent does TLS). */
function agentHTTPGet(action: Json | null | undefined, path: string, port: number): Json {
  const { path: _path, port: _port, ...rest } = action ?? {};
  const out: Json = { path, port, ...rest };
  if (out.scheme === "HTTPS") out.scheme = "HTTP";
  return out;
}

/** Istio's convertAppProber: the rewritten probe, or undefined when it stays (exec, or none). */
function convertProbe(probe: Probe | null | undefined, path: string, port: number): Probe | undefined {
  if (!probe) return undefined;
  if (probe.httpGet) return { ...probe, httpGet: agentHTTPGet(probe.httpGet, path, port) };
  // TCP and gRPC checks become an HTTP request to the agent, which makes the TCP/gRPC check itself.
  const replaced = probe.tcpSocket ? "tcpSocket" : probe.grpc ? "grpc" : undefined;
  if (replaced === undefined) return undefined;
  const { [replaced]: _old, httpGet: _none, ...rest } = probe;
  return { httpGet: agentHTTPGet(undefined, path, port), ...rest };
}

function convertHandler(handler: LifecycleHandler | null | undefined, path: string, port: number) {
  if (!handler) return undefined;
  if (handler.httpGet) return { ...handler, httpGet: agentHTTPGet(handler.httpGet, path, port) };
  if (handler.tcpSocket) {
    const { tcpSocket: _t, httpGet: _h, ...rest } = handler;
    return { httpGet: agentHTTPGet(undefined, path, port), ...rest };
  }
  return undefined;
}

function rewriteContainer(c: ProbeContainer, port: number): ProbeContainer {
  if (c.name === PROXY_CONTAINER) return c;
  const paths = proberPaths(c.name ?? "");
  const out: ProbeContainer = { ...c };
  const ready = convertProbe(c.readinessProbe, paths.readyz, port);
  if (ready) out.readinessProbe = ready;
  const live = convertProbe(c.livenessProbe, paths.livez, port);
  if (live) out.livenessProbe = live;
  const startup = convertProbe(c.startupProbe, paths.startupz, port);
  if (startup) out.startupProbe = startup;
  if (c.lifecycle) {
    const lifecycle = { ...c.lifecycle };
    const preStop = convertHandler(c.lifecycle.preStop, paths.prestopz, port);
    if (preStop) lifecycle.preStop = preStop;
    const postStart = convertHandler(c.lifecycle.postStart, paths.poststartz, port);
    if (postStart) lifecycle.postStart = postStart;
    out.lifecycle = lifecycle;
  }
  return out;
}

/**
 * The status port the probes are pointed at: the `status.sidecar.istio.io/port` annotation if
 * present (read as Go's Atoi reads it: a bad value gives 0), else the mesh's status port.
 */
export function probeStatusPort(annotations: Readonly<Record<string, string>> | null | undefined, meshPort: number) {
  const value = annotations?.[STATUS_PORT_ANNOTATION];
  if (value === undefined) return meshPort;
  const parsed = parseInt64(value, 10);
  if (parsed.err === "syntax") return 0;
  // The port is an int32 in the probe; Go truncates the clamped int.
  return Number(BigInt.asIntN(32, parsed.value));
}

/** Istio's patchRewriteProbe: every app container's HTTP/TCP/gRPC probes and hooks aimed at the agent. */
export function patchRewriteProbe<P extends PodLike>(
  annotations: Readonly<Record<string, string>> | null | undefined,
  pod: P,
  meshStatusPort: number,
): P {
  const port = probeStatusPort(annotations, meshStatusPort);
  const spec = specOf(pod);
  if (!spec) return pod;
  const out = { ...spec };
  if (spec.containers) out.containers = spec.containers.map((c) => rewriteContainer(c, port));
  if (spec.initContainers) out.initContainers = spec.initContainers.map((c) => rewriteContainer(c, port));
  return { ...pod, spec: out };
}

/**
 * The probe step on a pod after the template is merged (Istio's applyRewrite), as a new pod: nothing
 * happens without an `istio-proxy` container or when rewriting is off (the pod's
 * `sidecar.istio.io/rewriteAppHTTPProbers` annotation, else `rewriteSetting`, the values'
 * `sidecarInjectorWebhook.rewriteAppHTTPProbe`); otherwise the prober JSON goes into the proxy's env
 * (merged on re-injection, i.e. when the pod already carries `sidecar.istio.io/status`) and the
 * probes are pointed at the status port (`meshStatusPort`, the mesh's `defaultConfig.statusPort`,
 * unless the pod's `status.sidecar.istio.io/port` annotation says otherwise).
 */
export function withRewrittenAppProbes<P extends PodLike>(pod: P, meshStatusPort: number, rewriteSetting: boolean): P {
  if (findSidecar(pod) === undefined) return pod;
  const annotations = annotationsOf(pod);
  if (!shouldRewriteAppHTTPProbers(annotations, rewriteSetting)) return pod;
  let result: P = pod;
  const probers = dumpAppProbers(pod, meshStatusPort);
  if (probers !== undefined) {
    result = withSidecarEnv(pod, (env) => mergeOrAppendProbers(hasInjectionStatus(pod), env, probers));
  }
  return patchRewriteProbe(annotations, result, meshStatusPort);
}

/**
 * The injector's post-processing form of {@link withRewrittenAppProbes}: replaces `pod.spec` of the
 * injector's working copy (the old spec object is not modified).
 */
export function rewriteAppProbes(pod: PodLike, meshStatusPort: number, rewriteSetting: boolean): void {
  pod.spec = withRewrittenAppProbes(pod, meshStatusPort, rewriteSetting).spec;
}

/** A copy of the pod whose proxy container has `update(env)` as its env. */
function withSidecarEnv<P extends PodLike>(pod: P, update: (env: EnvVar[]) => EnvVar[]): P {
  const spec: PodSpec = specOf(pod) ?? {};
  const replace = (list: ProbeContainer[] | null | undefined): [ProbeContainer[] | null | undefined, boolean] => {
    const i = (list ?? []).findIndex((c) => c.name === PROXY_CONTAINER);
    if (!list || i < 0) return [list, false];
    const copy = [...list];
    const c = copy[i] as ProbeContainer;
    copy[i] = { ...c, env: update(c.env ?? []) };
    return [copy, true];
  };
  const [containers, found] = replace(spec.containers);
  if (found) return { ...pod, spec: { ...spec, containers } };
  const [initContainers] = replace(spec.initContainers);
  return { ...pod, spec: { ...spec, initContainers } };
}
