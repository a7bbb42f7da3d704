/**
 * pilot-agent's ConstructProxyConfig (pilot/cmd/pilot-agent/config/config.go), pure: the proxy
 * config the agent starts Envoy with.
 *
 * 1. getMeshConfig (src/mesh agentMeshConfig): defaults < mesh config file < `PROXY_CONFIG` env <
 *    `proxy.istio.io/config` annotation; its `defaultConfig` is the proxy config;
 * 2. concurrency: when the config leaves it unset, the CPU limit (`ISTIO_CPU_LIMIT`, if not 0);
 *    then a non-zero legacy `--concurrency` flag wins over everything;
 * 3. an empty `serviceCluster` becomes the `--serviceCluster` flag;
 * 4. the config is validated (an error stops the agent);
 * 5. the annotations `sidecar.istio.io/discoveryAddress` and `status.sidecar.istio.io/port`
 *    replace `discoveryAddress` and `statusPort` (a port that is not an integer gives 0).
 */
import { atoi, numErrorText } from "../../go/strconv.js";
import { DurationError } from "../../go/time/duration.js";
import { oneLine } from "../../kube/one-line.js";
import {
  agentMeshConfig,
  defaultProxyConfig,
  MeshConfigError,
  MeshYamlError,
  PROXY_CONFIG_ANNOTATION,
  ProtoJSONError,
  type ProxyConfig,
  validateProxyConfig,
} from "../../mesh/index.js";
import { toInt32 } from "./agent-args.js";
import { BootstrapError } from "./errors.js";

export const DISCOVERY_ADDRESS_ANNOTATION = "sidecar.istio.io/discoveryAddress";
export const STATUS_PORT_ANNOTATION = "status.sidecar.istio.io/port";

export interface AgentStart {
  /** The mesh config file's content, when the file exists in the container. */
  meshConfigFile?: string;
  /** The `PROXY_CONFIG` environment variable. */
  proxyConfigEnv?: string;
  /** The pod annotations pilot-agent reads (from its podinfo file); undefined when it cannot read them. */
  annotations?: Readonly<Record<string, string>>;
  /** `--concurrency` (0 when not given). */
  concurrencyFlag?: bigint;
  /** `--serviceCluster` (pilot-agent's default `istio-proxy`). */
  serviceClusterFlag?: string;
  /** `ISTIO_CPU_LIMIT` (0 when unset). */
  cpuLimit?: bigint;
}

/** Where the proxy's concurrency came from. */
export type ConcurrencySource = "proxy config" | "cpu limit" | "--concurrency flag" | "unset";

export interface ConstructedProxyConfig {
  proxyConfig: ProxyConfig;
  concurrencySource: ConcurrencySource;
  /** Things pilot-agent logs about the config (validation warnings, an unparsable status port). */
  warnings: string[];
}

const LAYERS = [
  ["meshConfigFile", "the mesh config file"],
  ["proxyConfigEnv", "the PROXY_CONFIG environment variable"],
  ["proxyConfigAnnotation", `the ${PROXY_CONFIG_ANNOTATION} annotation`],
] as const;

function isConfigError(e: unknown): e is Error {
  return (
    e instanceof MeshConfigError ||
    e instanceof MeshYamlError ||
    e instanceof ProtoJSONError ||
    e instanceof DurationError
  );
}

/** getMeshConfig; a layer that does not parse is named in the error. */
function meshProxyConfig(start: AgentStart): ProxyConfig {
  const inputs = {
    meshConfigFile: start.meshConfigFile,
    proxyConfigEnv: start.proxyConfigEnv,
    proxyConfigAnnotation: start.annotations?.[PROXY_CONFIG_ANNOTATION],
  };
  try {
    const mc = agentMeshConfig(inputs);
    return (mc.defaultConfig ?? defaultProxyConfig()) as ProxyConfig;
  } catch (e) {
    if (!isConfigError(e)) throw e;
    // Find the first layer that fails, applying them one more at a time.
    let layer = "the proxy config";
    for (let n = 1; n <= LAYERS.length; n++) {
      const partial = Object.fromEntries(LAYERS.slice(0, n).map(([key]) => [key, inputs[key]]));
      try {
        agentMeshConfig(partial);
      } catch {
        layer = LAYERS[n - 1]?.[1] ?? layer;
        break;
      }
    }
    throw new BootstrapError(`pilot-agent cannot read ${layer}: ${oneLine(e.message)}`, { cause: e });
  }
}

export function constructProxyConfig(start: AgentStart): ConstructedProxyConfig {
  const pc: ProxyConfig = { ...meshProxyConfig(start) };
  const warnings: string[] = [];
  let concurrencySource: ConcurrencySource =
    pc.concurrency === undefined || pc.concurrency === null ? "unset" : "proxy config";
  const cpuLimit = start.cpuLimit ?? 0n;
  if ((pc.concurrency === undefined || pc.concurrency === null) && cpuLimit !== 0n) {
    pc.concurrency = toInt32(cpuLimit);
    concurrencySource = "cpu limit";
  }
  const flag = start.concurrencyFlag ?? 0n;
  if (flag !== 0n) {
    pc.concurrency = toInt32(flag);
    concurrencySource = "--concurrency flag";
  }
  if (pc.serviceCluster === "") pc.serviceCluster = start.serviceClusterFlag ?? "istio-proxy";
  const { errors, warnings: found } = validateProxyConfig(pc);
  if (errors.length > 0) {
    throw new BootstrapError(`pilot-agent rejects the proxy config: ${errors.map(oneLine).join("; ")}`);
  }
  warnings.push(...found.map((w) => `proxy config: ${oneLine(w)}`));
  const annotations = start.annotations ?? {};
  if (Object.hasOwn(annotations, DISCOVERY_ADDRESS_ANNOTATION)) {
    pc.discoveryAddress = annotations[DISCOVERY_ADDRESS_ANNOTATION];
  }
  if (Object.hasOwn(annotations, STATUS_PORT_ANNOTATION)) {
    const raw = annotations[STATUS_PORT_ANNOTATION] as string;
    // As applyAnnotations: the value is used even on an error (0, or clamped when out of range).
    const { value, err } = atoi(raw);
    if (err !== undefined) {
      warnings.push(`invalid annotation ${STATUS_PORT_ANNOTATION}=${raw}: ${numErrorText("Atoi", raw, err)}`);
    }
    pc.statusPort = toInt32(value);
  }
  return { proxyConfig: pc, concurrencySource, warnings };
}
