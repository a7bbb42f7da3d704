/**
 * What the traffic-capture setup of a sidecar pod is given: the settings `istio-iptables` (the
 * `istio-init` container) and the istio-cni plugin in sidecar mode read from flags, environment
 * variables and the pod, gathered in one place. Field names follow Istio's capture `Config` (its Go
 * field names), so that the conformance vectors, which are written in those names, read directly.
 *
 * Lists that Istio takes as comma-separated text (ports, CIDRs, uids, interfaces) stay text here:
 * the rule builders split them, because `*` and the empty string carry meaning of their own.
 */
export interface CaptureConfig {
  /** Envoy's outbound listener port (`--envoy-port`, default 15001). */
  ProxyPort: string;
  /** Envoy's inbound capture port (`--inbound-capture-port`, default 15006). */
  InboundCapturePort: string;
  /** The HBONE tunnel port, never redirected (`--inbound-tunnel-port`, default 15008). */
  InboundTunnelPort: string;
  /** Comma-separated uids whose traffic is the proxy's own (`--proxy-uid`). */
  ProxyUID: string;
  /** Comma-separated gids whose traffic is the proxy's own (`--proxy-gid`). */
  ProxyGID: string;
  /** `REDIRECT` (also when empty) or `TPROXY`. */
  InboundInterceptionMode: string;
  InboundTProxyMark: string;
  InboundTProxyRouteTable: string;
  /** Inbound ports to capture: `*`, a list, or empty for none. */
  InboundPortsInclude: string;
  /** Inbound ports never captured (when all are). */
  InboundPortsExclude: string;
  /** Groups whose outbound traffic is captured (`*` = all); environment only. */
  OwnerGroupsInclude: string;
  /** Groups whose outbound traffic is not captured; environment only. */
  OwnerGroupsExclude: string;
  OutboundPortsInclude: string;
  OutboundPortsExclude: string;
  /** Outbound CIDRs to capture: `*`, a list, or empty for none. */
  OutboundIPRangesInclude: string;
  OutboundIPRangesExclude: string;
  /** Interfaces (e.g. KubeVirt's) whose traffic is rerouted to the proxy. */
  RerouteVirtualInterfaces: string;
  /** Interfaces whose traffic is left alone. */
  ExcludeInterfaces: string;
  IptablesProbePort: number;
  /** Go duration text, e.g. `5s`. */
  ProbeTimeout: string;
  DryRun: boolean;
  SkipRuleApply: boolean;
  RunValidation: boolean;
  RedirectDNS: boolean;
  DropInvalid: boolean;
  CaptureAllDNS: boolean;
  /** Whether the pod has IPv6 (detected from its address; not a flag). */
  EnableIPv6: boolean;
  /** Name servers from /etc/resolv.conf, used when DNS is redirected but not all captured. */
  DNSServersV4: string[];
  DNSServersV6: string[];
  NetworkNamespace: string;
  HostFilesystemPodNetwork: boolean;
  DualStack: boolean;
  /** The node's address (detected; not a flag); empty when unknown. */
  HostIP: string;
  HostIPv4LoopbackCidr: string;
  Reconcile: boolean;
  CleanupOnly: boolean;
  ForceApply: boolean;
  NativeNftables: boolean;
  ForceIptablesBinary: string;
}

/**
 * Go's zero value for every field: what a setting left out amounts to. (The command's own flag
 * defaults, such as port 15001, are applied where flags are read, not here.)
 */
export function zeroCaptureConfig(): CaptureConfig {
  return {
    ProxyPort: "",
    InboundCapturePort: "",
    InboundTunnelPort: "",
    ProxyUID: "",
    ProxyGID: "",
    InboundInterceptionMode: "",
    InboundTProxyMark: "",
    InboundTProxyRouteTable: "",
    InboundPortsInclude: "",
    InboundPortsExclude: "",
    OwnerGroupsInclude: "",
    OwnerGroupsExclude: "",
    OutboundPortsInclude: "",
    OutboundPortsExclude: "",
    OutboundIPRangesInclude: "",
    OutboundIPRangesExclude: "",
    RerouteVirtualInterfaces: "",
    ExcludeInterfaces: "",
    IptablesProbePort: 0,
    ProbeTimeout: "",
    DryRun: false,
    SkipRuleApply: false,
    RunValidation: false,
    RedirectDNS: false,
    DropInvalid: false,
    CaptureAllDNS: false,
    EnableIPv6: false,
    DNSServersV4: [],
    DNSServersV6: [],
    NetworkNamespace: "",
    HostFilesystemPodNetwork: false,
    DualStack: false,
    HostIP: "",
    HostIPv4LoopbackCidr: "",
    Reconcile: false,
    CleanupOnly: false,
    ForceApply: false,
    NativeNftables: false,
    ForceIptablesBinary: "",
  };
}

/** A config from the given fields over the zero values (how the conformance vectors state one). */
export function captureConfig(fields: Partial<CaptureConfig>): CaptureConfig {
  return { ...zeroCaptureConfig(), ...fields };
}

/**
 * The config `istio-iptables` starts from before flags and environment are read: its flag defaults
 * (ports 15001/15006/15008, TPROXY mark 1337 and route table 133, probe port 15002 with a 5s
 * timeout) and the defaults of the environment-only settings (all owner groups captured, IPv4
 * loopback `127.0.0.1/32`).
 */
export function defaultCaptureConfig(): CaptureConfig {
  return captureConfig({
    ProxyPort: "15001",
    InboundCapturePort: "15006",
    InboundTunnelPort: "15008",
    InboundTProxyMark: "1337",
    InboundTProxyRouteTable: "133",
    IptablesProbePort: 15002,
    ProbeTimeout: "5s",
    OwnerGroupsInclude: "*",
    OwnerGroupsExclude: "",
    HostIPv4LoopbackCidr: "127.0.0.1/32",
  });
}

/** In TPROXY mode, marks Envoy's outbound packets to the app over the pod IP (so they are not captured again). */
export const OUTBOUND_MARK = "1338";
/** The IPv6 loopback range, fixed (the IPv4 one is the HostIPv4LoopbackCidr setting). */
export const IPV6_LOOPBACK = "::1/128";
/** The source address Envoy's inbound passthrough binds to, per family. */
export const INBOUND_PASSTHROUGH_V4 = "127.0.0.6/32";
export const INBOUND_PASSTHROUGH_V6 = "::6/128";
/** The istio-agent's DNS proxy port, where captured DNS goes. */
export const DNS_PROXY_PORT = "15053";

/**
 * Whether DNS is captured: RedirectDNS needs somewhere to send to, all port-53 traffic
 * (CaptureAllDNS) or the known name servers; without either Istio turns DNS capture off.
 */
export function redirectsDNS(c: CaptureConfig): boolean {
  return c.RedirectDNS && (c.CaptureAllDNS || c.DNSServersV4.length > 0 || c.DNSServersV6.length > 0);
}

/** A comma-separated setting as a list: empty items are dropped, nothing is trimmed. */
export function splitList(text: string): string[] {
  return text === "" ? [] : text.split(",").filter((item) => item !== "");
}

/**
 * Which owner groups have their outbound traffic captured: `except` true means all but `values`
 * (include was `*`), false means only `values`.
 */
export interface OwnerGroupFilter {
  values: string[];
  except: boolean;
}

/** Reads OwnerGroupsInclude / OwnerGroupsExclude: include `*` means "all except the excluded". */
export function ownerGroupFilter(include: string, exclude: string): OwnerGroupFilter {
  if (include === "*") return { values: splitList(exclude), except: true };
  return { values: splitList(include), except: false };
}
