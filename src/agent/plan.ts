/**
 * What `meshinject agent proxy` will do, worked out before anything starts — pure: from the command
 * line, the environment and the texts of the files pilot-agent reads (the mesh config, the pod's
 * downward-API files), the proxy config (ConstructProxyConfig), the node's identity and metadata
 * options, Envoy's configuration and the drain settings, as pilot-agent's options package builds them
 * (pilot/cmd/pilot-agent/options, pkg/istio-agent). Bad input is a one-line AgentConfigError.
 * The one model of pilot-agent: the daemon plans itself with it (options/agent-options.ts), and the
 * reports and the playground plan a pod spec with it (pod-agent.ts gives them its input).
 */

import { joinPath } from "../go/path.js";
import { parseProtoDuration } from "../mesh/duration.js";
import type { ProxyConfig } from "../mesh/index.js";
import { type AgentArgs, parseGoInt, toInt32 } from "./bootstrap/agent-args.js";
import { type ConcurrencySource, constructProxyConfig } from "./bootstrap/construct.js";
import { DEFAULT_TEMPLATE_PATH } from "./bootstrap/default-template.js";
import { DownwardAPIError, parseDownwardAPI } from "./bootstrap/downward-api.js";
import { BootstrapError } from "./bootstrap/errors.js";
import { dnsDomain, serviceNode as proxyServiceNode } from "./bootstrap/identity.js";
import { MetadataTypeError } from "./bootstrap/metadata-fields.js";
import { getNodeMetaData, type MetadataOptions, type Node } from "./bootstrap/node-metadata.js";
import { type BootstrapConfig, type BootstrapFeatures, DEFAULT_FEATURES } from "./bootstrap/template-params.js";
import type { EnvoyConfig } from "./envoy/args.js";
import {
  AddressError,
  formatAddr,
  isLinkLocalMulticast,
  isLinkLocalUnicast,
  isLoopback,
  parseAddr,
  unmap,
} from "./netip.js";
import { envReader } from "./options/env.js";

/** Input the agent cannot start with; the message names the variable, flag or file. */
export class AgentConfigError extends Error {
  override name = "AgentConfigError";
}

/** The ports pilot-agent gives Envoy's own listeners by default (ENVOY_STATUS_PORT, ENVOY_PROMETHEUS_PORT). */
export const ENVOY_STATUS_PORT = 15021;
export const ENVOY_PROMETHEUS_PORT = 15090;

/** Where pilot-agent reads the pod's downward-API annotations and labels (the istio-podinfo volume). */
export const POD_ANNOTATIONS_FILE = "./etc/istio/pod/annotations";
export const POD_LABELS_FILE = "./etc/istio/pod/labels";

export interface AgentFiles {
  /** The mesh config file (`--meshConfig`), when it exists. */
  meshConfig?: string;
  /** POD_ANNOTATIONS_FILE, when readable. */
  annotations?: string;
  /** POD_LABELS_FILE, when readable. */
  labels?: string;
  /** The credential socket (`./var/run/secrets/credential-uds/socket`) exists. */
  credentialSocketExists?: boolean;
  /** The file credential socket (`./var/run/secrets/credential-uds/files-socket`) exists. */
  customCredentialsFileExists?: boolean;
}

export interface AgentPlanInputs {
  args: AgentArgs;
  env: Readonly<Record<string, string>>;
  files: AgentFiles;
  /** The addresses of the host's non-loopback interfaces, in interface order (filtered here as GetPrivateIPs). */
  hostIPs: readonly string[];
  /** Every interface's addresses by name, for traffic.sidecar.istio.io/excludeInterfaces. */
  interfaceAddresses?: Readonly<Record<string, readonly string[]>>;
  /** The agent's version (ISTIO_VERSION of the node when the metadata gives none). */
  binaryVersion: string;
}

export interface DrainPlan {
  /** Sidecars drain inbound listeners only. */
  inboundOnly: boolean;
  terminationDrainMs: number;
  minDrainMs: number;
  exitOnZeroActiveConnections: boolean;
}

