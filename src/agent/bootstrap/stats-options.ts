/**
 * getStatsOptions (pkg/bootstrap/config.go): Envoy's stats inclusion lists, extra stat tags,
 * histogram buckets and the stats flush / eviction intervals, from the pod annotations (the node
 * metadata's ANNOTATIONS) and the proxy config.
 */
import { parseDuration } from "../../go/time/duration.js";
import type { ProxyConfig } from "../../mesh/index.js";
import type { TypedMetadata } from "./metadata-fields.js";

export const STATS_INCLUSION_PREFIXES = "sidecar.istio.io/statsInclusionPrefixes";
export const STATS_INCLUSION_SUFFIXES = "sidecar.istio.io/statsInclusionSuffixes";
export const STATS_INCLUSION_REGEXPS = "sidecar.istio.io/statsInclusionRegexps";
export const EXTRA_STAT_TAGS = "sidecar.istio.io/extraStatTags";
export const STATS_HISTOGRAM_BUCKETS = "sidecar.istio.io/statsHistogramBuckets";
export const STATS_FLUSH_INTERVAL = "sidecar.istio.io/statsFlushInterval";
export const STATS_EVICTION_INTERVAL = "sidecar.istio.io/statsEvictionInterval";

/** Needed by the agent's readiness check. */
const REQUIRED_PREFIXES = "cluster_manager,listener_manager,server,cluster.xds-grpc,wasm";
const RBAC_SUFFIXES = "rbac.allowed,rbac.denied,shadow_allowed,shadow_denied";
/** Draining on zero active connections needs this one too. */
const DRAIN_SUFFIX = "downstream_cx_active";
/** Routes' stat prefixes in virtual services. */
const REQUIRED_REGEXPS = "vhost\\..*\\.route\\..*";
const DEFAULT_FLUSH_INTERVAL_NS = 5_000_000_000n;

export interface HistogramBucket {
  match: { prefix: string };
  buckets: number[];
}

export interface StatsOptions {
  inclusionPrefix: string[];
  inclusionSuffix: string[];
  inclusionRegexps: string[];
  extraStatTags: string[];
  histogramBuckets: HistogramBucket[] | undefined;
  /** Nanoseconds; undefined when not set or not parsable. */
  flushInterval: bigint | undefined;
  /** Whole seconds; undefined unless set, parsable and a multiple of the flush interval. */
  evictionIntervalSeconds: bigint | undefined;
  warnings: string[];
}

/** Each pattern naming `{pod_ip}` becomes one pattern per instance IP. */
function substitutePodIP(patterns: readonly string[], ips: readonly string[]): string[] {
  return patterns.flatMap((p) => (p.includes("{pod_ip}") ? ips.map((ip) => p.replaceAll("{pod_ip}", ip)) : [p]));
}

function inclusion(
  annotation: string | undefined,
  required: string,
  fromConfig: readonly string[] | undefined,
  ips: readonly string[],
) {
  // The annotation wins over the proxy config; the two are not merged.
  const list = annotation ? annotation.split(",") : [...(fromConfig ?? [])];
  if (required !== "") list.push(...required.split(","));
  return substitutePodIP(list, ips);
}

function parseDurationOrUndefined(text: string | undefined): bigint | undefined {
  if (text === undefined) return undefined;
  try {
    return parseDuration(text);
  } catch {
    return undefined;
  }
}

export function statsOptions(meta: TypedMetadata): StatsOptions {
  const annotations = (meta.ANNOTATIONS as Record<string, string> | undefined) ?? {};
  const pc = (meta.PROXY_CONFIG as ProxyConfig | undefined) ?? {};
  const ips = (meta.INSTANCE_IPS as string[] | undefined) ?? [];
  const matcher = (pc.proxyStatsMatcher ?? {}) as Record<string, string[] | undefined>;
  const warnings: string[] = [];
  const suffixes = meta.EXIT_ON_ZERO_ACTIVE_CONNECTIONS === true ? `${RBAC_SUFFIXES},${DRAIN_SUFFIX}` : RBAC_SUFFIXES;
  const tags: string[] = [];
  for (const t of [
    ...((pc.extraStatTags as string[] | undefined) ?? []),
    ...(annotations[EXTRA_STAT_TAGS] ?? "").split(","),
  ]) {
    if (t !== "" && !tags.includes(t)) tags.push(t);
  }
  let histogramBuckets: HistogramBucket[] | undefined;
  const bucketsText = annotations[STATS_HISTOGRAM_BUCKETS];
  if (bucketsText !== undefined) {
    try {
      const parsed = JSON.parse(bucketsText) as unknown;
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object");
      const entries = Object.entries(parsed as Record<string, unknown>).map(([prefix, v]) => {
        if (!Array.isArray(v) || v.some((x) => typeof x !== "number"))
          throw new Error(`${prefix}: not a list of numbers`);
        return { match: { prefix }, buckets: v as number[] };
      });
      histogramBuckets = entries.sort((a, b) =>
        a.match.prefix < b.match.prefix ? -1 : a.match.prefix > b.match.prefix ? 1 : 0,
      );
    } catch (e) {
      warnings.push(`Failed to unmarshal histogram buckets: ${bucketsText} ${(e as Error).message}`);
    }
  }
  const flushInterval = parseDurationOrUndefined(annotations[STATS_FLUSH_INTERVAL]);
  let evictionIntervalSeconds: bigint | undefined;
  const eviction = parseDurationOrUndefined(annotations[STATS_EVICTION_INTERVAL]);
  if (eviction !== undefined) {
    const flush = flushInterval ?? DEFAULT_FLUSH_INTERVAL_NS;
    if (flush > 0n && eviction % flush === 0n) evictionIntervalSeconds = eviction / 1_000_000_000n;
    else warnings.push(`${STATS_EVICTION_INTERVAL} must be a multiple of the stats flush interval; ignored`);
  }
  return {
    inclusionPrefix: inclusion(
      annotations[STATS_INCLUSION_PREFIXES],
      REQUIRED_PREFIXES,
      matcher.inclusionPrefixes,
      ips,
    ),
    inclusionSuffix: inclusion(annotations[STATS_INCLUSION_SUFFIXES], suffixes, matcher.inclusionSuffixes, ips),
    inclusionRegexps: inclusion(annotations[STATS_INCLUSION_REGEXPS], REQUIRED_REGEXPS, matcher.inclusionRegexps, ips),
    extraStatTags: tags,
    histogramBuckets,
    flushInterval,
    evictionIntervalSeconds,
    warnings,
  };
}
