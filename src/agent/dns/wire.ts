/**
 * DNS messages on the wire, on top of dns-packet (which decodes, and encodes without name
 * compression): an encoder that compresses names, and the reply truncation pilot-agent applies
 * (miekg/dns `Msg.Truncate`): a reply that fits the client's size goes out uncompressed; a larger one
 * is compressed and keeps the records that fit, with TC set when some were dropped. Written here
 * because dns-packet has no compression, and a 512-byte UDP reply needs it to carry what it can.
 */
import { Buffer } from "node:buffer";
import dnsPacket, { type Answer, type Packet, type Question } from "dns-packet";
import { is4, parseAddr } from "../netip.js";
import { nameLabels, unpackName } from "./name.js";

export type { Answer, Packet, Question } from "dns-packet";

export const MIN_MSG_SIZE = 512;
export const MAX_MSG_SIZE = 65535;
export const HEADER_SIZE = 12;

export const FLAG_QR = 0x8000;
export const FLAG_AA = 0x0400;
export const FLAG_TC = 0x0200;
export const FLAG_RD = 0x0100;
export const FLAG_CD = 0x0010;

export const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;
export const OPCODE = { QUERY: 0, NOTIFY: 4 } as const;

/** The 4-bit opcode of a flags word. */
export const opcodeOf = (flags: number): number => (flags >> 11) & 0xf;
/** The 4-bit rcode of a flags word. */
export const rcodeOf = (flags: number): number => flags & 0xf;

interface RecordCodec {
  encode(record: Answer | Question, buf?: Buffer, offset?: number): Buffer;
}
const codecs = dnsPacket as unknown as { answer: RecordCodec; question: RecordCodec };

const TYPE_CODES: Record<string, number> = { A: 1, NS: 2, CNAME: 5, PTR: 12, MX: 15, AAAA: 28, OPT: 41 };
const CLASS_CODES: Record<string, number> = { IN: 1, CS: 2, CH: 3, HS: 4, ANY: 255 };
/** Types whose RDATA names may be compressed (RFC 3597 §4: only the well-known ones). */
const NAME_RDATA = new Set(["CNAME", "NS", "PTR"]);

function classCode(klass: unknown, flush: unknown): number {
  let code = 1;
  if (typeof klass === "string") {
    const unknown = /^UNKNOWN_(\d+)$/.exec(klass);
    code = CLASS_CODES[klass.toUpperCase()] ?? (unknown ? Number(unknown[1]) & 0x7fff : 0);
  }
  return flush === true ? code | 0x8000 : code;
}

class Writer {
  buf = Buffer.alloc(512);
  off = 0;
  /** Name suffix → offset of its first occurrence, when compressing. */
  readonly names: Map<string, number> | undefined;

  constructor(compress: boolean) {
    this.names = compress ? new Map() : undefined;
  }

  private room(n: number): void {
    if (this.off + n <= this.buf.length) return;
    const bigger = Buffer.alloc(Math.max(this.buf.length * 2, this.off + n));
    this.buf.copy(bigger, 0, 0, this.off);
    this.buf = bigger;
  }

  u8(v: number): void {
    this.room(1);
    this.buf.writeUInt8(v, this.off);
    this.off += 1;
  }

  u16(v: number): void {
    this.room(2);
    this.buf.writeUInt16BE(v & 0xffff, this.off);
    this.off += 2;
  }

  u32(v: number): void {
    this.room(4);
    this.buf.writeUInt32BE(v >>> 0, this.off);
    this.off += 4;
  }

  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.off);
    this.off += b.length;
  }

  /** Writes a presentation-form name (escapes as miekg/dns reads them), compressed when asked. */
  name(text: string): void {
    const labels = nameLabels(text);
    // Each suffix's wire form, as text, is its compression key.
    const keys = this.names ? labels.map((l) => String.fromCharCode(l.length) + Buffer.from(l).toString("latin1")) : [];
    let length = 1;
    for (let i = 0; i < labels.length; i++) {
      const pointer = this.names?.get(keys.slice(i).join(""));
      if (pointer !== undefined) {
        this.u16(0xc000 | pointer);
        return;
      }
      if (this.names && this.off < 0x3fff) this.names.set(keys.slice(i).join(""), this.off);
      const label = labels[i] as Uint8Array;
      if (label.length === 0 || label.length > 63) throw new Error(`DNS name ${JSON.stringify(text)}: bad label`);
      length += label.length + 1;
      if (length > 255) throw new Error(`DNS name ${JSON.stringify(text)}: longer than 255 bytes`);
      this.u8(label.length);
      this.bytes(label);
    }
    this.u8(0);
  }

  /** Writes type, class and TTL for a record whose RDATA we encode ourselves; returns where RDLENGTH goes. */
  private fixed(type: number, r: Answer): number {
    const rr = r as { class?: unknown; flush?: unknown; ttl?: number };
    this.u16(type);
    this.u16(classCode(rr.class ?? "IN", rr.flush));
    this.u32(rr.ttl ?? 0);
    const at = this.off;
    this.u16(0);
    return at;
  }

  private endRdata(at: number): void {
    this.buf.writeUInt16BE(this.off - at - 2, at);
  }

  question(q: Question): void {
    this.name(q.name);
    // dns-packet writes type and class; the owner name is ours (it may be compressed).
    const scratch = Buffer.alloc(5);
    codecs.question.encode({ ...q, name: "." }, scratch, 0);
    const tail = scratch.subarray(1);
    tail.writeUInt16BE(classCode(q.class ?? "IN", false), 2);
    this.bytes(tail);
  }

  record(r: Answer): void {
    if (r.type === "OPT") {
      this.bytes(codecs.answer.encode({ ...r, name: "." }));
      return;
    }
    this.name(r.name);
    const data = (r as { data?: unknown }).data;
    if (r.type === "A" || r.type === "AAAA") {
      const addr = parseAddr(String(data));
      if (is4(addr) !== (r.type === "A")) throw new Error(`DNS ${r.type} record ${JSON.stringify(data)}: wrong family`);
      const at = this.fixed(TYPE_CODES[r.type] as number, r);
      this.bytes(Uint8Array.from(addr.bytes));
      this.endRdata(at);
      return;
    }
    if (NAME_RDATA.has(r.type) || r.type === "MX") {
      const at = this.fixed(TYPE_CODES[r.type] as number, r);
      if (r.type === "MX") {
        const mx = data as { preference?: number; exchange: string };
        this.u16(mx.preference ?? 0);
        this.name(mx.exchange);
      } else {
        this.name(String(data));
      }
      this.endRdata(at);
      return;
    }
    // Everything else as dns-packet encodes it, never compressed inside.
    const tail = codecs.answer.encode({ ...r, name: "." } as Answer).subarray(1);
    tail.writeUInt16BE(classCode((r as { class?: unknown }).class ?? "IN", (r as { flush?: unknown }).flush), 2);
    this.bytes(tail);
  }

  header(m: Packet, counts: [number, number, number, number]): void {
    this.u16(m.id ?? 0);
    this.u16(((m.flags ?? 0) & 0x7fff) | (m.type === "response" ? FLAG_QR : 0));
    for (const c of counts) this.u16(c);
  }

  result(): Buffer {
    return this.buf.subarray(0, this.off);
  }
}

