/**
 * The istio-cni plugin in sidecar mode: how it turns an injected pod (its `traffic.sidecar.istio.io`
 * annotations, the proxy container's environment and security context) into the CaptureConfig it
 * programs with the same iptables code as `istio-init`.
 *
 * Defaults when an annotation is absent: interception REDIRECT, capture all outbound CIDRs (`*`)
 * and all inbound ports (`*`), exclude outbound port 15020; the proxy's own ports 15020, 15021 and
 * 15090 are always excluded from inbound capture. The proxy uid/gid are the container's
 * runAsUser/runAsGroup when set and non-zero, else 1337. `ISTIO_META_DNS_CAPTURE` turns on DNS
 * capture of all port-53 traffic (the plugin cannot know the pod's name servers).
 */
import { parseBool } from "../../go/strconv.js";
import { AddressError, parsePrefix } from "../netip.js";
import { type CaptureConfig, defaultCaptureConfig } from "./config.js";

/** What the plugin reads from the pod. */
export interface CniSidecarPod {
  annotations: Readonly<Record<string, string>>;
  /** The istio-proxy container's environment (name → value). */
  proxyContainerEnv?: Readonly<Record<string, string>>;
  /** The istio-proxy container's `securityContext.runAsUser`, if set. */
  proxyRunAsUser?: number | null;
  proxyRunAsGroup?: number | null;
}

/** What the plugin finds out inside the pod's network namespace rather than from the pod object. */
export interface CniSidecarNetwork {
  /** Whether the pod has IPv6 (see validate.ts detectLocalIP); default false. */
  enableIPv6?: boolean;
  /** The pod address that decided it; default empty. */
  hostIP?: string;
  /** The netns path the plugin was given. */
  networkNamespace?: string;
  /** The node agent's `ISTIO_OUTBOUND_OWNER_GROUPS` etc.; defaults as in istio-iptables. */
  ownerGroupsInclude?: string;
  ownerGroupsExclude?: string;
  hostIPv4LoopbackCidr?: string;
}

/** An annotation the plugin rejects: the pod is not set up. */
export class CniAnnotationError extends Error {
  override name = "CniAnnotationError";
}

/** The proxy ports never captured inbound (status, health, Prometheus), appended to the exclusions. */
const PROXY_INBOUND_EXCLUDED = "15020,15021,15090";
const DEFAULT_PROXY_ID = "1337";

const MAX_INTERFACE_NAME = 15;
const INTERFACE_NAME = /^[a-zA-Z0-9_][a-zA-Z0-9_.-]*$/;

type Validator = (value: string) => string | undefined;

function checkInterceptionMode(mode: string): string | undefined {
  return mode === "REDIRECT" || mode === "TPROXY" ? undefined : `interceptionMode invalid: ${mode}`;
}

function checkCidrList(cidrs: string): string | undefined {
  if (cidrs === "") return undefined;
  for (const cidr of cidrs.split(",")) {
    try {
      parsePrefix(cidr);
    } catch (e) {
      if (e instanceof AddressError) return `failed parsing cidr '${cidr}': ${e.message}`;
      throw e;
    }
  }
  return undefined;
}

function checkCidrListWithWildcard(cidrs: string): string | undefined {
  if (cidrs === "*") return undefined;
  const why = checkCidrList(cidrs);
  return why === undefined ? undefined : `IPRanges invalid: ${why}`;
}

function checkPortListWithWildcard(ports: string): string | undefined {
  if (ports === "*") return undefined;
  const text = ports.trim();
  if (text === "") return undefined;
  for (const item of text.split(",")) {
    const port = item.trim();
    if (!/^[0-9]+$/.test(port) || Number(port) > 65535) {
      return `portList ${JSON.stringify(ports)} invalid: failed parsing port ${JSON.stringify(item)}`;
    }
  }
  return undefined;
}

function checkInterfaceNames(names: string): string | undefined {
  if (names === "") return undefined;
  for (const item of names.split(",")) {
    const name = item.trim();
    if (name === "") return "empty interface name";
    if (name.length > MAX_INTERFACE_NAME) return `interface name ${JSON.stringify(name)} too long (max 15 chars)`;
    if (!INTERFACE_NAME.test(name)) return `interface name ${JSON.stringify(name)} contains invalid characters`;
  }
  return undefined;
}

/** The annotations the plugin reads: key, default, check. */
const ANNOTATIONS = {
  redirectMode: ["sidecar.istio.io/interceptionMode", "REDIRECT", checkInterceptionMode],
  includeIPCidrs: ["traffic.sidecar.istio.io/includeOutboundIPRanges", "*", checkCidrListWithWildcard],
  excludeIPCidrs: ["traffic.sidecar.istio.io/excludeOutboundIPRanges", "", checkCidrList],
  excludeInboundPorts: ["traffic.sidecar.istio.io/excludeInboundPorts", "15020", checkPortListWithWildcard],
  includeInboundPorts: ["traffic.sidecar.istio.io/includeInboundPorts", "*", checkPortListWithWildcard],
  excludeOutboundPorts: ["traffic.sidecar.istio.io/excludeOutboundPorts", "15020", checkPortListWithWildcard],
  includeOutboundPorts: ["traffic.sidecar.istio.io/includeOutboundPorts", "", checkPortListWithWildcard],
  excludeInterfaces: ["traffic.sidecar.istio.io/excludeInterfaces", "", checkInterfaceNames],
  rerouteVirtualInterfaces: ["istio.io/reroute-virtual-interfaces", "", undefined],
  kubevirtInterfaces: ["traffic.sidecar.istio.io/kubevirtInterfaces", "", undefined],
} as const satisfies Record<string, readonly [string, string, Validator | undefined]>;

