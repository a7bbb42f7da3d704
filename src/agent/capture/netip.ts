/**
 * IP addresses and prefixes read and printed the way Go's `net/netip` does, which is what Istio's
 * capture code uses: strict IPv4 (no leading zeros, exactly four fields), IPv6 with `::` and an
 * embedded IPv4 tail, prefixes that keep their host bits (`10.0.0.1/8` stays as written), IPv6
 * printed in RFC 5952 form. Only what the capture rules need is here.
 */

/** An address: 4 bytes (IPv4) or 16 bytes (IPv6, including IPv4-mapped ones). */
export interface IPAddr {
  bytes: number[];
  zone?: string;
}

/** An address with a prefix length; the address keeps its host bits, as in netip. */
export interface IPPrefix {
  addr: IPAddr;
  bits: number;
}

/** A malformed address or prefix; the message reads like Go's. */
export class AddressError extends Error {
  override name = "AddressError";
}

function fail(input: string, msg: string, at?: string): never {
  const where = at !== undefined && at !== "" ? ` (at ${JSON.stringify(at)})` : "";
  throw new AddressError(`ParseAddr(${JSON.stringify(input)}): ${msg}${where}`);
}

function parseIPv4Bytes(input: string, s: string): number[] {
  const fields: number[] = [];
  let val = 0;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (digits === 1 && val === 0) fail(input, "IPv4 field has octet with leading zero");
      val = val * 10 + (c - 48);
      digits++;
      if (val > 255) fail(input, "IPv4 field has value >255");
    } else if (s[i] === ".") {
      if (i === 0 || i === s.length - 1 || s[i - 1] === ".")
        fail(input, "IPv4 field must have at least one digit", s.slice(i));
      if (fields.length === 3) fail(input, "IPv4 address too long");
      fields.push(val);
      val = 0;
      digits = 0;
    } else {
      fail(input, "unexpected character", s.slice(i));
    }
  }
  if (fields.length < 3) fail(input, "IPv4 address too short");
  fields.push(val);
  return fields;
}

function hexValue(c: string): number {
  const code = c.charCodeAt(0);
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  if (code >= 65 && code <= 70) return code - 55;
  return -1;
}

function parseIPv6(input: string): IPAddr {
  let s = input;
  let zone: string | undefined;
  const pct = s.indexOf("%");
  if (pct >= 0) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (zone === "") fail(input, "zone must be a non-empty string");
  }
  const ip: number[] = new Array(16).fill(0);
  let ellipsis = -1;
  if (s.startsWith("::")) {
    ellipsis = 0;
    s = s.slice(2);
    if (s === "") return { bytes: ip, ...(zone !== undefined ? { zone } : {}) };
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const v = hexValue(s[off] as string);
      if (v < 0) break;
      acc = acc * 16 + v;
      if (off > 3) fail(input, "each colon-separated field must have at most 4 hex digits", s);
    }
    if (off === 0) fail(input, "each colon-separated field must have at least one digit", s);
    if (off < s.length && s[off] === ".") {
      if (ellipsis < 0 && i !== 12)
        fail(input, "embedded IPv4 address must replace the final 2 fields of the address", s);
      if (i + 4 > 16) fail(input, "too many hex fields to fit an embedded IPv4 at the end of the address", s);
      const v4 = parseIPv4Bytes(input, s);
      for (let k = 0; k < 4; k++) ip[i + k] = v4[k] as number;
      s = "";
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s === "") break;
    if (s[0] !== ":") fail(input, "unexpected character, want colon", s);
    if (s.length === 1) fail(input, "colon must be followed by more characters", s);
    s = s.slice(1);
    if (s[0] === ":") {
      if (ellipsis >= 0) fail(input, "multiple :: in address", s);
      ellipsis = i;
      s = s.slice(1);
      if (s === "") break;
    }
  }
  if (s !== "") fail(input, "trailing garbage after address", s);
  if (i < 16) {
    if (ellipsis < 0) fail(input, "address string too short");
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j] as number;
    for (let j = ellipsis; j < ellipsis + n; j++) ip[j] = 0;
  } else if (ellipsis >= 0) {
    fail(input, "the :: must expand to at least one field of zeros");
  }
  return { bytes: ip, ...(zone !== undefined ? { zone } : {}) };
}

/** Parses an IPv4 or IPv6 address as `netip.ParseAddr` does; throws AddressError. */
export function parseAddr(s: string): IPAddr {
  if (s === "") fail(s, "unable to parse IP");
  for (const c of s) {
    if (c === ".") return { bytes: parseIPv4Bytes(s, s) };
    if (c === ":") return parseIPv6(s);
    if (c === "%") fail(s, "missing IPv6 address");
  }
  return fail(s, "unable to parse IP");
}

