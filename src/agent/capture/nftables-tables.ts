/**
 * The sidecar's three nftables tables (all `inet`, covering IPv4 and IPv6 at once) and the chains
 * each may declare, in declaration order, with the hook settings of the base chains.
 */

export const NAT_TABLE = "istio-proxy-nat";
export const MANGLE_TABLE = "istio-proxy-mangle";
export const RAW_TABLE = "istio-proxy-raw";

export type TableName = typeof NAT_TABLE | typeof MANGLE_TABLE | typeof RAW_TABLE;

/** Base chains (hooked into the kernel's netfilter hooks). */
export const PREROUTING = "prerouting";
export const OUTPUT = "output";

/** Regular chains, reached by jumps. */
export const ISTIO_INBOUND = "istio-inbound";
export const ISTIO_OUTPUT = "istio-output";
export const ISTIO_OUTPUT_DNS = "istio-output-dns";
export const ISTIO_REDIRECT = "istio-redirect";
export const ISTIO_IN_REDIRECT = "istio-in-redirect";
export const ISTIO_DIVERT = "istio-divert";
export const ISTIO_TPROXY = "istio-tproxy";
export const ISTIO_DROP = "istio-drop";

/** A chain a table may declare; `hook` only for base chains. */
export interface ChainDeclaration {
  name: string;
  hook?: { type: "nat" | "filter" | "route"; hook: "prerouting" | "output"; priority: number };
}

/** The order tables appear in the transaction. */
export const TABLE_ORDER: readonly TableName[] = [NAT_TABLE, MANGLE_TABLE, RAW_TABLE];

// Priorities as nft numbers: dstnat = -100, mangle = -150, raw = -300.
export const TABLE_CHAINS: Readonly<Record<TableName, readonly ChainDeclaration[]>> = {
  [NAT_TABLE]: [
    { name: PREROUTING, hook: { type: "nat", hook: "prerouting", priority: -100 } },
    { name: OUTPUT, hook: { type: "nat", hook: "output", priority: -100 } },
    { name: ISTIO_INBOUND },
    { name: ISTIO_REDIRECT },
    { name: ISTIO_IN_REDIRECT },
    { name: ISTIO_OUTPUT },
    { name: ISTIO_OUTPUT_DNS },
  ],
  [MANGLE_TABLE]: [
    { name: PREROUTING, hook: { type: "filter", hook: "prerouting", priority: -150 } },
    // A route chain, so that re-marked output packets are routed again (TPROXY policy routing).
    { name: OUTPUT, hook: { type: "route", hook: "output", priority: -150 } },
    { name: ISTIO_DIVERT },
    { name: ISTIO_TPROXY },
    { name: ISTIO_INBOUND },
    { name: ISTIO_DROP },
  ],
  [RAW_TABLE]: [
    { name: PREROUTING, hook: { type: "filter", hook: "prerouting", priority: -300 } },
    { name: OUTPUT, hook: { type: "filter", hook: "output", priority: -300 } },
    { name: ISTIO_INBOUND },
    { name: ISTIO_OUTPUT_DNS },
  ],
};
