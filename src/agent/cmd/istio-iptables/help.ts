/** `pilot-agent istio-iptables --help`: its flags as tools/istio-iptables/pkg/cmd/root.go registers them. */
import { defaultCaptureConfig } from "../../capture/config.js";
import { IPTABLES_FLAGS } from "../../capture/iptables-command.js";
import { type FlagHelp, PILOT_AGENT_GLOBAL_FLAGS, renderHelp } from "../cobra-usage.js";

const USAGE: Record<string, string> = {
  "envoy-port": "Specify the envoy port to which redirect all TCP traffic.",
  "inbound-capture-port": "Port to which all inbound TCP traffic to the pod/VM should be redirected to.",
  "inbound-tunnel-port": "Specify the istio tunnel port for inbound tcp traffic.",
  "proxy-uid":
    "Specify the UID of the user for which the redirection is not applied. Typically, this is the UID of the proxy container.",
  "proxy-gid": "Specify the GID of the user for which the redirection is not applied (same default value as -u param).",
  "istio-inbound-interception-mode":
    'The mode used to redirect inbound connections to Envoy, either "REDIRECT" or "TPROXY".',
  "istio-inbound-ports":
    'Comma separated list of inbound ports for which traffic is to be redirected to Envoy (optional). The wildcard character "*" can be used to configure redirection for all ports. An empty list will disable.',
  "istio-local-exclude-ports":
    'Comma separated list of inbound ports to be excluded from redirection to Envoy (optional). Only applies when all inbound traffic (i.e. "*") is being redirected.',
  "istio-exclude-interfaces":
    "Comma separated list of NIC (optional). Neither inbound nor outbound traffic will be captured.",
  "istio-service-cidr":
    'Comma separated list of IP ranges in CIDR form to redirect to envoy (optional). The wildcard character "*" can be used to redirect all outbound traffic. An empty list will disable all outbound.',
  "istio-service-exclude-cidr":
    'Comma separated list of IP ranges in CIDR form to be excluded from redirection. Only applies when all  outbound traffic (i.e. "*") is being redirected.',
  "istio-outbound-ports": "Comma separated list of outbound ports to be explicitly included for redirection to Envoy.",
  "istio-local-outbound-ports-exclude":
    "Comma separated list of outbound ports to be excluded from redirection to Envoy.",
  "kube-virt-interfaces":
    "Comma separated list of virtual interfaces whose inbound traffic (from VM) will be treated as outbound.",
  "istio-inbound-tproxy-mark": "",
  "istio-inbound-tproxy-route-table": "",
  "dry-run": "Do not call any external dependencies like iptables.",
  "iptables-probe-port": "Set listen port for failure detection.",
  "probe-timeout": "Failure detection timeout.",
  "skip-rule-apply": "Skip iptables apply.",
  "run-validation": "Validate iptables.",
  "redirect-dns": "Enable capture of dns traffic by istio-agent.",
  "drop-invalid": "Enable invalid drop in the iptables rules.",
  "dual-stack": "Enable ipv4/ipv6 redirects for dual-stack.",
  "capture-all-dns":
    "Instead of only capturing DNS traffic to DNS server IP, capture all DNS traffic at port 53. This setting is only effective when redirect dns is enabled.",
  "network-namespace": "The network namespace that iptables rules should be applied to.",
  "cni-mode": "Whether to run as CNI plugin.",
  reconcile: "Reconcile pre-existing and incompatible iptables rules instead of failing if drift is detected.",
  "cleanup-only": "Perform a forced cleanup without creating new iptables chains or rules.",
  "force-apply": "Apply iptables changes even if they appear to already be in place.",
  "native-nftables": "Use native nftables instead of iptables rules.",
  "force-iptables-binary": "Break glass option to choose which iptables binary to use.",
};

function flagHelps(): FlagHelp[] {
  const defaults = defaultCaptureConfig() as unknown as Record<string, unknown>;
  // The defaults before the environment is read: no owner group or loopback settings are flags.
  return IPTABLES_FLAGS.map((f) => ({
    name: f.name,
    ...(f.shorthand === undefined ? {} : { shorthand: f.shorthand }),
    type: f.kind,
    defValue: String(defaults[f.field] ?? ""),
    usage: USAGE[f.name] ?? "",
  }));
}

export function istioIptablesHelp(): string {
  return renderHelp({
    path: "pilot-agent istio-iptables",
    description: "istio-iptables is responsible for setting up port forwarding for Istio Sidecar.",
    flags: flagHelps(),
    globalFlags: PILOT_AGENT_GLOBAL_FLAGS,
  });
}