export interface AgentPlan {
  proxyType: string;
  /** `POD_NAME.POD_NAMESPACE`. */
  id: string;
  domain: string;
  /** `type~ip~id~domain`, Envoy's node ID. */
  serviceNode: string;
  podNamespace: string;
  proxyConfig: ProxyConfig;
  /** What set the proxy config's concurrency (ConstructProxyConfig). */
  concurrencySource: ConcurrencySource;
  /** config.CPULimit: ISTIO_CPU_LIMIT as read (0 when unset or not an integer). */
  cpuLimit: bigint;
  instanceIPs: string[];
  metadataOptions: Omit<MetadataOptions, "annotationsFile" | "labelsFile"> & {
    annotationsFile?: string;
    labelsFile?: string;
  };
  features: BootstrapFeatures;
  compliancePolicy: string;
  logAsJSON: boolean;
  /** The bootstrap template to use: a path (ISTIO_BOOTSTRAP, --templateFile, customConfigFile, proxyBootstrapTemplatePath), else the default path. */
  templatePath: string;
  /** ISTIO_BOOTSTRAP_OVERRIDE: a bootstrap file Envoy merges over ours (`--config-yaml`). */
  bootstrapOverridePath?: string;
  envoy: EnvoyConfig;
  /** DISABLE_ENVOY (the grpc-agent template sets it): the agent runs without Envoy. */
  disableEnvoy: boolean;
  /** GRPC_XDS_BOOTSTRAP (default ./etc/istio/proxy/grpc-bootstrap.json): where the gRPC bootstrap goes; undefined when set empty. */
  grpcBootstrapPath?: string;
  drain: DrainPlan;
  /** `--profiling` (default true): the status server serves /debug/pprof/. */
  profiling: boolean;
  /** pilot-agent's `--log_output_level` (default `default:info`). */
  logOutputLevel: string;
  warnings: string[];
}

const DEFAULT_GRPC_BOOTSTRAP = "./etc/istio/proxy/grpc-bootstrap.json";
const FIPS_POLICIES = new Set(["fips-140-2", "fips-140-3"]);

/** config.GetPilotSan: ISTIOD_SAN, else the discovery address's host (`localhost` means istiod). */
export function pilotSAN(discoveryAddress: string, env: Readonly<Record<string, string>>): string {
  if (env.ISTIOD_SAN) return env.ISTIOD_SAN;
  const host = discoveryAddress.split(":")[0] ?? "";
  return host === "localhost" ? "istiod.istio-system.svc" : host;
}

function durationMs(d: unknown): number | undefined {
  if (typeof d !== "string") return undefined;
  return Number(parseProtoDuration(d) / 1_000_000n);
}

/** An address as GetPrivateIPsIfAvailable keeps it (unmapped, not loopback, link-local or unspecified), else undefined. */
function privateIP(text: string): string | undefined {
  let a: ReturnType<typeof parseAddr>;
  try {
    a = unmap(parseAddr(text.split("%")[0] ?? ""));
  } catch (e) {
    if (e instanceof AddressError) return undefined;
    throw e;
  }
  if (isLoopback(a) || isLinkLocalUnicast(a) || isLinkLocalMulticast(a) || a.bytes.every((b) => b === 0))
    return undefined;
  return formatAddr(a);
}

/**
 * app/cmd.go initProxy: INSTANCE_IP first when it parses (one address), then the host's private
 * addresses (127.0.0.1 and ::1 when there are none), less those of the interfaces in the pod's
 * traffic.sidecar.istio.io/excludeInterfaces annotation and the pod IP itself.
 */
function proxyIPAddresses(
  instanceIP: string,
  inputs: AgentPlanInputs,
  annotations: Record<string, string> | undefined,
): string[] {
  const out: string[] = [];
  try {
    out.push(formatAddr(parseAddr(instanceIP)));
  } catch (e) {
    if (!(e instanceof AddressError)) throw e;
  }
  let proxyAddrs = inputs.hostIPs.map(privateIP).filter((a): a is string => a !== undefined);
  if (proxyAddrs.length === 0) proxyAddrs = ["127.0.0.1", "::1"];
  const exclude = new Set(out);
  const excluded = annotations?.["traffic.sidecar.istio.io/excludeInterfaces"];
  if (excluded !== undefined) {
    for (const name of excluded.split(",")) {
      for (const text of inputs.interfaceAddresses?.[name] ?? []) {
        const a = privateIP(text);
        if (a !== undefined) exclude.add(a);
      }
    }
  }
  return [...out, ...proxyAddrs.filter((a) => !exclude.has(a))];
}

