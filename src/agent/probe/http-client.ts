/**
 * One HTTP prober's client — the probe proxy's as pilot-agent's appProbeClient[path] (status/server.go
 * NewServer and setTransportDefaults), the workload health checker's as its HTTPProber transport
 * (pkg/istio-agent/health, keep-alive and HTTP/2 off): requests from the upstream local address, the
 * application's certificate not checked unless asked, HTTP/2 offered over TLS when
 * ISTIO_ENABLE_HTTP2_PROBING is on. With keep-alive
 * (ENABLE_PROBE_KEEPALIVE_CONNECTIONS) the next probe reuses the connection — plain, TLS HTTP/1.1 or
 * HTTP/2 alike; without it (the default, as the kubelet) each request has its own connection, closed
 * after it. With HTTP/2 probing on, Go's transport defaults apply: a 10 s TLS handshake timeout, idle
 * connections closed after 90 s, and an HTTP/2 connection silent for 30 s is pinged and dropped when
 * the ping is not answered within 15 s.
 */
import * as http from "node:http";
import * as http2 from "node:http2";
import * as https from "node:https";
import * as net from "node:net";
import { isIP } from "node:net";
import type * as stream from "node:stream";
import * as tls from "node:tls";

/** At most this much of the application's body is returned to the kubelet. */
export const MAX_PROBE_BODY_BYTES = 10 * 1024;

/** http.DefaultTransport's TLSHandshakeTimeout and IdleConnTimeout; http2 ReadIdleTimeout and PingTimeout. */
const TLS_HANDSHAKE_TIMEOUT_MS = 10_000;
const IDLE_CONN_TIMEOUT_MS = 90_000;
const H2_READ_IDLE_TIMEOUT_MS = 30_000;
const H2_PING_TIMEOUT_MS = 15_000;
/** Go's DefaultMaxIdleConnsPerHost. */
const MAX_IDLE_CONNS_PER_HOST = 2;

export interface ProbeClientOptions {
  /** Source address of probe connections (127.0.0.6 or ::6). */
  localAddress: string;
  /** ENABLE_PROBE_KEEPALIVE_CONNECTIONS. */
  keepAlive: boolean;
  /** ISTIO_ENABLE_HTTP2_PROBING. */
  http2: boolean;
  /** Check the application's certificate (the health checker's lowercased "https"); default not, as the kubelet. */
  verifyCertificate?: boolean;
}

/** One request of a probe (a redirect is another). */
export interface ProbeRequest {
  url: URL;
  /** The Host (HTTP/1.1) or :authority (HTTP/2) the application sees. */
  host: string;
  headers: [string, string][];
  /** Registers a cleanup run when the probe's deadline passes or the kubelet goes away. */
  onAbort: (fn: () => void) => void;
}

export interface ProbeResponse {
  status: number;
  location?: string;
  /** The first MAX_PROBE_BODY_BYTES of the body. */
  body: Buffer;
}

export function family(address: string): 4 | 6 {
  return isIP(address) === 6 ? 6 : 4;
}

function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, "");
}

/**
 * The first `cap` bytes of a body. The rest is read and dropped when the connection is kept (as Istio
 * drains the body so that the transport can reuse it), else the stream is destroyed.
 */
function readCapped(body: stream.Readable, cap: number, drain: boolean): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let ended = false;
    const done = () => {
      ended = true;
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    };
    body.on("data", (c: Buffer) => {
      if (size >= cap) return;
      chunks.push(c.subarray(0, cap - size));
      size += Math.min(c.length, cap - size);
      if (size >= cap && !drain) {
        body.removeAllListeners("data");
        body.destroy();
        done();
      }
    });
    body.on("end", done);
    body.on("error", reject);
    // Closed without its end (reset, or the connection lost): what was not settled fails.
    body.on("close", () => {
      if (!ended) reject(new Error("the application closed the response before its end"));
    });
  });
}

/** The Location header (the first), read from the raw list: building res.headers costs more than the rest. */
function locationOf(rawHeaders: readonly string[]): string | undefined {
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i].length === 8 && rawHeaders[i].toLowerCase() === "location") return rawHeaders[i + 1];
  }
  return undefined;
}

/** A kept connection failed before the application answered: the request may be sent again. */
class StaleConnection extends Error {
  constructor(readonly failure: Error) {
    super(failure.message);
  }
}

/** The TLS dial found the application speaking HTTP/2: the request goes to this session instead. */
class NegotiatedH2 extends Error {
  constructor(readonly session: http2.ClientHttp2Session) {
    super("the application negotiated HTTP/2");
  }
}

interface DialOptions {
  host: string;
  port: number;
  /** The request's abort hook, passed through the agent to its connection. */
  probeOnAbort?: ProbeRequest["onAbort"];
}

