/**
 * A plain DNS client for tests, conformance and benchmarks: one query over UDP (no EDNS0 unless asked,
 * 64K receive buffer) or TCP, the reply decoded; rejects after a timeout or on a reply with another ID.
 */
import type { Buffer } from "node:buffer";
import { randomInt } from "node:crypto";
import { createSocket } from "node:dgram";
import { connect } from "node:net";
import { FrameReader, frame } from "../tcp-frame.js";
import { type Answer, decodeMessage, encodeMessage, FLAG_RD, type Packet } from "../wire.js";

export interface ClientQuery {
  name: string;
  type: string;
  class?: string;
  recursionDesired?: boolean;
  edns0?: { udpSize: number; do?: boolean };
  id?: number;
}

export function queryMessage(q: ClientQuery): Buffer {
  const additionals: Answer[] = [];
  if (q.edns0)
    additionals.push({
      type: "OPT",
      name: ".",
      udpPayloadSize: q.edns0.udpSize,
      flags: q.edns0.do ? 0x8000 : 0,
      options: [],
    } as unknown as Answer);
  const packet: Packet = {
    id: q.id ?? randomInt(0, 0x10000),
    type: "query",
    flags: q.recursionDesired === false ? 0 : FLAG_RD,
    questions: [{ name: q.name, type: q.type as "A", class: (q.class ?? "IN") as "IN" }],
    additionals,
  };
  return encodeMessage(packet);
}

export type DecodedReply = ReturnType<typeof decodeMessage>;

/** Sends raw bytes and resolves to the raw reply. */
export function exchangeRaw(
  transport: "udp" | "tcp",
  host: string,
  port: number,
  message: Buffer,
  timeoutMs = 3000,
): Promise<Buffer> {
  const id = message.length >= 2 ? message.readUInt16BE(0) : -1;
  return new Promise((resolve, reject) => {
    let cleanup = () => {};
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`no ${transport} reply within ${timeoutMs} ms`));
    }, timeoutMs);
    const done = (err: Error | undefined, reply?: Buffer) => {
      clearTimeout(timer);
      cleanup();
      if (err) reject(err);
      else resolve(reply as Buffer);
    };
    if (transport === "udp") {
      const s = createSocket(host.includes(":") ? "udp6" : "udp4");
      cleanup = () => s.close();
      s.on("error", (e) => done(e));
      s.on("message", (msg) => {
        if (msg.length >= 2 && msg.readUInt16BE(0) === id) done(undefined, msg);
      });
      s.send(message, port, host);
    } else {
      const s = connect({ host, port });
      cleanup = () => s.destroy();
      const reader = new FrameReader();
      s.on("error", (e) => done(e));
      s.on("connect", () => s.write(frame(message)));
      s.on("data", (chunk: Buffer) => {
        const [reply] = reader.push(chunk);
        if (reply) done(undefined, reply);
      });
    }
  });
}

/** One query; resolves to the decoded reply (its ID checked). */
export async function query(
  transport: "udp" | "tcp",
  host: string,
  port: number,
  q: ClientQuery,
  timeoutMs = 3000,
): Promise<DecodedReply> {
  const message = queryMessage(q);
  const raw = await exchangeRaw(transport, host, port, message, timeoutMs);
  const reply = decodeMessage(raw);
  if (reply.id !== message.readUInt16BE(0)) throw new Error("reply with another ID");
  return reply;
}
