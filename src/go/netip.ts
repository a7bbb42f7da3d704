/**
 * Go's `net/netip` as the Go Istio builds with (1.21) has it: ParseAddr and ParsePrefix (strict IPv4
 * with no leading zeros and exactly four fields, IPv6 with `::`, an embedded IPv4 tail and a zone;
 * prefixes keep their host bits, `10.0.0.1/8` stays as written), the address predicates the capture
 * code asks (Is4, Is4In6, Unmap, IsLoopback...) and String (RFC 5952 IPv6). Parsing returns the value
 * or the text of Go's error, quoted with strconv.Quote as Go does.
 */
import { atoi, quote } from "./strconv.js";

/** An address: 4 bytes (IPv4) or 16 bytes (IPv6, including IPv4-mapped ones); a zone only on IPv6. */
export interface Addr {
  bytes: number[];
  zone?: string;
}

/** An address with a prefix length; the address keeps its host bits, as in netip. */
export interface Prefix {
  addr: Addr;
  bits: number;
}

/** A parsed value, or Go's error text. */
export type Parsed<T> = { value: T; err?: undefined } | { value?: undefined; err: string };

/** Go's parseAddrError: the input, why, and optionally the unparsed rest where it failed. */
class AddrError {
  constructor(
    readonly input: string,
    readonly msg: string,
    readonly at = "",
  ) {}
  text(): string {
    const base = `ParseAddr(${quote(this.input)}): ${this.msg}`;
    return this.at === "" ? base : `${base} (at ${quote(this.at)})`;
  }
}

const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";

function parseIPv4(s: string): number[] | AddrError {
  const fields: number[] = [];
  let val = 0;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (isDigit(c)) {
      if (digits === 1 && val === 0) return new AddrError(s, "IPv4 field has octet with leading zero");
      val = val * 10 + Number(c);
      digits++;
      if (val > 255) return new AddrError(s, "IPv4 field has value >255");
    } else if (c === ".") {
      if (i === 0 || i === s.length - 1 || s[i - 1] === ".") {
        return new AddrError(s, "IPv4 field must have at least one digit", s.slice(i));
      }
      if (fields.length === 3) return new AddrError(s, "IPv4 address too long");
      fields.push(val);
      val = 0;
      digits = 0;
    } else {
      return new AddrError(s, "unexpected character", s.slice(i));
    }
  }
  if (fields.length < 3) return new AddrError(s, "IPv4 address too short");
  fields.push(val);
  return fields;
}

function hexValue(c: string | undefined): number {
  if (c === undefined) return -1;
  if (c >= "0" && c <= "9") return c.charCodeAt(0) - 48;
  if (c >= "a" && c <= "f") return c.charCodeAt(0) - 87;
  if (c >= "A" && c <= "F") return c.charCodeAt(0) - 55;
  return -1;
}

function withZone(bytes: number[], zone: string): Addr {
  return zone === "" ? { bytes } : { bytes, zone };
}

function parseIPv6(input: string): Addr | AddrError {
  let s = input;
  let zone = "";
  const pct = s.indexOf("%");
  if (pct !== -1) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (zone === "") return new AddrError(input, "zone must be a non-empty string");
  }
  const ip: number[] = new Array(16).fill(0);
  let ellipsis = -1;
  if (s.startsWith("::")) {
    ellipsis = 0;
    s = s.slice(2);
    if (s === "") return withZone(ip, zone);
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const d = hexValue(s[off]);
      if (d < 0) break;
      acc = acc * 16 + d;
      if (off > 3) return new AddrError(input, "each colon-separated field must have at most 4 hex digits", s);
      if (acc > 0xffff) return new AddrError(input, "IPv6 field has value >=2^16", s);
    }
    if (off === 0) return new AddrError(input, "each colon-separated field must have at least one digit", s);
    if (off < s.length && s[off] === ".") {
      if (ellipsis < 0 && i !== 12) {
        return new AddrError(input, "embedded IPv4 address must replace the final 2 fields of the address", s);
      }
      if (i + 4 > 16) {
        return new AddrError(input, "too many hex fields to fit an embedded IPv4 at the end of the address", s);
      }
      // Go 1.21 parses the tail as an address of its own and wraps that error.
      const v4 = parseIPv4(s);
      if (v4 instanceof AddrError) return new AddrError(input, v4.text(), s);
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
    if (s[0] !== ":") return new AddrError(input, "unexpected character, want colon", s);
    if (s.length === 1) return new AddrError(input, "colon must be followed by more characters", s);
    s = s.slice(1);
    if (s[0] === ":") {
      if (ellipsis >= 0) return new AddrError(input, "multiple :: in address", s);
      ellipsis = i;
      s = s.slice(1);
      if (s === "") break;
    }
  }
  if (s !== "") return new AddrError(input, "trailing garbage after address", s);
  if (i < 16) {
    if (ellipsis < 0) return new AddrError(input, "address string too short");
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j] as number;
    for (let j = ellipsis; j < ellipsis + n; j++) ip[j] = 0;
  } else if (ellipsis >= 0) {
    return new AddrError(input, "the :: must expand to at least one field of zeros");
  }
  return withZone(ip, zone);
}

