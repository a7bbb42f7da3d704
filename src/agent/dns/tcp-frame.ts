/**
 * DNS over TCP frames each message with a two-byte length (RFC 1035 §4.2.2). `frame` writes one;
 * `FrameReader` collects the messages out of a byte stream as chunks arrive.
 */
import { Buffer } from "node:buffer";

export function frame(message: Uint8Array): Buffer {
  const out = Buffer.alloc(message.length + 2);
  out.writeUInt16BE(message.length, 0);
  out.set(message, 2);
  return out;
}

export class FrameReader {
  private buffered: Buffer = Buffer.alloc(0);

  /** Adds a chunk; returns the messages it completed, in order. */
  push(chunk: Buffer): Buffer[] {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const out: Buffer[] = [];
    while (this.buffered.length >= 2) {
      const len = this.buffered.readUInt16BE(0);
      if (this.buffered.length < len + 2) break;
      out.push(Buffer.from(this.buffered.subarray(2, 2 + len)));
      this.buffered = this.buffered.subarray(2 + len);
    }
    return out;
  }

  /** Bytes received but not yet part of a whole message. */
  get pending(): number {
    return this.buffered.length;
  }
}