/** Parses `addr/bits` as `netip.ParsePrefix` does (host bits kept); throws AddressError. */
export function parsePrefix(s: string): IPPrefix {
  const slash = s.lastIndexOf("/");
  const bad = (msg: string): never => {
    throw new AddressError(`netip.ParsePrefix(${JSON.stringify(s)}): ${msg}`);
  };
  if (slash < 0) bad("no '/'");
  let addr: IPAddr;
  try {
    addr = parseAddr(s.slice(0, slash));
  } catch (e) {
    return bad((e as Error).message);
  }
  if (addr.zone !== undefined) bad("IPv6 zones cannot be present in a prefix");
  const bitsText = s.slice(slash + 1);
  if (!/^(0|[1-9][0-9]*)$/.test(bitsText)) bad(`bad bits after slash: ${JSON.stringify(bitsText)}`);
  const bits = Number(bitsText);
  const max = is4(addr) ? 32 : 128;
  if (bits > max) bad(`prefix length out of range`);
  return { addr, bits };
}

/** Whether the address is a 4-byte IPv4 address (not IPv4-mapped IPv6). */
export function is4(a: IPAddr): boolean {
  return a.bytes.length === 4;
}

/** Whether the address is IPv6 (IPv4-mapped ones included), as netip's Is6. */
export function is6(a: IPAddr): boolean {
  return a.bytes.length === 16;
}

/** Whether an IPv6 address is IPv4-mapped (`::ffff:a.b.c.d`). */
export function is4In6(a: IPAddr): boolean {
  if (!is6(a)) return false;
  for (let i = 0; i < 10; i++) if (a.bytes[i] !== 0) return false;
  return a.bytes[10] === 0xff && a.bytes[11] === 0xff;
}

/** The IPv4 address inside an IPv4-mapped one; other addresses unchanged. */
export function unmap(a: IPAddr): IPAddr {
  return is4In6(a) ? { bytes: a.bytes.slice(12) } : a;
}

/** 127.0.0.0/8 or ::1 (an IPv4-mapped loopback counts). */
export function isLoopback(a: IPAddr): boolean {
  const u = unmap(a);
  if (is4(u)) return u.bytes[0] === 127;
  return u.bytes.slice(0, 15).every((b) => b === 0) && u.bytes[15] === 1;
}

/** 169.254.0.0/16 or fe80::/10. */
export function isLinkLocalUnicast(a: IPAddr): boolean {
  const u = unmap(a);
  if (is4(u)) return u.bytes[0] === 169 && u.bytes[1] === 254;
  return u.bytes[0] === 0xfe && ((u.bytes[1] as number) & 0xc0) === 0x80;
}

/** 224.0.0.0/24 or ff02::/16 (any flags nibble). */
export function isLinkLocalMulticast(a: IPAddr): boolean {
  const u = unmap(a);
  if (is4(u)) return u.bytes[0] === 224 && u.bytes[1] === 0 && u.bytes[2] === 0;
  return u.bytes[0] === 0xff && ((u.bytes[1] as number) & 0x0f) === 0x02;
}

/** Prints an address as netip does: dotted IPv4, `::ffff:a.b.c.d`, RFC 5952 IPv6. */
export function formatAddr(a: IPAddr): string {
  const zone = a.zone !== undefined ? `%${a.zone}` : "";
  if (is4(a)) return a.bytes.join(".");
  if (is4In6(a)) return `::ffff:${a.bytes.slice(12).join(".")}${zone}`;
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((a.bytes[i] as number) << 8) | (a.bytes[i + 1] as number));
  // The longest run of two or more zero groups (the first one on a tie) becomes "::".
  let zeroStart = -1;
  let zeroEnd = -1;
  for (let i = 0; i < 8; i++) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i >= 2 && j - i > zeroEnd - zeroStart) {
      zeroStart = i;
      zeroEnd = j;
    }
  }
  let out = "";
  for (let i = 0; i < 8; i++) {
    if (i === zeroStart) {
      out += "::";
      i = zeroEnd;
      if (i >= 8) break;
    } else if (i > 0) {
      out += ":";
    }
    out += (groups[i] as number).toString(16);
  }
  return out + zone;
}

/** `addr/bits`, the address as written (host bits kept). */
export function formatPrefix(p: IPPrefix): string {
  return `${formatAddr(p.addr)}/${p.bits}`;
}
