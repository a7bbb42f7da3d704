/**
 * The probe proxy: the kubelet probes the agent's `/app-health/<container>/<kind>` and the agent probes the
 * application as the kubelet would have, with the agent's one probe module (../probe) — HTTP(S) GET
 * through the prober's client (redirects followed within the same host at most 10 times), TCP connect,
 * or the gRPC health check — from the upstream local address (127.0.0.6 / ::6) so that Envoy lets it
 * through — and forwards the answer: the application's status and body, 200 for a redirect not followed.
 */
import { isIP } from "node:net";
import { splitHostPort } from "../../go/net.js";
import { joinHostPort } from "../../mesh/validate-net.js";
import type { Cancellation } from "../probe/cancel.js";
import { checkHealth } from "../probe/grpc-health.js";
import { SERVING_STATUS } from "../probe/grpc-health-codec.js";
import { ProbeClient } from "../probe/http-client.js";
import { HTTPProbeError, httpProbe } from "../probe/http-get.js";
import { connectOnce } from "../probe/tcp.js";
import type { Prober } from "./probers.js";

export { MAX_PROBE_BODY_BYTES } from "../probe/http-client.js";

export interface ProbeTarget {
  /** The pod IP the probes connect to ("" = this host). */
  destination: string;
  /** Source address of probe connections. */
  localAddress: string;
  /** The agent's status port (a Host naming it is rewritten to the application's port). */
  statusPort: number;
  /** Offer HTTP/2 to HTTPS applications (ISTIO_ENABLE_HTTP2_PROBING, default on); for a client made here. */
  http2?: boolean;
  /**
   * This HTTP prober's client, made once as Istio's appProbeClient[path] (its connections kept with
   * ENABLE_PROBE_KEEPALIVE_CONNECTIONS); without one, a client without keep-alive is made for the probe.
   */
  client?: ProbeClient;
}

export interface ProbeAnswer {
  status: number;
  body?: Buffer;
  /** Why the probe failed, for the log. */
  error?: string;
}

/** Hop-by-hop and framing headers are the agent's own business, not the application's. */
const NOT_FORWARDED = new Set([
  "host",
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "te",
  "content-length",
  "http2-settings",
]);

/** The host to dial: the pod IP, or this host's loopback of the source address's family. */
function dialHost(t: ProbeTarget): string {
  if (t.destination !== "") return t.destination;
  return isIP(t.localAddress) === 6 ? "::1" : "127.0.0.1";
}

/** The Host the application sees: the kubelet's, with the status port replaced by the application's. */
export function probeHostHeader(incomingHost: string, statusPort: number, appPort: number): string {
  const { host, port, err } = splitHostPort(incomingHost);
  if (err === undefined && Number(port) === statusPort && /^\d+$/.test(port)) return joinHostPort(host, appPort);
  return incomingHost;
}

/** The incoming request's headers to forward, in order, repeated names kept. */
export function forwardedHeaders(rawHeaders: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (!NOT_FORWARDED.has(rawHeaders[i].toLowerCase())) out.push([rawHeaders[i], rawHeaders[i + 1]]);
  }
  return out;
}

export interface IncomingProbe {
  host: string;
  rawHeaders: readonly string[];
  /** Cancelled when the kubelet's request goes away: the probe of the application stops too. */
  cancel?: Cancellation;
}

/** Each prober's URL, parsed once (the URL depends only on the prober and its target). */
const parsedURLs = new WeakMap<Prober, { text: string; url: URL }>();

export async function probeHTTP(p: Prober, incoming: IncomingProbe, t: ProbeTarget): Promise<ProbeAnswer> {
  const get = p.httpGet;
  if (get?.port.type !== "int") return { status: 500, error: "not an HTTP prober" };
  const port = get.port.value;
  const path = get.path.startsWith("/") ? get.path : `/${get.path}`;
  const scheme = get.scheme === "HTTPS" ? "https" : "http";
  const text = `${scheme}://${joinHostPort(dialHost(t), port)}${path}`;
  let url = parsedURLs.get(p);
  if (url?.text !== text) {
    try {
      url = { text, url: new URL(text) };
    } catch (e) {
      return { status: 500, error: `bad probe URL: ${(e as Error).message}` };
    }
    parsedURLs.set(p, url);
  }
  const client =
    t.client ?? new ProbeClient({ localAddress: t.localAddress, keepAlive: false, http2: t.http2 !== false });
  try {
    const result = await httpProbe(client, {
      url: url.url,
      host: probeHostHeader(incoming.host, t.statusPort, port),
      headers: forwardedHeaders(incoming.rawHeaders),
      timeoutMs: p.timeoutSeconds * 1000,
      cancel: incoming.cancel,
      redirects: "same-host",
    });
    // Redirects not followed are a success: a 3xx need not carry a Location the kubelet could use.
    if (result.status >= 300 && result.status < 400) return { status: 200 };
    return { status: result.status, body: result.body };
  } catch (e) {
    const why =
      e instanceof HTTPProbeError && e.reason === "timeout"
        ? `probe timed out after ${p.timeoutSeconds}s`
        : (e as Error).message;
    return { status: 500, error: `request to probe app failed: ${why}` };
  }
}

export async function probeTCP(p: Prober, t: ProbeTarget, cancel?: Cancellation): Promise<ProbeAnswer> {
  const error = await connectOnce({
    host: dialHost(t),
    port: p.tcpSocket?.port.type === "int" ? p.tcpSocket.port.value : 0,
    localAddress: t.localAddress,
    timeoutMs: p.timeoutSeconds * 1000,
    timeoutError: () => new Error(`timed out after ${p.timeoutSeconds}s`),
    cancel,
  });
  return error === undefined ? { status: 200 } : { status: 500, error: `tcp probe failed: ${error.message}` };
}

/**
 * The gRPC health check. The deadline is the probe's timeout, as pilot-agent sets it (a 0 s timeout
 * therefore fails at once). It connects from the probe source address (127.0.0.6 or ::6), as the
 * HTTP and TCP probes do (status/server.go handleAppProbeGRPC's dialer with d.LocalAddr).
 */
export async function probeGRPC(p: Prober, incoming: IncomingProbe, t: ProbeTarget): Promise<ProbeAnswer> {
  if (!p.grpc) return { status: 500, error: "not a gRPC prober" };
  let userAgent: string | undefined;
  for (let i = 0; i + 1 < incoming.rawHeaders.length; i += 2) {
    if (incoming.rawHeaders[i].toLowerCase() === "user-agent") {
      userAgent = incoming.rawHeaders[i + 1];
      break;
    }
  }
  try {
    const status = await checkHealth({
      host: dialHost(t),
      port: p.grpc.port,
      localAddress: t.localAddress,
      service: p.grpc.service ?? "",
      deadline: Date.now() + p.timeoutSeconds * 1000,
      userAgent,
      cancel: incoming.cancel,
    });
    if (status === 1) return { status: 200 };
    return { status: 500, error: `grpc probe: status ${SERVING_STATUS[status] ?? status}` };
  } catch (e) {
    return { status: 500, error: `grpc probe failed: ${(e as Error).message}` };
  }
}

export function runAppProbe(p: Prober, incoming: IncomingProbe, t: ProbeTarget): Promise<ProbeAnswer> {
  if (p.httpGet) return probeHTTP(p, incoming, t);
  if (p.tcpSocket) return probeTCP(p, t, incoming.cancel);
  return probeGRPC(p, incoming, t);
}