/** A TLS connection to the application, as Go's transport dials it (ALPN h2 first when HTTP/2 probing). */
function tlsDial(o: DialOptions, c: ProbeClientOptions): tls.TLSSocket {
  const tcp = net.connect({ host: o.host, port: o.port, localAddress: c.localAddress, family: family(c.localAddress) });
  const socket = tls.connect({
    socket: tcp,
    // The name a checked certificate must carry; Go's tls omits SNI for an IP address.
    host: o.host,
    servername: isIP(o.host) ? undefined : o.host,
    // The kubelet does not verify the application's certificate either.
    rejectUnauthorized: c.verifyCertificate === true,
    ...(c.http2 ? { ALPNProtocols: ["h2", "http/1.1"] } : {}),
  });
  tcp.once("error", (e) => socket.destroy(e));
  o.probeOnAbort?.(() => socket.destroy(new Error("probe timed out")));
  if (c.http2) {
    const timer = setTimeout(
      () => socket.destroy(new Error("net/http: TLS handshake timeout")),
      TLS_HANDSHAKE_TIMEOUT_MS,
    ).unref();
    socket.once("secureConnect", () => clearTimeout(timer));
    socket.once("close", () => clearTimeout(timer));
  }
  return socket;
}

/** An HTTP/2 connection the client keeps, with Go's idle timeout and read-idle health check. */
class KeptSession {
  active = 0;
  private idle: NodeJS.Timeout | undefined;

  constructor(
    readonly session: http2.ClientHttp2Session,
    onGone: () => void,
  ) {
    session.once("close", onGone);
    session.once("goaway", onGone);
    session.on("error", () => {}); // the streams in flight fail with it
    session.setTimeout(H2_READ_IDLE_TIMEOUT_MS, () => {
      const lost = setTimeout(
        () => session.destroy(new Error("http2: client connection lost")),
        H2_PING_TIMEOUT_MS,
      ).unref();
      const sent = session.ping((err) => {
        clearTimeout(lost);
        if (err) session.destroy(err);
      });
      if (!sent) clearTimeout(lost);
    });
    this.idleSoon();
  }

  usable(): boolean {
    return !this.session.closed && !this.session.destroyed;
  }

  begin(): void {
    this.active++;
    clearTimeout(this.idle);
    this.session.ref();
  }

  end(): void {
    if (--this.active === 0) this.idleSoon();
  }

  private idleSoon(): void {
    this.session.unref();
    this.idle = setTimeout(() => this.session.close(), IDLE_CONN_TIMEOUT_MS).unref();
  }
}

type Dial = (o: DialOptions, done: (err: Error | null, s?: net.Socket) => void) => net.Socket | undefined;

export class ProbeClient {
  /** With keep-alive: the pools of connections (the probe's own connection is dialled directly without). */
  private readonly plain: http.Agent | undefined;
  private readonly secure: https.Agent | undefined;
  /** Kept HTTP/2 connections by host and port. */
  private readonly sessions = new Map<string, KeptSession>();

  constructor(readonly options: ProbeClientOptions) {
    if (!options.keepAlive) return;
    const agentOptions: http.AgentOptions = {
      keepAlive: true,
      maxFreeSockets: MAX_IDLE_CONNS_PER_HOST,
      // Only setTransportDefaults (HTTP/2 probing on) sets an idle timeout; 0 = none.
      timeout: options.http2 ? IDLE_CONN_TIMEOUT_MS : 0,
    };
    this.plain = new http.Agent(agentOptions);
    this.secure = new https.Agent(agentOptions);
    this.secure.createConnection = this.dialTLS as unknown as https.Agent["createConnection"];
  }

  private readonly dialPlain: Dial = (o) =>
    net.connect({
      host: o.host,
      port: o.port,
      localAddress: this.options.localAddress,
      family: family(this.options.localAddress),
      noDelay: true,
    });

  /** A TLS connection that settled on HTTP/1.1, or (rejected) the HTTP/2 session one that chose h2 becomes. */
  private readonly dialTLS: Dial = (o, done) => {
    const socket = tlsDial(o, this.options);
    socket.once("error", (e) => done(e));
    socket.once("secureConnect", () => {
      if (socket.alpnProtocol !== "h2") {
        done(null, socket);
        return;
      }
      const session = http2.connect(`https://${isIP(o.host) === 6 ? `[${o.host}]` : o.host}`, {
        createConnection: () => socket,
      });
      session.on("error", () => {}); // the request on it hears of it
      done(new NegotiatedH2(session));
    });
    return undefined;
  };

