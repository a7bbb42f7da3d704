/**
 * Envoy's command line as pilot-agent builds it (pkg/envoy/proxy.go), pure: the fixed flags, the
 * log levels (`--proxyLogLevel` may carry component levels too), the bootstrap override as
 * `--config-yaml`, and the concurrency.
 */
import { parseProtoDuration } from "../../mesh/duration.js";
import { AddressError, is4, is4In6, parseAddr } from "../netip.js";

/** What the agent starts Envoy with (Istio's envoy.ProxyConfig). */
export interface EnvoyConfig {
  /** `--proxyLogLevel`: a level, optionally followed by `component:level` items. */
  logLevel?: string;
  /** `--proxyComponentLogLevel`: used when logLevel names no components. */
  componentLogLevel?: string;
  nodeIPs: readonly string[];
  /** The proxy config's drainDuration (proto3 JSON duration). */
  drainDuration?: string;
  concurrency?: number;
  skipDeprecatedLogs?: boolean;
  /** ISTIO_ENVOY_ENABLE_CORE_DUMP. */
  enableCoreDump?: boolean;
  fileFlushInterval?: string;
  fileFlushMinSizeKB?: number;
}

/** splitComponentLog: the plain level (last one wins) and the `component:level` items in order. */
export function splitComponentLog(level: string): { logLevel: string; componentLogLevels: string[] | null } {
  let logLevel = "";
  let components: string[] | null = null;
  for (const item of level.split(",")) {
    const parts = item.split(":");
    if (parts.length === 1) logLevel = item;
    else if (parts.length === 2) components = [...(components ?? []), item];
  }
  return { logLevel, componentLogLevels: components };
}

/** The extra arguments NewProxy computes once. */
export function extraArgs(cfg: EnvoyConfig): string[] {
  const args: string[] = [];
  const { logLevel, componentLogLevels } = splitComponentLog(cfg.logLevel ?? "");
  if (logLevel !== "") args.push("-l", logLevel);
  if (componentLogLevels !== null && componentLogLevels.length > 0) {
    args.push("--component-log-level", componentLogLevels.join(","));
  } else if (cfg.componentLogLevel) {
    args.push("--component-log-level", cfg.componentLogLevel);
  }
  if (cfg.skipDeprecatedLogs) args.push("--skip-deprecated-logs");
  if (cfg.enableCoreDump) args.push("--enable-core-dump");
  return args;
}

/** network.AllIPv6: every entry an IPv6 (not IPv4-mapped) address; true for an empty list. */
export function allIPv6(ips: readonly string[]): boolean {
  return ips.every((ip) => {
    try {
      const a = parseAddr(ip);
      return !is4(a) && !is4In6(a);
    } catch (e) {
      if (e instanceof AddressError) return false;
      throw e;
    }
  });
}

const NANOS_PER_MS = 1_000_000n;
const NANOS_PER_S = 1_000_000_000n;

/**
 * Envoy's argv after the binary: `fname` is the bootstrap file, `overrideJSON` the bootstrap
 * override already converted to JSON (readBootstrapToJSON), when there is one.
 */
export function envoyArgs(cfg: EnvoyConfig, fname: string, overrideJSON?: string): string[] {
  const drain = cfg.drainDuration === undefined ? 0n : parseProtoDuration(cfg.drainDuration);
  const flush = cfg.fileFlushInterval === undefined ? 0n : parseProtoDuration(cfg.fileFlushInterval);
  const args = [
    "-c",
    fname,
    "--drain-time-s",
    String(drain / NANOS_PER_S),
    "--drain-strategy",
    "immediate",
    "--local-address-ip-version",
    allIPv6(cfg.nodeIPs) ? "v6" : "v4",
    "--file-flush-interval-msec",
    String(flush > 0n ? flush / NANOS_PER_MS : 1000n),
    "--disable-hot-restart",
    "--allow-unknown-static-fields",
  ];
  if (cfg.fileFlushMinSizeKB && cfg.fileFlushMinSizeKB > 0)
    args.push("--file-flush-min-size-kb", String(cfg.fileFlushMinSizeKB));
  args.push(...extraArgs(cfg));
  if (overrideJSON !== undefined) args.push("--config-yaml", overrideJSON);
  if (cfg.concurrency !== undefined && cfg.concurrency > 0) args.push("--concurrency", String(cfg.concurrency));
  return args;
}
