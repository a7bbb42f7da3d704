/**
 * The gate every incoming message passes before it is handled (miekg/dns's server with its default
 * accept function, which pilot-agent uses): too short for a header → dropped; a response → ignored;
 * an opcode other than QUERY/NOTIFY → NOTIMP; not exactly one question, or more records than a query
 * carries, or a body that does not decode → FORMERR. Such a reply is the request's header as miekg
 * turns it around (`SetRcodeFormatError`: its flags kept, QR set, AA and Z cleared, the opcode QUERY
 * for FORMERR) with, after a failed unpack, the question it had read; no records.
 */
import { Buffer } from "node:buffer";
import { nameLabels, unpackName } from "./name.js";
import { decodeMessage, FLAG_QR, HEADER_SIZE, OPCODE, opcodeOf, type Packet, RCODE } from "./wire.js";

export type DecodedQuery = ReturnType<typeof decodeMessage>;

export type Gate =
  | { kind: "query"; query: DecodedQuery }
  | { kind: "reject"; reply: Buffer; reason: string }
  | { kind: "drop"; reason: string };

const OPCODE_BITS = 0x7800;
const FLAG_AA = 0x0400;
const FLAG_Z = 0x0040;

/** The request's header turned into a reply with `rcode`, and the question's bytes when it has one. */
function rejectReply(request: Buffer, opcode: number, rcode: number, question?: Buffer): Buffer {
  const b = Buffer.alloc(HEADER_SIZE + (question?.length ?? 0));
  b.writeUInt16BE(request.readUInt16BE(0), 0);
  const kept = request.readUInt16BE(2) & ~(OPCODE_BITS | FLAG_AA | FLAG_Z | 0xf);
  b.writeUInt16BE(kept | FLAG_QR | (opcode << 11) | rcode, 2);
  if (question) {
    b.writeUInt16BE(1, 4);
    question.copy(b, HEADER_SIZE);
  }
  return b;
}

/** The first question as miekg/dns unpacks it, packed again (name uncompressed), or undefined. */
function firstQuestion(b: Buffer): Buffer | undefined {
  try {
    const { next } = unpackName(b, HEADER_SIZE);
    if (next + 4 > b.length) return undefined;
    const labels = nameLabels(unpackName(b, HEADER_SIZE).name);
    const parts = labels.flatMap((l) => [Buffer.from([l.length]), Buffer.from(l)]);
    return Buffer.concat([...parts, Buffer.from([0]), b.subarray(next, next + 4)]);
  } catch {
    return undefined;
  }
}

/**
 * Every question and record fits in the message (miekg/dns fails the unpack with ErrBuf where one
 * runs past the end, as in a UDP query cut at 512 bytes; dns-packet would read such a record short).
 */
function checkLengths(b: Buffer, questions: number, records: number): void {
  let off = HEADER_SIZE;
  for (let i = 0; i < questions; i++) {
    off = unpackName(b, off).next + 4;
    if (off > b.length) throw new Error("question runs past the end of the message");
  }
  for (let i = 0; i < records; i++) {
    off = unpackName(b, off).next + 10;
    if (off > b.length) throw new Error("record header runs past the end of the message");
    off += b.readUInt16BE(off - 2);
    if (off > b.length) throw new Error("record data runs past the end of the message");
  }
}

/** Decides what to do with the bytes of one incoming message. Never throws. */
export function acceptQuery(bytes: Uint8Array): Gate {
  if (bytes.length < HEADER_SIZE) return { kind: "drop", reason: "shorter than a DNS header" };
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const flags = b.readUInt16BE(2);
  if (flags & FLAG_QR) return { kind: "drop", reason: "a response, not a query" };
  const opcode = opcodeOf(flags);
  if (opcode !== OPCODE.QUERY && opcode !== OPCODE.NOTIFY)
    return { kind: "reject", reply: rejectReply(b, opcode, RCODE.NOTIMP), reason: `opcode ${opcode}` };
  const [qd, an, ns, ar] = [b.readUInt16BE(4), b.readUInt16BE(6), b.readUInt16BE(8), b.readUInt16BE(10)];
  if (qd !== 1 || an > 1 || ns > 1 || ar > 2)
    return {
      kind: "reject",
      reply: rejectReply(b, OPCODE.QUERY, RCODE.FORMERR),
      reason: `section counts ${qd}/${an}/${ns}/${ar}`,
    };
  let query: DecodedQuery;
  try {
    checkLengths(b, qd, an + ns + ar);
    query = decodeMessage(b);
  } catch (e) {
    return {
      kind: "reject",
      reply: rejectReply(b, OPCODE.QUERY, RCODE.FORMERR, firstQuestion(b)),
      reason: `undecodable: ${(e as Error)?.message ?? String(e)}`,
    };
  }
  return { kind: "query", query };
}

/** A reply to a request (miekg/dns `SetReply`): same ID and opcode, RD and CD copied, the first question. */
export function replyTo(request: Packet, rcode: number = RCODE.NOERROR): Packet {
  const flags = request.flags ?? 0;
  const keep = flags & (0x7800 | 0x0100 | 0x0010); // opcode, RD, CD
  const question = request.questions?.[0];
  return {
    id: request.id ?? 0,
    type: "response",
    flags: keep | rcode,
    questions: question ? [question] : [],
    answers: [],
    authorities: [],
    additionals: [],
  };
}
