/**
 * What the Traffic picture shows, read from a pod's capture (podCapture: the config istio-init or
 * the istio-cni plugin programs, the same computation as `capture-rules`), with no DOM: which
 * inbound ports go through Envoy's inbound listener, which outbound traffic through its outbound
 * listener, what is left alone (ports, CIDRs, the proxy's uid/gid, interfaces) and whether DNS is
 * sent to the agent's DNS proxy.
 */
import type { CaptureConfig } from "../src/agent/capture/config.js";
import { DNS_PROXY_PORT, ownerGroupFilter, splitList } from "../src/agent/capture/config.js";
import type { PodCapture } from "../src/agent/capture/pod-capture.js";

export interface TrafficModel {
  /** Who programs the capture; "none" with `note` saying why nothing is captured. */
  by: "istio-init" | "istio-cni" | "none";
  note?: string;
  backend: "iptables" | "nftables";
  mode: string;
  inbound: {
    /** `all` (except `excluded`), `some` (only `ports`), `none`. */
    captured: "all" | "some" | "none";
    ports: string[];
    /** Never captured: the HBONE tunnel port and the excluded ports. */
    excluded: string[];
    capturePort: string;
  };
  outbound: {
    proxyPort: string;
    /** Destinations captured: `all` (except `excludedRanges`), `some` (only `ranges`), `none`. */
    captured: "all" | "some" | "none";
    ranges: string[];
    excludedRanges: string[];
    /** Captured whatever the destination. */
    includedPorts: string[];
    excludedPorts: string[];
    /** Traffic of these users and groups (Envoy's own) is never captured. */
    uids: string[];
    gids: string[];
    /** Owner groups: all except `values`, or only `values`. */
    ownerGroups: { values: string[]; except: boolean };
    loopback: string;
  };
  interfaces: { excluded: string[]; virtual: string[] };
  /** DNS to port 53 sent to the agent's DNS proxy; undefined when off. */
  dns?: { all: boolean; servers: string[]; port: string };
  /** The app's declared ports, where inbound traffic ends. */
  appPorts: string[];
}

function fromConfig(c: CaptureConfig, by: "istio-init" | "istio-cni", appPorts: string[]): TrafficModel {
  const inboundPorts = splitList(c.InboundPortsInclude);
  const ranges = splitList(c.OutboundIPRangesInclude);
  return {
    by,
    backend: c.NativeNftables ? "nftables" : "iptables",
    mode: c.InboundInterceptionMode === "" ? "REDIRECT" : c.InboundInterceptionMode,
    inbound: {
      captured: c.InboundPortsInclude === "*" ? "all" : inboundPorts.length > 0 ? "some" : "none",
      ports: c.InboundPortsInclude === "*" ? [] : inboundPorts,
      excluded: [
        c.InboundTunnelPort,
        ...(c.InboundPortsInclude === "*" ? splitList(c.InboundPortsExclude) : []),
      ].filter((p) => p !== ""),
      capturePort: c.InboundCapturePort,
    },
    outbound: {
      proxyPort: c.ProxyPort,
      captured: c.OutboundIPRangesInclude === "*" ? "all" : ranges.length > 0 ? "some" : "none",
      ranges: c.OutboundIPRangesInclude === "*" ? [] : ranges,
      excludedRanges: splitList(c.OutboundIPRangesExclude),
      includedPorts: splitList(c.OutboundPortsInclude),
      excludedPorts: splitList(c.OutboundPortsExclude),
      uids: splitList(c.ProxyUID),
      gids: splitList(c.ProxyGID),
      ownerGroups: ownerGroupFilter(c.OwnerGroupsInclude, c.OwnerGroupsExclude),
      loopback: c.HostIPv4LoopbackCidr,
    },
    interfaces: { excluded: splitList(c.ExcludeInterfaces), virtual: splitList(c.RerouteVirtualInterfaces) },
    dns: c.RedirectDNS
      ? { all: c.CaptureAllDNS, servers: [...c.DNSServersV4, ...c.DNSServersV6], port: DNS_PROXY_PORT }
      : undefined,
    appPorts,
  };
}

const NONE: Omit<TrafficModel, "by" | "note" | "appPorts"> = {
  backend: "iptables",
  mode: "",
  inbound: { captured: "none", ports: [], excluded: [], capturePort: "" },
  outbound: {
    proxyPort: "",
    captured: "none",
    ranges: [],
    excludedRanges: [],
    includedPorts: [],
    excludedPorts: [],
    uids: [],
    gids: [],
    ownerGroups: { values: [], except: true },
    loopback: "",
  },
  interfaces: { excluded: [], virtual: [] },
};

/** The Traffic picture's model of a pod's capture; `appPorts` are the app containers' declared ports. */
export function trafficModel(capture: PodCapture, appPorts: string[]): TrafficModel {
  if (capture.by === "none") {
    return {
      ...NONE,
      by: "none",
      note: capture.proxy
        ? "no traffic capture: the pod has istio-proxy but no istio-init or istio-validation (interception mode NONE)"
        : "not injected: nothing is captured",
      appPorts,
    };
  }
  const c = capture.config;
  if (capture.by === "istio-init" && c.SkipRuleApply) {
    return { ...NONE, by: "none", note: "istio-init runs with --skip-rule-apply: no rules are programmed", appPorts };
  }
  if (c.CleanupOnly && !c.NativeNftables) {
    return {
      ...NONE,
      by: "none",
      note: "istio-init runs with --cleanup-only: Istio's rules are removed, none added",
      appPorts,
    };
  }
  return fromConfig(c, capture.by, appPorts);
}
