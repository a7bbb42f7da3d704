/**
 * The agent's DNS proxy (pilot-agent's local DNS server, on with `ISTIO_META_DNS_CAPTURE=true`): one
 * UDP and one TCP listener per address (`localhost:15053` → 127.0.0.1 and/or ::1, by the families of
 * the resolv.conf nameservers), answering the mesh's names from the name table istiod pushes and
 * forwarding everything else to the resolvers of `<root>/etc/resolv.conf`. Malformed messages are
 * dropped or answered FORMERR/NOTIMP and counted; nothing a client sends can stop the listeners.
 *
 * ```ts
 * const dns = await startDnsProxy({ root: "/", proxyNamespace: "ns1", proxyDomain: "ns1.svc.cluster.local" });
 * dns.updateNameTable(tableFromXds);   // ready from now on
 * await dns.close();
 * ```
 */
import type { Buffer } from "node:buffer";
import { randomInt } from "node:crypto";
import { createSocket, type Socket as UdpSocket } from "node:dgram";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import type { Registry } from "prom-client";
import { joinHostPort } from "../../mesh/validate-net.js";
import { type AgentLog, SILENT_LOG } from "../process/log.js";
import { acceptQuery, replyTo } from "./accept.js";
import { dnsScope } from "./alt-hosts.js";
import { decide } from "./answer.js";
import { buildLookupTable, type LookupTable } from "./lookup-table.js";
import { dnsMetrics } from "./metrics.js";
import { type NameTable, parseNameTable } from "./name-table.js";
import { ndszView } from "./ndsz.js";
import { dnsAddress, parseResolvConf } from "./resolv-conf.js";
import type { IdSource } from "./round-robin.js";
import { FrameReader, frame } from "./tcp-frame.js";
import { type ExchangeOptions, forwardParallel, forwardSequential, type Upstream } from "./upstream.js";
import { decodeMessage, MAX_MSG_SIZE, MIN_MSG_SIZE, type Packet, packReply, RCODE, replySizeLimit } from "./wire.js";

export type { NameInfo, NameTable } from "./name-table.js";
export { NameTableError } from "./name-table.js";

export const DEFAULT_DNS_ADDRESS = "localhost:15053";
/** pilot-agent's readiness failure while DNS capture is on and no table has arrived. */
export const DNS_NOT_READY = "istio DNS capture is turned ON and DNS lookup table is not ready yet";
export const DEFAULT_FORWARD_TIMEOUT_MS = 5000;

export interface DnsProxyOptions {
  /** The file-system root: resolv.conf is read from `<root>/etc/resolv.conf` (default `/`). */
  root?: string;
  /** `DNS_PROXY_ADDR`: `host:port`, default `localhost:15053`. `:53` is used only as root. */
  address?: string;
  /** `POD_NAMESPACE`: short names answer for this namespace's services. */
  proxyNamespace: string;
  /** The proxy's DNS domain, `<namespace>.svc.<cluster domain>`. */
  proxyDomain: string;
  /** `DNS_FORWARD_PARALLEL=true`: ask every upstream at once. */
  forwardParallel?: boolean;
  /** `DNS_FORWARD_TIMEOUT` in ms (default 5000), per upstream exchange. */
  upstreamTimeoutMs?: number;
  /** Upstream `host:port`s instead of resolv.conf's nameservers (tests, and callers that know better). */
  upstreams?: string[];
  /** Search domains instead of resolv.conf's. */
  searchNamespaces?: string[];
  /** Test hook: the 16-bit id source of the round-robin shuffle (miekg/dns `Id`). */
  messageIds?: IdSource;
  /**
   * Most queries forwarded at once; more are dropped and counted. Unlimited by default, as in
   * pilot-agent (a goroutine per query); a bound for callers that want one (an extension).
   */
  maxInFlight?: number;
  /** Told about dropped/rejected messages and upstream failures (one line each). */
  log?: AgentLog;
  /** The uid the agent runs as (default process.getuid()); decides whether `:53` is allowed. */
  uid?: number;
  /** Where to register the `dns_*` Prometheus metrics (the agent's registry); none by default. */
  metrics?: Registry;
}

export interface DnsListener {
  transport: "udp" | "tcp";
  host: string;
  port: number;
}

