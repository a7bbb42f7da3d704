/**
 * CIDR list settings (`*`, or comma-separated CIDRs) split into their IPv4 and IPv6 parts, as
 * Istio's `SeparateV4V6` does, for both capture backends and for the validation corpus:
 *
 * - `*` exactly makes both families wildcards; the empty string gives two empty ranges;
 * - an IPv4-mapped IPv6 prefix (`::ffff:a.b.c.d/n`) counts as IPv6;
 * - `hasLoopBackIP` is judged on each prefix's address (netip's IsLoopback, IPv4-mapped included);
 * - an entry that does not parse is an error (tools/common/config, used by istio-nftables), except
 *   with `skipInvalid`, where it is skipped (istio-iptables keeps its own copy that only logs it,
 *   "for bug compatibility").
 */

import { type IPPrefix, is4, isLoopback, parsePrefix } from "../netip.js";
import { type CaptureConfig, splitList } from "./config.js";

/** One family's part of a CIDR list. */
export interface NetworkRange {
  isWildcard: boolean;
  /** The prefixes as parsed (host bits kept), in the order given. */
  cidrs: IPPrefix[];
  /** Whether one of the prefixes' addresses is a loopback address. */
  hasLoopBackIP: boolean;
}

/** A CIDR list setting the capture cannot be built from; the message names the setting. */
export class CaptureRangeError extends Error {
  override name = "CaptureRangeError";
}

export interface SeparateOptions {
  /** Skip entries that do not parse instead of throwing (istio-iptables' behaviour). */
  skipInvalid?: boolean;
  /** The setting named in error messages. */
  setting?: string;
}

/** Splits a CIDR list into its IPv4 and IPv6 ranges; throws CaptureRangeError on a bad entry. */
export function separateV4V6(cidrList: string, options: SeparateOptions = {}): { v4: NetworkRange; v6: NetworkRange } {
  if (cidrList === "*") {
    return {
      v4: { isWildcard: true, cidrs: [], hasLoopBackIP: false },
      v6: { isWildcard: true, cidrs: [], hasLoopBackIP: false },
    };
  }
  const v4: NetworkRange = { isWildcard: false, cidrs: [], hasLoopBackIP: false };
  const v6: NetworkRange = { isWildcard: false, cidrs: [], hasLoopBackIP: false };
  for (const item of splitList(cidrList)) {
    let prefix: IPPrefix;
    try {
      prefix = parsePrefix(item);
    } catch (e) {
      if (options.skipInvalid) continue;
      const setting = options.setting ?? "CIDR list";
      throw new CaptureRangeError(`${setting}: ${JSON.stringify(item)} is not a CIDR: ${(e as Error).message}`);
    }
    const range = is4(prefix.addr) ? v4 : v6;
    range.cidrs.push(prefix);
    if (isLoopback(prefix.addr)) range.hasLoopBackIP = true;
  }
  return { v4, v6 };
}

/** The outbound CIDR settings, each split by family. */
export interface OutboundRanges {
  include: { v4: NetworkRange; v6: NetworkRange };
  exclude: { v4: NetworkRange; v6: NetworkRange };
}

/**
 * OutboundIPRangesExclude then OutboundIPRangesInclude split by family, as both backends' `Run`
 * start: the exclusion list first (its errors come first), and `*` refused as an exclusion.
 */
export function outboundRanges(config: CaptureConfig, options: { skipInvalid?: boolean } = {}): OutboundRanges {
  const exclude = separateV4V6(config.OutboundIPRangesExclude, { ...options, setting: "OutboundIPRangesExclude" });
  if (exclude.v4.isWildcard) {
    throw new CaptureRangeError(
      `invalid value for OUTBOUND_IP_RANGES_EXCLUDE (OutboundIPRangesExclude): "*" would exclude all traffic`,
    );
  }
  const include = separateV4V6(config.OutboundIPRangesInclude, { ...options, setting: "OutboundIPRangesInclude" });
  return { include, exclude };
}
