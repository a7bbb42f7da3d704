/**
 * Domain names in miekg/dns's presentation form, which is what pilot-agent's DNS proxy looks names up
 * by: a label byte that is `.`, space, `'`, `@`, `;`, `(`, `)`, `"` or `\` is escaped with a backslash,
 * any other byte outside `!`…`~` as `\DDD` (decimal). So one label `a.b` reads `a\.b.` and does not
 * match the two labels `a.b.` of the name table. dns-packet joins labels with dots unescaped (and
 * decodes bytes as UTF-8), so names are read and written here (msg.go `UnpackDomainName`,
 * `packDomainName`, `SplitDomainName`).
 */

import { Buffer } from "node:buffer";

/** Wire octets a name may take (RFC 1035 §2.3.4). */
const MAX_WIRE_OCTETS = 255;
/** miekg/dns `maxCompressionPointers`. */
const MAX_POINTERS = (MAX_WIRE_OCTETS + 1) / 2 - 2;

const SPECIAL = new Set([".", " ", "'", "@", ";", "(", ")", '"', "\\"].map((c) => c.charCodeAt(0)));

export class DnsNameError extends Error {}

function escapeLabel(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) {
    if (SPECIAL.has(b)) out += `\\${String.fromCharCode(b)}`;
    else if (b < 0x20 || b > 0x7e) out += `\\${String(b).padStart(3, "0")}`;
    else out += String.fromCharCode(b);
  }
  return out;
}

/** The name at `offset` of a message in presentation form (`.` for the root), and the offset after it. */
export function unpackName(msg: Uint8Array, offset: number): { name: string; next: number } {
  let off = offset;
  let next = -1;
  let budget = MAX_WIRE_OCTETS;
  let pointers = 0;
  let name = "";
  for (;;) {
    if (off >= msg.length) throw new DnsNameError("DNS name runs past the end of the message");
    const c = msg[off++] as number;
    if (c === 0) break;
    if ((c & 0xc0) === 0) {
      if (off + c > msg.length) throw new DnsNameError("DNS name label runs past the end of the message");
      budget -= c + 1;
      if (budget <= 0) throw new DnsNameError(`DNS name longer than ${MAX_WIRE_OCTETS} octets`);
      name += `${escapeLabel(msg.subarray(off, off + c))}.`;
      off += c;
    } else if ((c & 0xc0) === 0xc0) {
      if (off >= msg.length) throw new DnsNameError("DNS name pointer runs past the end of the message");
      const low = msg[off++] as number;
      if (pointers === 0) next = off;
      if (++pointers > MAX_POINTERS) throw new DnsNameError("DNS name has too many compression pointers");
      off = ((c ^ 0xc0) << 8) | low;
    } else {
      throw new DnsNameError("DNS name has a reserved label type");
    }
  }
  return { name: name === "" ? "." : name, next: pointers === 0 ? off : next };
}

/** The wire labels of a presentation-form name (`\X` and `\DDD` unescaped; other text as UTF-8). */
export function nameLabels(text: string): Uint8Array[] {
  if (text === "" || text === ".") return [];
  if (!text.includes("\\")) {
    // No escapes (nearly every name): the labels are the text between the dots.
    const parts = text.split(".");
    if (parts.at(-1) === "") parts.pop();
    return parts.map((part) => {
      if (part === "") throw new DnsNameError(`DNS name ${JSON.stringify(text)}: empty label`);
      return Buffer.from(part, "utf8");
    });
  }
  const labels: Uint8Array[] = [];
  let current: number[] = [];
  const encoder = new TextEncoder();
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === "\\") {
      const digits = text.slice(i + 1, i + 4);
      if (/^[0-9]{3}$/.test(digits)) {
        const v = Number(digits);
        if (v > 255) throw new DnsNameError(`DNS name ${JSON.stringify(text)}: escape \\${digits} is not a byte`);
        current.push(v);
        i += 3;
      } else if (i + 1 < text.length) {
        current.push(...encoder.encode(text[i + 1] as string));
        i += 1;
      } else {
        throw new DnsNameError(`DNS name ${JSON.stringify(text)}: ends in a backslash`);
      }
    } else if (ch === ".") {
      if (current.length === 0) throw new DnsNameError(`DNS name ${JSON.stringify(text)}: empty label`);
      labels.push(Uint8Array.from(current));
      current = [];
    } else {
      const cp = text.codePointAt(i) as number;
      const s = String.fromCodePoint(cp);
      current.push(...encoder.encode(s));
      i += s.length - 1;
    }
  }
  if (current.length > 0) labels.push(Uint8Array.from(current));
  return labels;
}

/** The labels of a presentation-form name as text, escapes kept (miekg/dns `SplitDomainName`). */
export function splitName(text: string): string[] {
  const out: string[] = [];
  let label = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === "\\" && i + 1 < text.length) {
      label += ch + (text[i + 1] as string);
      i += 1;
    } else if (ch === ".") {
      if (label !== "") out.push(label);
      label = "";
    } else {
      label += ch;
    }
  }
  if (label !== "") out.push(label);
  return out;
}