export function planAgent(inputs: AgentPlanInputs): AgentPlan {
  const { args, env, files } = inputs;
  const warnings: string[] = [];
  // Istio's pkg/env policy: a value that does not parse is a warning, and the default is used.
  const read = envReader(env, (w) => warnings.push(w));
  // POD_NAME and POD_NAMESPACE may be unset (a VM): the ID is then ".", as pilot-agent's.
  const podName = env.POD_NAME ?? "";
  const podNamespace = env.POD_NAMESPACE ?? "";
  let annotations: Record<string, string> | undefined;
  if (files.annotations !== undefined) {
    // ConstructProxyConfig reads the annotations file itself; a bad file only loses the annotations.
    try {
      annotations = parseDownwardAPI(files.annotations);
    } catch (e) {
      if (!(e instanceof DownwardAPIError)) throw e;
      warnings.push(`failed to read the pod annotations file: ${e.message}; proxy config annotations ignored`);
    }
  }
  // config.CPULimit: an int environment variable (strconv.Atoi, decimal only), 0 when it does not parse.
  const cpuLimit = read.int64("ISTIO_CPU_LIMIT", 0n);
  let built: ReturnType<typeof constructProxyConfig>;
  try {
    built = constructProxyConfig({
      meshConfigFile: files.meshConfig,
      proxyConfigEnv: env.PROXY_CONFIG,
      annotations,
      concurrencyFlag: args.concurrency,
      serviceClusterFlag: args.serviceCluster,
      cpuLimit,
    });
  } catch (e) {
    if (e instanceof BootstrapError) throw new AgentConfigError(e.message);
    throw e;
  }
  const pc = built.proxyConfig;
  warnings.push(...built.warnings);
  const instanceIPs = proxyIPAddresses(env.INSTANCE_IP ?? "", inputs, annotations);
  const id = `${podName}.${podNamespace}`;
  const domain = dnsDomain(args.domain, podNamespace);
  const serviceNode = proxyServiceNode({ type: args.proxyType, ipAddresses: instanceIPs, id, dnsDomain: domain });
  const flags = args.flags ?? {};
  let stsPort = 0;
  if (flags.stsPort !== undefined) {
    const n = parseGoInt(flags.stsPort);
    if (n === undefined) throw new AgentConfigError(`--stsPort ${JSON.stringify(flags.stsPort)}: not an integer`);
    stsPort = toInt32(n);
  }
  const exitOnZero = read.bool("EXIT_ON_ZERO_ACTIVE_CONNECTIONS", false);
  const metadataDiscovery = env.METADATA_DISCOVERY ? read.bool("METADATA_DISCOVERY", false) : undefined;
  const discoveryAddress = pc.discoveryAddress ?? "";
  const mutualTLS = pc.controlPlaneAuthPolicy === "MUTUAL_TLS" || pc.controlPlaneAuthPolicy === 1;
  const metadataOptions: AgentPlan["metadataOptions"] = {
    envs: Object.entries(env).map(([k, v]) => `${k}=${v}`),
    platform: { metadata: {}, locality: {}, labels: undefined, isKubernetes: true },
    instanceIPs,
    stsPort,
    id: serviceNode,
    proxyConfig: pc,
    pilotSubjectAltName: mutualTLS ? [pilotSAN(discoveryAddress, env)] : [],
    credentialSocketExists: files.credentialSocketExists === true,
    customCredentialsFileExists: files.customCredentialsFileExists === true,
    outlierLogPath: flags.outlierLogPath ?? "",
    // options.go: envoyStatusPortEnv, envoyPrometheusPortEnv and the mTLS metrics ports (0 = none).
    envoyStatusPort: read.int("ENVOY_STATUS_PORT", ENVOY_STATUS_PORT),
    envoyPrometheusPort: read.int("ENVOY_PROMETHEUS_PORT", ENVOY_PROMETHEUS_PORT),
    envoySecureMetricsPort: read.int("ENVOY_SECURE_METRICS_PORT", 0),
    envoySecureMergedMetricsPort: read.int("ENVOY_SECURE_MERGED_METRICS_PORT", 0),
    exitOnZeroActiveConnections: exitOnZero,
    metadataDiscovery,
    envoySkipDeprecatedLogs: read.bool("ENVOY_SKIP_DEPRECATED_LOGS", true),
    workloadIdentitySocketFile: env.WORKLOAD_IDENTITY_SOCKET_FILE || "socket",
    binaryVersion: inputs.binaryVersion,
    annotationsFile: files.annotations,
    labelsFile: files.labels,
    dnsProxyAddr: env.DNS_PROXY_ADDR,
  };
  const features: BootstrapFeatures = {
    deltaXds: read.bool("ISTIO_DELTA_XDS", DEFAULT_FEATURES.deltaXds),
    dualStack: read.bool("ISTIO_DUAL_STACK", DEFAULT_FEATURES.dualStack),
    statusPortProxyProtocol: read.bool("ENVOY_STATUS_PORT_ENABLE_PROXY_PROTOCOL", false),
    stripFragment: read.bool("HTTP_STRIP_FRAGMENT_FROM_PATH_UNSAFE_IF_DISABLED", true),
    hostIP: env.HOST_IP,
  };
  // GetEffectiveTemplatePath, with pilot-agent's --templateFile and ISTIO_BOOTSTRAP over it.
  const customConfigFile = typeof pc.customConfigFile === "string" ? pc.customConfigFile : "";
  const templateFromConfig =
    customConfigFile || (typeof pc.proxyBootstrapTemplatePath === "string" ? pc.proxyBootstrapTemplatePath : "");
  const templatePath = env.ISTIO_BOOTSTRAP || flags.templateFile || templateFromConfig || DEFAULT_TEMPLATE_PATH;
  // Agent.terminate: the proxy config's terminationDrainDuration (mesh default 5 s); no variable.
  const terminationDrainMs = durationMs(pc.terminationDrainDuration) ?? 5000;
  return {
    proxyType: args.proxyType,
    id,
    domain,
    serviceNode,
    podNamespace,
    proxyConfig: pc,
    concurrencySource: built.concurrencySource,
    cpuLimit,
    instanceIPs,
    metadataOptions,
    features,
    compliancePolicy: env.COMPLIANCE_POLICY ?? "",
    logAsJSON: flags.logAsJSON === true,
    templatePath,
    bootstrapOverridePath: env.ISTIO_BOOTSTRAP_OVERRIDE || undefined,
    envoy: {
      logLevel: flags.proxyLogLevel ?? "warning",
      componentLogLevel: flags.proxyComponentLogLevel ?? "misc:error",
      nodeIPs: instanceIPs,
      drainDuration: typeof pc.drainDuration === "string" ? pc.drainDuration : undefined,
      concurrency: typeof pc.concurrency === "number" ? pc.concurrency : undefined,
      skipDeprecatedLogs: metadataOptions.envoySkipDeprecatedLogs,
      enableCoreDump: read.bool("ISTIO_ENVOY_ENABLE_CORE_DUMP", false),
      fileFlushInterval: typeof pc.fileFlushInterval === "string" ? pc.fileFlushInterval : undefined,
      fileFlushMinSizeKB: typeof pc.fileFlushMinSizeKb === "number" ? pc.fileFlushMinSizeKb : undefined,
    },
    disableEnvoy: read.bool("DISABLE_ENVOY", false),
    // options.go grpcBootstrapEnv: ./etc/istio/proxy/grpc-bootstrap.json unless set (set empty: none).
    grpcBootstrapPath: read.string("GRPC_XDS_BOOTSTRAP", DEFAULT_GRPC_BOOTSTRAP) || undefined,
    drain: {
      inboundOnly: args.proxyType === "sidecar",
      terminationDrainMs,
      minDrainMs: read.durationMs("MINIMUM_DRAIN_DURATION", 5000),
      exitOnZeroActiveConnections: exitOnZero,
    },
    profiling: flags.profiling ?? true,
    logOutputLevel: flags.logOutputLevel ?? "default:info",
    warnings,
  };
}

