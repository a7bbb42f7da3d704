/**
 * What the `istio-iptables` command accepts (Istio's tools/istio-iptables/pkg/cmd, a cobra command
 * with pflag flags): its names, its flags and the setting each one sets, the environment variables
 * that set them, and the settings that only the environment gives.
 */

import { PILOT_AGENT, LOGGING_FLAGS as PILOT_LOGGING_FLAGS, programName } from "../pilot-agent.js";
import type { CaptureConfig } from "./config.js";
import type { FlagKind } from "./flag-values.js";

export const ISTIO_IPTABLES = "istio-iptables";

/** The CaptureConfig fields that hold text. */
export type StringField = {
  [K in keyof CaptureConfig]: CaptureConfig[K] extends string ? K : never;
}[keyof CaptureConfig];

/** A flag of the command and the setting it sets. */
export interface IptablesFlag {
  readonly name: string;
  readonly shorthand?: string;
  readonly kind: FlagKind;
  readonly field: keyof CaptureConfig;
  /** Whether the flag's name as an environment variable sets it (all but --envoy-port). */
  readonly env: boolean;
  /** A second environment variable that sets it (and wins over the first). */
  readonly additionalEnv?: string;
}

/** A flag the command accepts and ignores: it sets nothing. */
export interface IgnoredFlag {
  readonly name: string;
  readonly kind: FlagKind;
  readonly field?: undefined;
}

function flag(
  name: string,
  shorthand: string | undefined,
  kind: FlagKind,
  field: keyof CaptureConfig,
  extra: { env?: boolean; additionalEnv?: string } = {},
): IptablesFlag {
  return {
    name,
    kind,
    field,
    env: extra.env ?? true,
    ...(shorthand === undefined ? {} : { shorthand }),
    ...(extra.additionalEnv === undefined ? {} : { additionalEnv: extra.additionalEnv }),
  };
}

/** The command's flags, in the order it registers them (which is the order the environment is read in). */
export const IPTABLES_FLAGS: readonly IptablesFlag[] = [
  flag("envoy-port", "p", "string", "ProxyPort", { env: false }),
  flag("inbound-capture-port", "z", "string", "InboundCapturePort"),
  flag("inbound-tunnel-port", "e", "string", "InboundTunnelPort"),
  flag("proxy-uid", "u", "string", "ProxyUID"),
  flag("proxy-gid", "g", "string", "ProxyGID"),
  flag("istio-inbound-interception-mode", "m", "string", "InboundInterceptionMode"),
  flag("istio-inbound-ports", "b", "string", "InboundPortsInclude"),
  flag("istio-local-exclude-ports", "d", "string", "InboundPortsExclude"),
  flag("istio-exclude-interfaces", "c", "string", "ExcludeInterfaces"),
  flag("istio-service-cidr", "i", "string", "OutboundIPRangesInclude"),
  flag("istio-service-exclude-cidr", "x", "string", "OutboundIPRangesExclude"),
  flag("istio-outbound-ports", "q", "string", "OutboundPortsInclude"),
  flag("istio-local-outbound-ports-exclude", "o", "string", "OutboundPortsExclude"),
  flag("kube-virt-interfaces", "k", "string", "RerouteVirtualInterfaces"),
  flag("istio-inbound-tproxy-mark", "t", "string", "InboundTProxyMark"),
  flag("istio-inbound-tproxy-route-table", "r", "string", "InboundTProxyRouteTable"),
  flag("dry-run", "n", "bool", "DryRun"),
  flag("iptables-probe-port", undefined, "uint16", "IptablesProbePort"),
  flag("probe-timeout", undefined, "duration", "ProbeTimeout"),
  flag("skip-rule-apply", undefined, "bool", "SkipRuleApply"),
  flag("run-validation", undefined, "bool", "RunValidation"),
  flag("redirect-dns", undefined, "bool", "RedirectDNS", { additionalEnv: "ISTIO_META_DNS_CAPTURE" }),
  flag("drop-invalid", undefined, "bool", "DropInvalid", { additionalEnv: "INVALID_DROP" }),
  flag("dual-stack", undefined, "bool", "DualStack", { additionalEnv: "ISTIO_DUAL_STACK" }),
  flag("capture-all-dns", undefined, "bool", "CaptureAllDNS"),
  flag("network-namespace", undefined, "string", "NetworkNamespace"),
  flag("cni-mode", undefined, "bool", "HostFilesystemPodNetwork"),
  flag("reconcile", undefined, "bool", "Reconcile"),
  flag("cleanup-only", undefined, "bool", "CleanupOnly"),
  flag("force-apply", undefined, "bool", "ForceApply"),
  flag("native-nftables", undefined, "bool", "NativeNftables"),
  flag("force-iptables-binary", undefined, "string", "ForceIptablesBinary"),
];

/** pilot-agent's logging flags: accepted and ignored. */
export const LOGGING_FLAGS: readonly IgnoredFlag[] = PILOT_LOGGING_FLAGS;

/** The settings that only environment variables give, with their defaults. */
export const ENV_ONLY = {
  OwnerGroupsInclude: ["ISTIO_OUTBOUND_OWNER_GROUPS", "*"],
  OwnerGroupsExclude: ["ISTIO_OUTBOUND_OWNER_GROUPS_EXCLUDE", ""],
  HostIPv4LoopbackCidr: ["ISTIO_OUTBOUND_IPV4_LOOPBACK_CIDR", "127.0.0.1/32"],
} as const satisfies Partial<Record<StringField, readonly [string, string]>>;

/** The uid `istio-proxy` runs as in Istio's proxy image, the command's default proxy uid. */
export const DEFAULT_PROXY_UID = "1337";

/** The environment variable a flag's name gives: `proxy-uid` → `PROXY_UID`. */
export function flagEnvName(name: string): string {
  return name.replaceAll("-", "_").toUpperCase();
}

/** Every environment variable istio-iptables reads its settings from. */
export function captureEnvNames(): ReadonlySet<string> {
  const names = new Set<string>(Object.values(ENV_ONLY).map(([variable]) => variable));
  for (const spec of IPTABLES_FLAGS) {
    if (spec.env) names.add(flagEnvName(spec.name));
    if (spec.additionalEnv !== undefined) names.add(spec.additionalEnv);
  }
  return names;
}

/** The arguments after the command name(s): `[pilot-agent] istio-iptables ARGS` → `ARGS`. */
export function withoutCommandName(args: readonly string[]): readonly string[] {
  let rest = args;
  if (rest.length > 0 && programName(rest[0] as string) === PILOT_AGENT) rest = rest.slice(1);
  if (rest.length > 0 && programName(rest[0] as string) === ISTIO_IPTABLES) rest = rest.slice(1);
  return rest;
}
