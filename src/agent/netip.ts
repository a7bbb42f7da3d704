/**
 * The agent's view of Go's `net/netip` (ported in go/netip), shared by the capture code, the DNS
 * proxy, Envoy's arguments and the bootstrap: ParseAddr and ParsePrefix that throw an AddressError
 * carrying Go's message, as Istio's agent code turns netip's errors into failures, plus netip's
 * address methods and pkg/util/net's IPsSplitV4V6.
 */
import {
  type Addr,
  formatAddr,
  parseAddr as goParseAddr,
  parsePrefix as goParsePrefix,
  is4,
  type Prefix,
} from "../go/netip.js";

export {
  formatAddr,
  formatPrefix,
  is4,
  is4In6,
  is6,
  isLinkLocalMulticast,
  isLinkLocalUnicast,
  isLoopback,
  unmap,
} from "../go/netip.js";

/** An address: 4 bytes (IPv4) or 16 bytes (IPv6, including IPv4-mapped ones). */
export type IPAddr = Addr;

/** An address with a prefix length; the address keeps its host bits, as in netip. */
export type IPPrefix = Prefix;

/** A malformed address or prefix; the message is Go's. */
export class AddressError extends Error {
  override name = "AddressError";
}

/** Parses an IPv4 or IPv6 address as `netip.ParseAddr` does; throws AddressError. */
export function parseAddr(s: string): IPAddr {
  const r = goParseAddr(s);
  if (r.err !== undefined) throw new AddressError(r.err);
  return r.value;
}

/** Parses `addr/bits` as `netip.ParsePrefix` does (host bits kept); throws AddressError. */
export function parsePrefix(s: string): IPPrefix {
  const r = goParsePrefix(s);
  if (r.err !== undefined) throw new AddressError(r.err);
  return r.value;
}

/**
 * pkg/util/net IPsSplitV4V6: the addresses that parse, in netip's String form, by family (an
 * IPv4-mapped IPv6 address is IPv6); one that does not parse is skipped, and handed to `skipped`.
 */
export function ipsSplitV4V6(
  ips: readonly string[],
  skipped: (text: string, e: AddressError) => void = () => {},
): { v4: string[]; v6: string[] } {
  const v4: string[] = [];
  const v6: string[] = [];
  for (const text of ips) {
    let addr: IPAddr;
    try {
      addr = parseAddr(text);
    } catch (e) {
      if (!(e instanceof AddressError)) throw e;
      skipped(text, e);
      continue;
    }
    (is4(addr) ? v4 : v6).push(formatAddr(addr));
  }
  return { v4, v6 };
}
