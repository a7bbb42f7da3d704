/**
 * Go's `net/netip.ParsePrefix`, which the injector uses to check the CIDR lists of the
 * `traffic.sidecar.istio.io/{include,exclude}OutboundIPRanges` annotations. Only the verdict and the
 * error text matter here (the annotation error quotes Go's message), so parsing yields nothing but
 * an error message or undefined.
 */
import { atoi, quote } from "../go/strconv.js";

/** A parse failure: Go's `parseAddrError` (`in`, `msg`, optional `at`). */
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

interface ParsedAddr {
  is6: boolean;
  zone: string;
}

const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";

function parseIPv4(s: string): ParsedAddr | AddrError {
  let val = 0;
  let pos = 0;
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
      if (pos === 3) return new AddrError(s, "IPv4 address too long");
      pos++;
      val = 0;
      digits = 0;
    } else {
      return new AddrError(s, "unexpected character", s.slice(i));
    }
  }
  if (pos < 3) return new AddrError(s, "IPv4 address too short");
  return { is6: false, zone: "" };
}

function hexValue(c: string | undefined): number {
  if (c === undefined) return -1;
  if (c >= "0" && c <= "9") return c.charCodeAt(0) - 48;
  if (c >= "a" && c <= "f") return c.charCodeAt(0) - 87;
  if (c >= "A" && c <= "F") return c.charCodeAt(0) - 55;
  return -1;
}

function parseIPv6(input: string): ParsedAddr | AddrError {
  let s = input;
  let zone = "";
  const pct = s.indexOf("%");
  if (pct !== -1) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (zone === "") return new AddrError(input, "zone must be a non-empty string");
  }
  let ellipsis = -1;
  if (s.length >= 2 && s[0] === ":" && s[1] === ":") {
    ellipsis = 0;
    s = s.slice(2);
    if (s.length === 0) return { is6: true, zone };
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
      const v4 = parseIPv4(s);
      if (v4 instanceof AddrError) return new AddrError(input, v4.text(), s);
      s = "";
      i += 4;
      break;
    }
    i += 2;
    s = s.slice(off);
    if (s.length === 0) break;
    if (s[0] !== ":") return new AddrError(input, "unexpected character, want colon", s);
    if (s.length === 1) return new AddrError(input, "colon must be followed by more characters", s);
    s = s.slice(1);
    if (s[0] === ":") {
      if (ellipsis >= 0) return new AddrError(input, "multiple :: in address", s);
      ellipsis = i;
      s = s.slice(1);
      if (s.length === 0) break;
    }
  }
  if (s.length !== 0) return new AddrError(input, "trailing garbage after address", s);
  if (i < 16) {
    if (ellipsis < 0) return new AddrError(input, "address string too short");
  } else if (ellipsis >= 0) {
    return new AddrError(input, "the :: must expand to at least one field of zeros");
  }
  return { is6: true, zone };
}

/** Go's `netip.ParseAddr`: the first `.`, `:` or `%` decides the family. */
function parseAddr(s: string): ParsedAddr | AddrError {
  for (const c of s) {
    if (c === ".") return parseIPv4(s);
    if (c === ":") return parseIPv6(s);
    if (c === "%") return new AddrError(s, "missing IPv6 address");
  }
  return new AddrError(s, "unable to parse IP");
}

/** Go's `netip.ParsePrefix`: the error text it would return, or undefined when `s` is a valid prefix. */
export function parsePrefixError(s: string): string | undefined {
  const fail = (msg: string) => `netip.ParsePrefix(${quote(s)}): ${msg}`;
  const slash = s.lastIndexOf("/");
  if (slash < 0) return fail("no '/'");
  const addr = parseAddr(s.slice(0, slash));
  if (addr instanceof AddrError) return fail(addr.text());
  if (addr.is6 && addr.zone !== "") return fail("IPv6 zones cannot be present in a prefix");
  const bits = s.slice(slash + 1);
  // Go's Atoi would accept a sign and leading zeros; ParsePrefix refuses both.
  const badBits = fail(`bad bits after slash: ${quote(bits)}`);
  if (bits.length > 1 && !(bits[0] !== undefined && bits[0] >= "1" && bits[0] <= "9")) return badBits;
  const n = atoi(bits);
  if (n.err !== undefined) return badBits;
  if (n.value < 0n || n.value > (addr.is6 ? 128n : 32n)) return fail("prefix length out of range");
  return undefined;
}
