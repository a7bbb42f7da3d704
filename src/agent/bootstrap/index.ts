/**
 * How pilot-agent in an injected pod's istio-proxy container starts: its effective proxy config
 * (ConstructProxyConfig), its identity and DNS domain, worked out offline from the pod spec.
 */
export { type AgentArgs, parseAgentArgs, parseGoInt, toInt32 } from "./agent-args.js";
export {
  type AgentStart,
  type ConcurrencySource,
  type ConstructedProxyConfig,
  constructProxyConfig,
  DISCOVERY_ADDRESS_ANNOTATION,
  STATUS_PORT_ANNOTATION,
} from "./construct.js";
export { BootstrapError } from "./errors.js";
export { formatBootstrap } from "./format.js";
export { dnsDomain, type ProxyIdentity, proxyIdentity, spiffeId } from "./identity.js";
export { type MountedFile, mountedFile } from "./mounts.js";
export { type BootstrapOptions, type PodBootstrap, podBootstrap } from "./pod.js";
export { type PodStart, proxyConfigReport, proxyStarts, type StreamOptions } from "./stream.js";