export interface DnsStats {
  /** Messages received (both transports). */
  requests: number;
  /** Answered from the table. */
  fromTable: number;
  /** Forwarded upstream. */
  upstreamRequests: number;
  /** Forwarded queries no upstream answered (answered SERVFAIL). */
  upstreamFailures: number;
  /** Dropped without an answer: too short, a response, or over the in-flight limit (when set). */
  dropped: number;
  /** Answered FORMERR/NOTIMP without being handled. */
  rejected: number;
  /** Replies that could not be encoded (answered SERVFAIL instead). */
  encodeErrors: number;
}

export interface DnsProxy {
  /** The UDP and TCP port of the first address (they differ when the address asks for port 0). */
  ports: { udp: number; tcp: number };
  listeners: DnsListener[];
  /** Installs a new name table (NameTable JSON shape); throws NameTableError when it is malformed. */
  updateNameTable(table: unknown): void;
  /** True once a name table has arrived (the agent's readiness check). */
  isReady(): boolean;
  /** The table as last received, or undefined. */
  nameTable(): NameTable | undefined;
  /** The `/debug/ndsz` view: the table plus the names the agent derives, or undefined before the first table. */
  ndsz(): NameTable | undefined;
  stats(): DnsStats;
  /** Upstreams and search domains in use. */
  resolvers(): { upstreams: string[]; search: string[] };
  close(): Promise<void>;
}

/** miekg/dns's server defaults, which pilot-agent keeps: `dnsTimeout`, `tcpIdleTimeout`, `maxTCPQueries`. */
const TCP_READ_MS = 2000;
const TCP_IDLE_MS = 8000;
const TCP_MAX_QUERIES = 128;

interface Config {
  address: string;
  upstreams: Upstream[];
  search: string[];
  respondBeforeSync: boolean;
}

function configure(o: DnsProxyOptions): Config {
  const root = o.root ?? "/";
  let address = o.address || DEFAULT_DNS_ADDRESS;
  let resolvConf = join(root, "etc/resolv.conf");
  let respondBeforeSync = false;
  if (address.endsWith(":53")) {
    const uid = o.uid ?? process.getuid?.() ?? -1;
    if (uid === 0) {
      // As the node's resolver (VMs, Docker): answer before the first table, and read the saved original.
      respondBeforeSync = true;
      const saved = join(root, "var/lib/istio/resolv.conf");
      if (existsSync(saved)) resolvConf = saved;
    } else {
      o.log?.warn(`DNS address ${address} needs root; using ${DEFAULT_DNS_ADDRESS}`);
      address = DEFAULT_DNS_ADDRESS;
    }
  }
  let servers: string[] = [];
  let search: string[] = [];
  if (o.upstreams === undefined || o.searchNamespaces === undefined) {
    let text: string;
    try {
      text = readFileSync(resolvConf, "utf8");
    } catch (e) {
      throw new Error(`DNS proxy: cannot read ${resolvConf}: ${(e as Error).message}`);
    }
    const conf = parseResolvConf(text);
    servers = conf.servers.map((s) => joinHostPort(s, conf.port));
    search = conf.search;
  }
  const upstreams = (o.upstreams ?? servers).map((s) => dnsAddress(s));
  return { address, upstreams, search: o.searchNamespaces ?? search, respondBeforeSync };
}

/** The addresses to bind: `localhost` means 127.0.0.1 and/or ::1, by the upstreams' families. */
function bindAddresses(address: string, upstreams: Upstream[]): { host: string; port: number }[] {
  const { host, port } = dnsAddress(address);
  if (host !== "localhost") return [{ host, port }];
  const v4 = upstreams.some((u) => !u.host.includes(":"));
  const v6 = upstreams.some((u) => u.host.includes(":"));
  const out: { host: string; port: number }[] = [];
  if (v4 || !v6) out.push({ host: "127.0.0.1", port });
  if (v6) out.push({ host: "::1", port });
  return out;
}

function randomIds(): IdSource {
  return () => randomInt(0, 0x10000);
}