  /**
   * One request. A kept connection that fails before any answer (the application closed it as the
   * request went out) is dropped and the request sent again on another, as Go's transport retries a
   * replayable request on a reused connection (shouldRetryRequest); a new connection's failure stands.
   */
  async request(r: ProbeRequest): Promise<ProbeResponse> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.send(r);
      } catch (e) {
        if (!(e instanceof StaleConnection) || attempt > MAX_IDLE_CONNS_PER_HOST)
          throw e instanceof StaleConnection ? e.failure : e;
      }
    }
  }

  private async send(r: ProbeRequest): Promise<ProbeResponse> {
    if (r.url.protocol !== "https:") return this.h1(r, false);
    const key = `${bareHost(r.url)}|${r.url.port || 443}`;
    const kept = this.sessions.get(key);
    if (kept?.usable()) return this.h2(r, kept.session, kept);
    try {
      return await this.h1(r, true);
    } catch (e) {
      if (!(e instanceof NegotiatedH2)) throw e;
      if (!this.options.keepAlive) return this.h2(r, e.session, undefined);
      const fresh = new KeptSession(e.session, () => {
        if (this.sessions.get(key) === fresh) this.sessions.delete(key);
      });
      this.sessions.set(key, fresh);
      return this.h2(r, e.session, fresh);
    }
  }

  /** Closes every kept connection. */
  close(): void {
    this.plain?.destroy();
    this.secure?.destroy();
    for (const k of this.sessions.values()) k.session.destroy();
    this.sessions.clear();
  }

  private h1(r: ProbeRequest, secure: boolean): Promise<ProbeResponse> {
    return new Promise((resolve, reject) => {
      const headers: string[] = ["Host", r.host];
      for (const [k, v] of r.headers) headers.push(k, v);
      // DisableKeepAlives: Go's transport asks the application to close as well.
      if (!this.options.keepAlive) headers.push("Connection", "close");
      const options: http.RequestOptions & Partial<DialOptions> = {
        method: "GET",
        path: `${r.url.pathname}${r.url.search}`,
        headers,
        setHost: false,
        host: bareHost(r.url),
        port: Number(r.url.port || (secure ? 443 : 80)),
        localAddress: this.options.localAddress,
        family: family(this.options.localAddress),
        probeOnAbort: r.onAbort,
      };
      const pool = secure ? this.secure : this.plain;
      if (pool) options.agent = pool;
      else
        options.createConnection = (secure ? this.dialTLS : this.dialPlain) as http.RequestOptions["createConnection"];
      const req = (secure ? https : http).request(options);
      // An aborted request is over, not stale: Go's transport returns the context's error and does not retry.
      let aborted = false;
      r.onAbort(() => {
        aborted = true;
        req.destroy(new Error("probe timed out"));
      });
      let answered = false;
      req.on("error", (e) => reject(req.reusedSocket && !answered && !aborted ? new StaleConnection(e) : e));
      req.on("response", (res) => {
        answered = true;
        readCapped(res, MAX_PROBE_BODY_BYTES, this.options.keepAlive)
          .then((body) => resolve({ status: res.statusCode ?? 0, location: locationOf(res.rawHeaders), body }))
          .catch(reject);
      });
      req.end();
    });
  }

  /** A request on an HTTP/2 session: kept (a stream of it), or this request's own, closed after it. */
  private h2(
    r: ProbeRequest,
    session: http2.ClientHttp2Session,
    kept: KeptSession | undefined,
  ): Promise<ProbeResponse> {
    return new Promise((resolve, reject) => {
      if (!kept) session.on("error", reject);
      const headers: http2.OutgoingHttpHeaders = {
        ":method": "GET",
        ":path": `${r.url.pathname}${r.url.search}`,
        ":authority": r.host,
        ":scheme": "https",
      };
      for (const [k, v] of r.headers) {
        const name = k.toLowerCase();
        const prev = headers[name];
        headers[name] = prev === undefined ? v : [...(Array.isArray(prev) ? prev : [String(prev)]), v];
      }
      kept?.begin();
      let req: http2.ClientHttp2Stream;
      try {
        req = session.request(headers, { endStream: true });
      } catch (e) {
        kept?.end();
        if (!kept) session.destroy();
        // A kept session that is going away takes no new stream: another connection may.
        reject(kept ? new StaleConnection(e as Error) : e);
        return;
      }
      const finish = () => {
        if (kept) kept.end();
        else session.close();
      };
      let aborted = false;
      r.onAbort(() => {
        aborted = true;
        // A kept connection loses only this stream, as Go cancels a request; an own one goes.
        if (kept) req.close(http2.constants.NGHTTP2_CANCEL);
        else session.destroy(new Error("probe timed out"));
      });
      let answered = false;
      let failure: Error | undefined;
      req.on("error", (e: Error) => {
        failure = e;
        if (answered) reject(e);
      });
      req.once("close", () => {
        finish();
        if (answered) return;
        const e = failure ?? new Error(`stream closed before the response (code ${req.rstCode})`);
        // The kept connection went away, or the application refused the stream unprocessed.
        const stale = kept && !aborted && (!kept.usable() || req.rstCode === http2.constants.NGHTTP2_REFUSED_STREAM);
        reject(stale ? new StaleConnection(e) : e);
      });
      req.on("response", (h) => {
        answered = true;
        const status = Number(h[":status"]);
        const location = typeof h.location === "string" ? h.location : undefined;
        readCapped(req, MAX_PROBE_BODY_BYTES, kept !== undefined)
          .then((body) => resolve({ status, location, body }))
          .catch(reject);
      });
    });
  }
}