/** An annotation's value (checked) or its default; `found` tells which. */
function annotation(
  annotations: Readonly<Record<string, string>>,
  name: keyof typeof ANNOTATIONS,
): { found: boolean; value: string } {
  const [key, fallback, check] = ANNOTATIONS[name];
  if (!Object.hasOwn(annotations, key)) return { found: false, value: fallback };
  const value = annotations[key] as string;
  const why = check?.(value);
  if (why !== undefined) {
    throw new CniAnnotationError(`pod annotation ${key} (${name}): invalid value ${JSON.stringify(value)}: ${why}`);
  }
  return { found: true, value };
}

/** The inbound exclusions with the proxy's own ports appended, duplicates dropped (first kept). */
function withProxyPortsExcluded(ports: string): string {
  let text = ports.trim();
  if (text !== "" && !text.endsWith(",")) text += ",";
  text += PROXY_INBOUND_EXCLUDED;
  return [...new Set(text.split(","))].join(",");
}

/** A non-zero id as text, else the default 1337. */
function proxyId(id: number | null | undefined): string {
  return id !== undefined && id !== null && id !== 0 ? String(id) : DEFAULT_PROXY_ID;
}

/**
 * The CaptureConfig the istio-cni plugin programs for a sidecar pod. Throws CniAnnotationError on
 * an invalid annotation; `warn` receives the environment values that are not booleans (treated as
 * false).
 */
export function cniSidecarCaptureConfig(
  pod: CniSidecarPod,
  network: CniSidecarNetwork = {},
  warn: (message: string) => void = () => {},
): CaptureConfig {
  const a = pod.annotations;
  const env = pod.proxyContainerEnv ?? {};
  const flag = (name: string): boolean => {
    if (!Object.hasOwn(env, name)) return false;
    const value = parseBool(env[name] as string);
    if (value === undefined)
      warn(`proxy environment ${name}=${JSON.stringify(env[name])} is not a boolean; taken as false`);
    return value ?? false;
  };

  const redirectMode = annotation(a, "redirectMode").value;
  const includeIPCidrs = annotation(a, "includeIPCidrs").value;
  const excludeIPCidrs = annotation(a, "excludeIPCidrs").value;
  const excludeInboundPorts = withProxyPortsExcluded(annotation(a, "excludeInboundPorts").value);
  const includeInboundPorts = annotation(a, "includeInboundPorts").value;
  const excludeOutboundPorts = annotation(a, "excludeOutboundPorts").value;
  const includeOutboundPorts = annotation(a, "includeOutboundPorts").value;
  const excludeInterfaces = annotation(a, "excludeInterfaces").value;
  // The deprecated kubevirtInterfaces annotation counts only when the newer one is absent.
  const reroute = annotation(a, "rerouteVirtualInterfaces");
  const rerouteVirtualInterfaces = reroute.found ? reroute.value : annotation(a, "kubevirtInterfaces").value;

  const dnsCapture = flag("ISTIO_META_DNS_CAPTURE");
  const dualStack = flag("ISTIO_DUAL_STACK");
  const invalidDrop = flag("INVALID_DROP");

  const base = defaultCaptureConfig();
  return {
    ...base,
    HostFilesystemPodNetwork: true,
    NetworkNamespace: network.networkNamespace ?? "",
    ProxyPort: "15001",
    ProxyUID: proxyId(pod.proxyRunAsUser),
    ProxyGID: proxyId(pod.proxyRunAsGroup),
    InboundInterceptionMode: redirectMode,
    OutboundIPRangesInclude: includeIPCidrs,
    OutboundIPRangesExclude: excludeIPCidrs,
    InboundPortsInclude: includeInboundPorts,
    InboundPortsExclude: excludeInboundPorts,
    OutboundPortsInclude: includeOutboundPorts,
    OutboundPortsExclude: excludeOutboundPorts,
    ExcludeInterfaces: excludeInterfaces,
    RerouteVirtualInterfaces: rerouteVirtualInterfaces,
    // The plugin cannot read the pod's resolv.conf, so DNS capture means all port-53 traffic.
    RedirectDNS: dnsCapture,
    CaptureAllDNS: dnsCapture,
    DropInvalid: invalidDrop,
    DualStack: dualStack,
    OwnerGroupsInclude: network.ownerGroupsInclude ?? base.OwnerGroupsInclude,
    OwnerGroupsExclude: network.ownerGroupsExclude ?? base.OwnerGroupsExclude,
    HostIPv4LoopbackCidr: network.hostIPv4LoopbackCidr ?? base.HostIPv4LoopbackCidr,
    EnableIPv6: network.enableIPv6 ?? false,
    HostIP: network.hostIP ?? "",
  };
}
