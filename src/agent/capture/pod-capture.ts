/**
 * A pod's traffic capture, read from its injected spec: the CaptureConfig that `istio-init` will
 * program (its istio-iptables arguments and environment, flags.ts), or, for a pod injected for the
 * istio-cni plugin (`istio-validation` instead of `istio-init`), the one the plugin programs from
 * the pod's annotations and proxy container (cni-sidecar.ts). The containers' environment is
 * resolved as far as the manifest allows (../pod-env.ts: literal values, the downward-API fieldRefs
 * and CPU resourceFieldRefs the pod determines). The facts istio-iptables finds out
 * at run time (IPv6, the resolv.conf name servers) are the caller's; the config is checked as
 * Istio checks it before programming anything.
 */

import { type Container, findContainer, INIT_CONTAINER, type Json, VALIDATION_CONTAINER } from "../../inject/pod.js";
import type { PodParts } from "../../kube/workloads.js";
import { podNamespace } from "../../kube/workloads.js";
import { ipsSplitV4V6 } from "../netip.js";
import { PILOT_AGENT, programName } from "../pilot-agent.js";
import { containersOf, proxyContainer, securityId } from "../pod-containers.js";
import { expandedCommandLine, type PodFacts, podFacts, resolveEnv } from "../pod-env.js";
import { cniSidecarCaptureConfig } from "./cni-sidecar.js";
import type { CaptureConfig } from "./config.js";
import { parseCaptureArgs } from "./flags.js";
import { captureEnvNames, ISTIO_IPTABLES } from "./iptables-command.js";
import { validateIPv4LoopbackCidr, validateIptablesBinary, validateOwnerGroups } from "./validate.js";

/** A pod whose capture cannot be read: istio-init runs another program, or a name server is no address. */
export class PodCaptureError extends Error {
  override name = "PodCaptureError";
}

export interface PodCaptureOptions {
  /** The namespace of objects that name none (`-n`), for the downward API's metadata.namespace. */
  namespace?: string;
  /** Whether the pod has an IPv6 address (istio-iptables decides this at run time). */
  ipv6?: boolean;
  /** The pod's /etc/resolv.conf name servers, used when DNS is redirected but not all captured. */
  dnsServers?: readonly string[];
}

/** Where a pod's capture comes from, and the config when there is one. */
export type PodCapture =
  /** Neither istio-init nor istio-validation: nothing is captured; `proxy` says whether it has istio-proxy. */
  | { readonly by: "none"; readonly proxy: boolean }
  /**
   * istio-init runs istio-iptables with `commandLine`; `fromEnv` names the settings its environment
   * gave. With SkipRuleApply the config is as the flags left it (no run-time facts, not checked).
   */
  | {
      readonly by: "istio-init";
      readonly commandLine: readonly string[];
      readonly fromEnv: Partial<Record<keyof CaptureConfig, string>>;
      readonly config: CaptureConfig;
    }
  /** The istio-cni plugin programs the pod; istio-validation only checks. */
  | { readonly by: "istio-cni"; readonly config: CaptureConfig };

/** The proxy container's variables the istio-cni plugin reads (cni-sidecar.ts). */
const CNI_PROXY_ENV: ReadonlySet<string> = new Set(["ISTIO_META_DNS_CAPTURE", "ISTIO_DUAL_STACK", "INVALID_DROP"]);

/**
 * A container's environment as name → value, resolved as far as the manifest allows. A variable of
 * `relevant` whose value only the cluster knows is left unset, with a warning; so is `envFrom`.
 */
function containerEnv(
  container: Container,
  pod: PodFacts,
  relevant: ReadonlySet<string>,
  warn: (message: string) => void,
): ReadonlyMap<string, string> {
  const env = resolveEnv(container, pod);
  for (const [name, why] of env.unknown) {
    if (relevant.has(name)) {
      warn(
        `container ${container.name}: env ${name} comes from valueFrom that only the cluster can resolve (${why}); left unset`,
      );
    }
  }
  if (env.envFrom) {
    warn(`container ${container.name}: envFrom (ConfigMaps, Secrets) is not read; only its env entries are used`);
  }
  return env.values;
}

/**
 * The command line of istio-init (command + args), checked to run istio-iptables; `$(VAR)` in it
 * expanded over the container's known env, as the kubelet does before starting it.
 */
function initCommandLine(container: Container, env: ReadonlyMap<string, string> = new Map()): string[] {
  const expanded = expandedCommandLine(container, env);
  const line = [...expanded.command, ...expanded.args];
  const first = line[0];
  if (first !== undefined && !first.startsWith("-")) {
    const program = programName(first);
    if (program !== ISTIO_IPTABLES && program !== PILOT_AGENT) {
      throw new PodCaptureError(
        `container ${container.name} runs ${JSON.stringify(first)}, not istio-iptables: its rules cannot be read from its arguments`,
      );
    }
    if (program === PILOT_AGENT && line[1] !== undefined && line[1] !== ISTIO_IPTABLES && !line[1].startsWith("-")) {
      throw new PodCaptureError(
        `container ${container.name} runs pilot-agent ${JSON.stringify(line[1])}, not pilot-agent istio-iptables`,
      );
    }
  }
  return line;
}

