/**
 * Checks on capture settings before any rule is built, and the detection of IPv6 from the pod's
 * addresses, with Istio's rules (tools/common/config): at most 64 captured owner groups, an IPv4
 * loopback CIDR inside 127.0.0.0/8 with a /8../32 mask, and a known iptables binary choice. (CIDR
 * lists split by family, Istio's SeparateV4V6, are in ranges.ts.)
 */

import {
  formatAddr,
  type IPAddr,
  type IPPrefix,
  is4,
  is6,
  isLinkLocalMulticast,
  isLinkLocalUnicast,
  isLoopback,
  parseAddr,
  parsePrefix,
  unmap,
} from "../netip.js";
import { ownerGroupFilter } from "./config.js";

/** A capture setting with a value Istio rejects; the message names the setting and the cause. */
export class CaptureValidationError extends Error {
  override name = "CaptureValidationError";
}

/**
 * All included owner groups end up as match expressions of one iptables rule, and kernels allow
 * only so many per rule; excluded groups get a rule each, so they are unlimited.
 */
export const MAX_OWNER_GROUPS_INCLUDE = 64;

/** OwnerGroupsInclude (`ISTIO_OUTBOUND_OWNER_GROUPS`) lists at most 64 groups, unless it is `*`. */
export function validateOwnerGroups(include: string, exclude: string): void {
  const filter = ownerGroupFilter(include, exclude);
  if (!filter.except && filter.values.length > MAX_OWNER_GROUPS_INCLUDE) {
    throw new CaptureValidationError(
      `OwnerGroupsInclude (ISTIO_OUTBOUND_OWNER_GROUPS): at most ${MAX_OWNER_GROUPS_INCLUDE} owner groups ` +
        `may have their outgoing traffic redirected to Envoy, got ${filter.values.length}: ` +
        `[${filter.values.join(" ")}]`,
    );
  }
}

/** HostIPv4LoopbackCidr (`ISTIO_OUTBOUND_IPV4_LOOPBACK_CIDR`): an IPv4 loopback CIDR, mask /8../32. */
export function validateIPv4LoopbackCidr(cidr: string): void {
  const what = "HostIPv4LoopbackCidr (ISTIO_OUTBOUND_IPV4_LOOPBACK_CIDR)";
  let prefix: IPPrefix;
  try {
    prefix = parsePrefix(cidr);
  } catch (e) {
    throw new CaptureValidationError(`${what}: failed to parse CIDR ${cidr}: ${(e as Error).message}`);
  }
  if (!is4(prefix.addr) || !isLoopback(prefix.addr)) {
    throw new CaptureValidationError(
      `${what}: expected an IPv4 loopback address (127.0.0.0/8) in CIDR ${cidr}; found ${formatAddr(prefix.addr)}`,
    );
  }
  if (prefix.bits < 8 || prefix.bits > 32) {
    throw new CaptureValidationError(`${what}: expected CIDR ${cidr} to have a mask in [8, 32]; found ${prefix.bits}`);
  }
}

/** The accepted ForceIptablesBinary values: empty (detect), `legacy`, `nft`. */
const IPTABLES_BINARIES = new Set(["", "legacy", "nft"]);

/** ForceIptablesBinary (`--force-iptables-binary`): empty, `legacy` or `nft`. */
export function validateIptablesBinary(value: string): void {
  if (!IPTABLES_BINARIES.has(value)) {
    throw new CaptureValidationError(
      `ForceIptablesBinary (--force-iptables-binary): iptables version ${value} not supported (use "legacy" or "nft", or leave it empty)`,
    );
  }
}

/** The address that decides the pod's IP family, and whether it is IPv6. */
export interface LocalIP {
  addr: IPAddr;
  isIPv6: boolean;
}

/**
 * How istio-iptables decides EnableIPv6 from the pod's interface addresses (in order): loopback
 * and link-local addresses are skipped; the first other address decides, except in dual-stack
 * mode, where any IPv6 address among them makes it IPv6 (the first one found is still returned).
 * Throws when there is no usable address.
 */
export function detectLocalIP(interfaceAddrs: readonly string[], dualStack: boolean): LocalIP {
  const found: IPAddr[] = [];
  let isIPv6 = false;
  for (const text of interfaceAddrs) {
    let addr: IPAddr;
    try {
      addr = unmap(parseAddr(text));
    } catch {
      continue;
    }
    if (isLoopback(addr) || isLinkLocalUnicast(addr) || isLinkLocalMulticast(addr)) continue;
    isIPv6 = is6(addr);
    found.push(addr);
    if (!dualStack) return { addr, isIPv6 };
    if (isIPv6) break;
  }
  const first = found[0];
  if (first === undefined) throw new CaptureValidationError("no valid local IP address found (to detect IPv6 from)");
  return { addr: first, isIPv6 };
}