/**
 * The node the plan's Envoy and istiod see (GetNodeMetaData over the plan's metadata options); a
 * metadata value of the wrong type is an AgentConfigError, as it stops pilot-agent.
 */
export function planNode(plan: AgentPlan): Node {
  try {
    return getNodeMetaData(plan.metadataOptions);
  } catch (e) {
    if (e instanceof MetadataTypeError) throw new AgentConfigError(`node metadata: ${e.message}`);
    throw e;
  }
}

/** pkg/bootstrap's lightstepAccessTokenBase, in the proxy config's configPath. */
export const LIGHTSTEP_TOKEN_FILE = "lightstep_access_token.txt";

/**
 * What the bootstrap template is rendered with, for the plan's node: one builder for the running
 * agent, `agent bootstrap` and the reports alike (pkg/bootstrap's Config and lightStepToken path).
 */
export function bootstrapConfig(plan: AgentPlan, node: Node): BootstrapConfig {
  return {
    node,
    compliancePolicy: plan.compliancePolicy,
    logAsJSON: plan.logAsJSON,
    features: plan.features,
    lightstepTokenPath: joinPath(plan.proxyConfig.configPath ?? "", LIGHTSTEP_TOKEN_FILE),
  };
}

/** The FIPS cipher suites Envoy's gRPC client gets under a FIPS compliance policy. */
export function envoyEnvironment(
  env: Readonly<Record<string, string>>,
  compliancePolicy: string,
): Record<string, string> {
  if (!FIPS_POLICIES.has(compliancePolicy)) return { ...env };
  return {
    ...env,
    GRPC_SSL_CIPHER_SUITES:
      "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384",
  };
}