/**
 * Name servers split by family, as istio-iptables splits the resolv.conf ones (ipsSplitV4V6). Throws
 * PodCaptureError (`--dns-servers: ...`) for one that is not an IP address, where istio-iptables
 * would skip a resolv.conf entry: here the servers are the user's.
 */
export function splitNameServers(servers: readonly string[]): { v4: string[]; v6: string[] } {
  return ipsSplitV4V6(servers, (server) => {
    throw new PodCaptureError(`--dns-servers: ${JSON.stringify(server)} is not an IP address`);
  });
}

/** The run-time facts added to a config, which is then checked as Istio checks it (tools/common/config Validate). */
function completed(config: CaptureConfig, options: PodCaptureOptions, warn: (message: string) => void): void {
  config.EnableIPv6 = options.ipv6 ?? false;
  if (config.RedirectDNS && !config.CaptureAllDNS) {
    const servers = splitNameServers(options.dnsServers ?? []);
    config.DNSServersV4 = servers.v4;
    config.DNSServersV6 = servers.v6;
    if (servers.v4.length + servers.v6.length === 0) {
      warn(
        "DNS capture is on without --capture-all-dns: istio-iptables captures DNS sent to the pod's /etc/resolv.conf " +
          "name servers, known only at run time, and none were given, so no DNS rules are shown; pass --dns-servers",
      );
    }
  }
  validateOwnerGroups(config.OwnerGroupsInclude, config.OwnerGroupsExclude);
  validateIPv4LoopbackCidr(config.HostIPv4LoopbackCidr);
  validateIptablesBinary(config.ForceIptablesBinary);
}

/** The capture of istio-init: its istio-iptables command line and environment. */
function initCapture(
  init: Container,
  pod: PodFacts,
  options: PodCaptureOptions,
  warn: (message: string) => void,
): PodCapture {
  const env = containerEnv(init, pod, captureEnvNames(), warn);
  const commandLine = initCommandLine(init, env);
  const parsed = parseCaptureArgs(commandLine, { env: Object.fromEntries(env) });
  if (parsed.positional.length > 0) {
    warn(
      `container ${INIT_CONTAINER}: istio-iptables ignores the arguments ${parsed.positional.map((a) => JSON.stringify(a)).join(" ")} ` +
        "(a boolean flag takes its value as --flag=value, not --flag value)",
    );
  }
  if (!parsed.config.SkipRuleApply) completed(parsed.config, options, warn);
  return { by: "istio-init", commandLine, fromEnv: parsed.fromEnv, config: parsed.config };
}

/** The capture the istio-cni plugin programs; istio-validation's args still say which backend. */
function cniCapture(
  facts: PodFacts,
  validation: Container,
  proxy: Container | undefined,
  options: PodCaptureOptions,
  warn: (message: string) => void,
): PodCapture {
  const parsed = parseCaptureArgs(initCommandLine(validation));
  const config = cniSidecarCaptureConfig(
    {
      annotations: facts.annotations,
      proxyContainerEnv: proxy === undefined ? {} : Object.fromEntries(containerEnv(proxy, facts, CNI_PROXY_ENV, warn)),
      proxyRunAsUser: proxy === undefined ? null : securityId(proxy, "runAsUser"),
      proxyRunAsGroup: proxy === undefined ? null : securityId(proxy, "runAsGroup"),
    },
    { enableIPv6: options.ipv6 ?? false },
    (message) => warn(message),
  );
  config.NativeNftables = parsed.config.NativeNftables;
  completed(config, options, warn);
  return { by: "istio-cni", config };
}

/**
 * The traffic capture of the pod of `obj` (a workload; `pod` its pod parts); `warn` receives what
 * the config cannot show or the pod may not mean. Throws PodCaptureError, ContainerFieldError,
 * QuantityError, CaptureFlagError, CniAnnotationError and the checks' errors (validate.ts,
 * ranges.ts), each naming the container or setting.
 */
export function podCapture(
  obj: Json,
  pod: PodParts,
  options: PodCaptureOptions,
  warn: (message: string) => void,
): PodCapture {
  const inits = containersOf(pod.spec, "initContainers");
  const init = findContainer(INIT_CONTAINER, inits);
  const validation = findContainer(VALIDATION_CONTAINER, inits);
  const proxy = proxyContainer(pod.spec);
  // The namespace is the manifest's, else the one the objects are applied to (-n), as proxy-config reads it.
  const facts = podFacts(obj, pod, podNamespace(obj, pod.metadata, options.namespace ?? "") || undefined);
  if (init !== undefined) return initCapture(init, facts, options, warn);
  if (validation !== undefined) return cniCapture(facts, validation, proxy, options, warn);
  return { by: "none", proxy: proxy !== undefined };
}