function parseAddrOrError(s: string): Addr | AddrError {
  // The first `.`, `:` or `%` decides the family.
  for (const c of s) {
    if (c === ".") {
      const v4 = parseIPv4(s);
      return v4 instanceof AddrError ? v4 : { bytes: v4 };
    }
    if (c === ":") return parseIPv6(s);
    if (c === "%") return new AddrError(s, "missing IPv6 address");
  }
  return new AddrError(s, "unable to parse IP");
}

/** netip.ParseAddr: the address, or Go's error text. */
export function parseAddr(s: string): Parsed<Addr> {
  const a = parseAddrOrError(s);
  return a instanceof AddrError ? { err: a.text() } : { value: a };
}

/** netip.ParsePrefix: `addr/bits` with the host bits kept, or Go's error text. */
export function parsePrefix(s: string): Parsed<Prefix> {
  const fail = (msg: string) => ({ err: `netip.ParsePrefix(${quote(s)}): ${msg}` });
  const slash = s.lastIndexOf("/");
  if (slash < 0) return fail("no '/'");
  const addr = parseAddrOrError(s.slice(0, slash));
  if (addr instanceof AddrError) return fail(addr.text());
  if (addr.zone !== undefined) return fail("IPv6 zones cannot be present in a prefix");
  const bitsText = s.slice(slash + 1);
  // strconv.Atoi would take a sign and leading zeros; ParsePrefix refuses both.
  const first = bitsText[0] ?? "";
  const n = bitsText.length > 1 && (first < "1" || first > "9") ? undefined : atoi(bitsText);
  if (n === undefined || n.err !== undefined) return fail(`bad bits after slash: ${quote(bitsText)}`);
  if (n.value < 0n || n.value > (is4(addr) ? 32n : 128n)) return fail("prefix length out of range");
  return { value: { addr, bits: Number(n.value) } };
}

/** Addr.Is4: a 4-byte IPv4 address (not IPv4-mapped IPv6). */
export function is4(a: Addr): boolean {
  return a.bytes.length === 4;
}

/** Addr.Is6: IPv6, IPv4-mapped ones included. */
export function is6(a: Addr): boolean {
  return a.bytes.length === 16;
}

/** Addr.Is4In6: an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`). */
export function is4In6(a: Addr): boolean {
  if (!is6(a)) return false;
  for (let i = 0; i < 10; i++) if (a.bytes[i] !== 0) return false;
  return a.bytes[10] === 0xff && a.bytes[11] === 0xff;
}

/** Addr.Unmap: the IPv4 address inside an IPv4-mapped one; other addresses unchanged. */
export function unmap(a: Addr): Addr {
  return is4In6(a) ? { bytes: a.bytes.slice(12) } : a;
}

/** 127.0.0.0/8 or ::1 (an IPv4-mapped loopback counts). */
export function isLoopback(a: Addr): boolean {
  const u = unmap(a);
  if (is4(u)) return u.bytes[0] === 127;
  return u.bytes.slice(0, 15).every((b) => b === 0) && u.bytes[15] === 1;
}

/** 169.254.0.0/16 or fe80::/10. */
export function isLinkLocalUnicast(a: Addr): boolean {
  const u = unmap(a);
  if (is4(u)) return u.bytes[0] === 169 && u.bytes[1] === 254;
  return u.bytes[0] === 0xfe && ((u.bytes[1] as number) & 0xc0) === 0x80;
}

/** 224.0.0.0/24 or ff02::/16 (any flags nibble). */
export function isLinkLocalMulticast(a: Addr): boolean {
  const u = unmap(a);
  if (is4(u)) return u.bytes[0] === 224 && u.bytes[1] === 0 && u.bytes[2] === 0;
  return u.bytes[0] === 0xff && ((u.bytes[1] as number) & 0x0f) === 0x02;
}

/** Addr.String: dotted IPv4, `::ffff:a.b.c.d`, RFC 5952 IPv6, then `%zone`. */
export function formatAddr(a: Addr): string {
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

/** Prefix.String: `addr/bits`, the address as written (host bits kept). */
export function formatPrefix(p: Prefix): string {
  return `${formatAddr(p.addr)}/${p.bits}`;
}