export async function startDnsProxy(options: DnsProxyOptions): Promise<DnsProxy> {
  const cfg = configure(options);
  const scope = dnsScope(options.proxyNamespace, options.proxyDomain);
  const ids = options.messageIds ?? randomIds();
  const timeoutMs = options.upstreamTimeoutMs ?? DEFAULT_FORWARD_TIMEOUT_MS;
  const maxInFlight = options.maxInFlight ?? Number.POSITIVE_INFINITY;
  const log = options.log ?? SILENT_LOG;
  const stats: DnsStats = {
    requests: 0,
    fromTable: 0,
    upstreamRequests: 0,
    upstreamFailures: 0,
    dropped: 0,
    rejected: 0,
    encodeErrors: 0,
  };
  const metrics = dnsMetrics(options.metrics);
  let table: NameTable | undefined;
  let lookup: LookupTable | undefined;
  let inFlight = 0;
  let closed = false;

  const encode = (reply: Packet, size: number, request: Packet): Buffer => {
    try {
      return packReply(reply, size);
    } catch (e) {
      stats.encodeErrors++;
      log.warn(`DNS reply not encodable (${(e as Error).message}); answering SERVFAIL`);
      return packReply({ ...replyTo(request, RCODE.SERVFAIL), questions: [] }, MIN_MSG_SIZE);
    }
  };

  async function forward(bytes: Buffer, query: Packet, transport: "udp" | "tcp"): Promise<Buffer> {
    stats.upstreamRequests++;
    metrics.upstreamRequest();
    const started = performance.now();
    const size = replySizeLimit(transport, query);
    const opts: ExchangeOptions = {
      transport,
      udpBufferSize: transport === "udp" ? size : MAX_MSG_SIZE,
      timeoutMs,
    };
    const onFailure = (to: Upstream, err: Error) =>
      log.debug(`upstream ${joinHostPort(to.host, to.port)} failed: ${err.message}`);
    const reply = await (options.forwardParallel ? forwardParallel : forwardSequential)(
      bytes,
      cfg.upstreams,
      opts,
      onFailure,
    );
    metrics.upstreamSeconds((performance.now() - started) / 1000);
    if (reply === undefined) {
      stats.upstreamFailures++;
      metrics.upstreamFailure();
      return encode(replyTo(query, RCODE.SERVFAIL), size, query);
    }
    // The upstream's reply as it came when it fits; otherwise compressed and cut to the client's size.
    if (reply.length <= size) return reply;
    return encode(decodeMessage(reply), size, query);
  }

  /** Handles one message; resolves to the reply bytes, or undefined to send nothing. Never rejects. */
  async function handle(bytes: Buffer, transport: "udp" | "tcp"): Promise<Buffer | undefined> {
    try {
      return await handleQuery(bytes, transport);
    } catch (e) {
      // Nothing below is expected to throw; if it does, the message is lost, not the listener.
      stats.dropped++;
      log.warn(`DNS ${transport} message dropped after an internal error: ${(e as Error)?.message ?? String(e)}`);
      return undefined;
    }
  }

  async function handleQuery(bytes: Buffer, transport: "udp" | "tcp"): Promise<Buffer | undefined> {
    stats.requests++;
    metrics.request();
    const gate = acceptQuery(bytes);
    if (gate.kind === "drop") {
      stats.dropped++;
      metrics.malformed("dropped");
      log.debug(`DNS ${transport} message dropped: ${gate.reason}`);
      return undefined;
    }
    if (gate.kind === "reject") {
      stats.rejected++;
      metrics.malformed("rejected");
      log.debug(`DNS ${transport} message rejected: ${gate.reason}`);
      return gate.reply;
    }
    const query = gate.query;
    const decision = decide(query, lookup, ids, cfg.respondBeforeSync);
    if (decision.kind === "reply") {
      if (decision.from === "table") stats.fromTable++;
      return encode(decision.reply, replySizeLimit(transport, query), query);
    }
    if (inFlight >= maxInFlight) {
      stats.dropped++;
      return undefined;
    }
    inFlight++;
    try {
      return await forward(bytes, query, transport);
    } catch (e) {
      stats.upstreamFailures++;
      metrics.upstreamFailure();
      log.warn(`DNS forwarding failed: ${(e as Error).message}`);
      return encode(replyTo(query, RCODE.SERVFAIL), replySizeLimit(transport, query), query);
    } finally {
      inFlight--;
    }
  }

  const udpSockets: UdpSocket[] = [];
  const tcpServers: Server[] = [];
  const connections = new Set<Socket>();
  const listeners: DnsListener[] = [];

  /**
   * One TCP connection as miekg/dns's server serves it with pilot-agent's settings (none: the
   * defaults): the first whole message within 2 s of the accept, each later one within 8 s of the
   * previous reply, at most 128 queries, one at a time; then the connection is closed. The deadline
   * is for the whole message, so a client trickling bytes cannot hold the connection, and there is
   * no cap on connections for such clients to fill.
   */
  function serveTcpConnection(socket: Socket): void {
    connections.add(socket);
    const reader = new FrameReader();
    const queue: Buffer[] = [];
    let served = 0;
    let busy = false;
    let deadline: NodeJS.Timeout | undefined;
    const expect = (ms: number) => {
      clearTimeout(deadline);
      deadline = setTimeout(() => socket.destroy(), ms);
    };
    socket.on("close", () => {
      clearTimeout(deadline);
      connections.delete(socket);
    });
    socket.on("error", () => socket.destroy());
    const pump = async () => {
      if (busy) return;
      busy = true;
      for (let message = queue.shift(); message && !socket.destroyed; message = queue.shift()) {
        const reply = await handle(message, "tcp");
        served++;
        // A client that does not read its replies stops being read from, so nothing piles up.
        if (reply && !socket.destroyed && !socket.write(frame(reply)))
          await new Promise<void>((resolve) => {
            socket.once("drain", resolve);
            socket.once("close", resolve);
          });
        if (served >= TCP_MAX_QUERIES) {
          socket.end(() => socket.destroy());
          queue.length = 0;
        }
      }
      busy = false;
      if (socket.destroyed || served >= TCP_MAX_QUERIES) return;
      expect(TCP_IDLE_MS);
      socket.resume();
    };
    socket.on("data", (chunk: Buffer) => {
      queue.push(...reader.push(chunk));
      if (queue.length === 0) return;
      // A whole message: the deadline is met; read no more until it is answered.
      clearTimeout(deadline);
      socket.pause();
      void pump();
    });
    expect(TCP_READ_MS);
  }

  async function listenUdp(host: string, port: number): Promise<void> {
    const socket = createSocket({ type: host.includes(":") ? "udp6" : "udp4", ipv6Only: host.includes(":") });
    socket.on("message", (msg, rinfo) => {
      // miekg/dns reads a query into a buffer of its UDPSize, 512 bytes unless set (Istio sets none):
      // a longer query is cut there, and what is left is handled (a cut record is a FORMERR).
      void handle(msg.length > MIN_MSG_SIZE ? msg.subarray(0, MIN_MSG_SIZE) : msg, "udp").then((reply) => {
        if (!reply || closed) return;
        try {
          socket.send(reply, rinfo.port, rinfo.address, () => {});
        } catch (e) {
          log.debug(`DNS UDP reply not sent: ${(e as Error).message}`);
        }
      });
    });
    socket.on("error", (e) => log.warn(`DNS UDP listener ${joinHostPort(host, port)}: ${e.message}`));
    await new Promise<void>((resolve, reject) => {
      socket.once("error", reject);
      socket.bind(port, host, () => {
        socket.off("error", reject);
        resolve();
      });
    });
    udpSockets.push(socket);
    listeners.push({ transport: "udp", host, port: socket.address().port });
  }

  async function listenTcp(host: string, port: number): Promise<void> {
    const server = createServer(serveTcpConnection);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen({ host, port, ipv6Only: host.includes(":") }, () => {
        server.off("error", reject);
        resolve();
      });
    });
    server.on("error", (e) => log.warn(`DNS TCP listener ${joinHostPort(host, port)}: ${e.message}`));
    tcpServers.push(server);
    const addr = server.address();
    listeners.push({ transport: "tcp", host, port: typeof addr === "object" && addr ? addr.port : port });
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    for (const c of connections) c.destroy();
    await Promise.all([
      ...udpSockets.map((s) => new Promise<void>((r) => s.close(() => r()))),
      ...tcpServers.map((s) => new Promise<void>((r) => s.close(() => r()))),
    ]);
  }

  try {
    for (const { host, port } of bindAddresses(cfg.address, cfg.upstreams)) {
      await listenUdp(host, port);
      await listenTcp(host, port);
    }
  } catch (e) {
    await close();
    throw new Error(`DNS proxy: cannot listen on ${cfg.address}: ${(e as Error).message}`);
  }

  const first = (t: "udp" | "tcp") => listeners.find((l) => l.transport === t)?.port ?? 0;
  return {
    ports: { udp: first("udp"), tcp: first("tcp") },
    listeners,
    updateNameTable(value: unknown) {
      const parsed = parseNameTable(value);
      lookup = buildLookupTable(parsed, scope, cfg.search);
      table = parsed;
    },
    isReady: () => lookup !== undefined,
    nameTable: () => table,
    ndsz: () => (table ? ndszView(table, scope) : undefined),
    stats: () => ({ ...stats }),
    resolvers: () => ({ upstreams: cfg.upstreams.map((u) => joinHostPort(u.host, u.port)), search: [...cfg.search] }),
    close,
  };
}