function sections(m: Packet): [Question[], Answer[], Answer[], Answer[]] {
  return [m.questions ?? [], m.answers ?? [], m.authorities ?? [], m.additionals ?? []];
}

/** Encodes a message, compressing names when asked. Throws on what cannot be encoded (a bad name or address). */
export function encodeMessage(m: Packet, compress = false): Buffer {
  const [qs, an, ns, ar] = sections(m);
  const w = new Writer(compress);
  w.header(m, [qs.length, an.length, ns.length, ar.length]);
  for (const q of qs) w.question(q);
  for (const list of [an, ns, ar]) for (const r of list) w.record(r);
  return w.result();
}

/**
 * The message cut to `size` bytes as miekg/dns `Truncate` does: unchanged when it fits uncompressed;
 * otherwise compressed, with the OPT record kept (and counted), records kept in order while they fit,
 * and TC set when any was dropped.
 */
export function truncate(m: Packet, requested: number): { message: Packet; compress: boolean } {
  let size = Math.max(requested, MIN_MSG_SIZE);
  if (encodeMessage(m, false).length <= size) return { message: m, compress: false };
  const [qs, an, ns, ar] = sections(m);
  const optAt = ar.findIndex((r) => r.type === "OPT");
  const opt = optAt >= 0 ? ar[optAt] : undefined;
  const extra = optAt >= 0 ? [...ar.slice(0, optAt), ...ar.slice(optAt + 1)] : ar;
  if (opt) {
    const ow = new Writer(false);
    ow.record(opt);
    size -= ow.off;
  }
  const w = new Writer(true);
  w.off = HEADER_SIZE;
  for (const q of qs) w.question(q);
  let full = w.off >= size;
  const keep = (list: Answer[]): number => {
    if (full) return 0;
    for (let i = 0; i < list.length; i++) {
      w.record(list[i] as Answer);
      if (w.off > size) {
        full = true;
        return i;
      }
      if (w.off === size) {
        full = true;
        return i + 1;
      }
    }
    return list.length;
  };
  const nAn = keep(an);
  const nNs = keep(ns);
  const nAr = keep(extra);
  const dropped = nAn < an.length || nNs < ns.length || nAr < extra.length;
  const additionals = extra.slice(0, nAr);
  if (opt) additionals.push(opt);
  return {
    message: {
      ...m,
      flags: (m.flags ?? 0) | (dropped ? FLAG_TC : 0),
      answers: an.slice(0, nAn),
      authorities: ns.slice(0, nNs),
      additionals,
    },
    compress: true,
  };
}

/** Truncates to `size` and encodes. */
export function packReply(m: Packet, size: number): Buffer {
  const { message, compress } = truncate(m, size);
  return encodeMessage(message, compress);
}

/**
 * Decodes a message with dns-packet; throws on a malformed one. The questions' names are read again
 * in miekg/dns's presentation form (escapes kept), since they are what the proxy looks up and echoes;
 * names in the record sections stay as dns-packet reads them.
 */
export function decodeMessage(buf: Uint8Array): ReturnType<typeof dnsPacket.decode> {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const message = dnsPacket.decode(b);
  let off = HEADER_SIZE;
  for (const q of message.questions ?? []) {
    const { name, next } = unpackName(b, off);
    q.name = name === "." ? "." : name.slice(0, -1);
    off = next + 4;
  }
  return message;
}

/** The largest reply the client takes: 64K over TCP; over UDP its EDNS0 size, at least 512. */
export function replySizeLimit(transport: "udp" | "tcp", request: Packet): number {
  if (transport === "tcp") return MAX_MSG_SIZE;
  const opt = (request.additionals ?? []).find((r) => r.type === "OPT") as { udpPayloadSize?: number } | undefined;
  const size = opt?.udpPayloadSize ?? 0;
  return Math.max(size, MIN_MSG_SIZE);
}
