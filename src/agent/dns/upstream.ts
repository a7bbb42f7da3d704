/**
 * Forwarding to the upstream resolvers (pilot-agent's `queryUpstream`): the query goes out as it came
 * in, over the transport it came in on. UDP replies are read into a 512-byte buffer unless the query
 * has an EDNS0 size above that, so a larger datagram counts as a failed exchange, as in miekg/dns.
 * Sequential mode tries the servers in shuffled order until one answers; parallel mode asks all and
 * takes the first answer. Every exchange has one deadline; when all fail the caller answers SERVFAIL.
 */
import type { Buffer } from "node:buffer";
import { createSocket } from "node:dgram";
import { connect } from "node:net";
import { FrameReader, frame } from "./tcp-frame.js";
import { decodeMessage, FLAG_QR, HEADER_SIZE, MAX_MSG_SIZE } from "./wire.js";

export interface Upstream {
  host: string;
  port: number;
}

export interface ExchangeOptions {
  transport: "udp" | "tcp";
  /** Bytes a UDP reply may have (the query's EDNS0 size if ≥ 512, else 512). */
  udpBufferSize: number;
  timeoutMs: number;
}

/** Checks a reply the way the Go client does before returning it: a response to our ID that decodes. */
function checkReply(reply: Buffer, id: number): void {
  if (reply.length < HEADER_SIZE) throw new Error("short reply");
  if (reply.readUInt16BE(0) !== id) throw new Error("reply ID mismatch");
  if (!(reply.readUInt16BE(2) & FLAG_QR)) throw new Error("reply is not a response");
  decodeMessage(reply);
}

/**
 * One pending exchange: settles once — with the reply, an error, the deadline or the caller's cancel —
 * and then releases what it holds.
 */
function settleOnce(
  opts: ExchangeOptions,
  signal: AbortSignal,
  release: () => void,
  resolve: (reply: Buffer) => void,
  reject: (err: Error) => void,
): { finish: (err: Error | undefined, reply?: Buffer) => void; done: () => boolean } {
  let settled = false;
  const finish = (err: Error | undefined, reply?: Buffer) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
    release();
    if (err) reject(err);
    else resolve(reply as Buffer);
  };
  const onAbort = () => finish(new Error("cancelled"));
  const timer = setTimeout(() => finish(new Error(`timeout after ${opts.timeoutMs} ms`)), opts.timeoutMs);
  signal.addEventListener("abort", onAbort);
  return { finish, done: () => settled };
}

/** The reply if usable, else the error that says why not. */
function usable(reply: Buffer, id: number): Error | undefined {
  try {
    checkReply(reply, id);
    return undefined;
  } catch (e) {
    return e as Error;
  }
}

function exchangeUdp(query: Buffer, to: Upstream, opts: ExchangeOptions, signal: AbortSignal): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = createSocket(to.host.includes(":") ? "udp6" : "udp4");
    const id = query.readUInt16BE(0);
    const { finish, done } = settleOnce(opts, signal, () => socket.close(), resolve, reject);
    socket.on("error", (e) => finish(e));
    socket.on("message", (msg, rinfo) => {
      if (rinfo.port !== to.port) return;
      // A datagram longer than the read buffer arrives cut short in Go and fails to unpack.
      if (msg.length > opts.udpBufferSize) return finish(new Error(`reply of ${msg.length} bytes overflows buffer`));
      if (msg.length >= 2 && msg.readUInt16BE(0) !== id) return; // a late reply to an earlier query
      finish(usable(msg, id), msg);
    });
    socket.connect(to.port, to.host, () => {
      if (!done()) socket.send(query, (e) => e && finish(e));
    });
  });
}

function exchangeTcp(query: Buffer, to: Upstream, opts: ExchangeOptions, signal: AbortSignal): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const id = query.readUInt16BE(0);
    const socket = connect({ host: to.host, port: to.port });
    const reader = new FrameReader();
    const { finish } = settleOnce(opts, signal, () => socket.destroy(), resolve, reject);
    socket.on("error", (e) => finish(e));
    socket.on("close", () => finish(new Error("connection closed before the reply")));
    socket.on("connect", () => socket.write(frame(query)));
    socket.on("data", (chunk: Buffer) => {
      const [reply] = reader.push(chunk);
      if (reply) finish(usable(reply, id), reply);
      else if (reader.pending > MAX_MSG_SIZE + 2) finish(new Error("reply too long"));
    });
  });
}

/** One exchange with one upstream; rejects on timeout, a transport error or an unusable reply. */
export function exchange(query: Buffer, to: Upstream, opts: ExchangeOptions, signal: AbortSignal): Promise<Buffer> {
  return opts.transport === "udp" ? exchangeUdp(query, to, opts, signal) : exchangeTcp(query, to, opts, signal);
}

function shuffled<T>(list: readonly T[]): T[] {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** Sequential forwarding: each server in turn (shuffled) until one answers; undefined when none did. */
export async function forwardSequential(
  query: Buffer,
  upstreams: readonly Upstream[],
  opts: ExchangeOptions,
  onFailure: (to: Upstream, err: Error) => void,
): Promise<Buffer | undefined> {
  const signal = new AbortController().signal;
  for (const to of shuffled(upstreams)) {
    try {
      return await exchange(query, to, opts, signal);
    } catch (e) {
      onFailure(to, e as Error);
    }
  }
  return undefined;
}

/** Parallel forwarding: all servers at once, the first answer wins; undefined when all failed. */
export function forwardParallel(
  query: Buffer,
  upstreams: readonly Upstream[],
  opts: ExchangeOptions,
  onFailure: (to: Upstream, err: Error) => void,
): Promise<Buffer | undefined> {
  if (upstreams.length === 0) return Promise.resolve(undefined);
  const cancel = new AbortController();
  let failures = 0;
  return new Promise((resolve) => {
    for (const to of upstreams) {
      exchange(query, to, opts, cancel.signal).then(
        (reply) => {
          cancel.abort();
          resolve(reply);
        },
        (e: Error) => {
          if (cancel.signal.aborted) return;
          onFailure(to, e);
          if (++failures === upstreams.length) resolve(undefined);
        },
      );
    }
  });
}
