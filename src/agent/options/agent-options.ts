/**
 * The agent's options, built once before anything starts (pilot-agent's options package:
 * NewAgentOptions, NewSecurityOptions, NewStatusServerOptions): the command line read once, the
 * environment read once through one policy (./env.ts), the files under the root read once, and the
 * plan of what pilot-agent does (../plan.ts). Each server gets its slice — the status
 * server, the DNS proxy, the SDS server, the XDS proxy, the gRPC bootstrap, Envoy — and only its
 * slice. A bad start is a one-line error (isAgentStartError); a value that does not parse is a
 * warning in `warnings` and its default is used.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseAgentArgs } from "../bootstrap/agent-args.js";
import { BootstrapOptionError } from "../bootstrap/converters.js";
import { BUILT_IN_TEMPLATE, DEFAULT_TEMPLATE_PATH } from "../bootstrap/default-template.js";
import { BootstrapError } from "../bootstrap/errors.js";
import { grpcBootstrap, grpcBootstrapText } from "../bootstrap/grpc.js";
import { MetadataTypeError } from "../bootstrap/metadata-fields.js";
import type { Node } from "../bootstrap/node-metadata.js";
import { type BootstrapTemplate, BootstrapTemplateError } from "../bootstrap/render.js";
import type { DnsProxyOptions } from "../dns/server.js";
import { envoyArgs } from "../envoy/args.js";
import { BOOTSTRAP_FILE } from "../envoy/bootstrap-file.js";
import { BootstrapOverrideError, bootstrapOverrideJSON } from "../envoy/override.js";
import type { EnvoyProcessOptions } from "../envoy/supervisor.js";
import { AgentConfigError, type AgentPlan, envoyEnvironment, planAgent, planNode } from "../plan.js";
import { type Level, LogLevelError, parseOutputLevels } from "../process/log.js";
import type { SdsServerOptions } from "../sds/server.js";
import { AGENT_ISTIO_VERSION } from "../version.js";
import type { XdsProxyOptions } from "../xds/proxy.js";
import { dnsProxyOptionsFromEnv } from "./dns.js";
import { envReader } from "./env.js";
import { AgentFileError, hostIPs, interfaceAddresses, readAgentFiles, readIfPresent, underRoot } from "./files.js";
import { sdsOptionsFromEnv } from "./sds.js";
import { type StatusSlice, statusSlice } from "./status.js";
import { xdsProxyOptions } from "./xds.js";

export interface AgentCommandLine {
  /** The arguments after the program name: `proxy [sidecar|router] [flags]`. */
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  /** The folder pilot-agent's paths are relative to (`/` in a pod). */
  root: string;
  /** The status server's listen address (default `::`, as pilot-agent); tests keep it on loopback. */
  statusHost?: string;
  /** The host's interfaces' addresses by name (default: this machine's); tests give a pod's. */
  interfaces?: Readonly<Record<string, readonly string[]>>;
}

/** Envoy's slice: how to start and drain it, and the bootstrap it reads. */
export interface EnvoySlice extends Omit<EnvoyProcessOptions, "log" | "stdio"> {
  /** The template to render `envoy-rev.json` from, and its name for messages. */
  template: BootstrapTemplate;
  /** The proxy config's configPath as this process sees it (where `envoy-rev.json` goes). */
  configDir: string;
}

/** The proxyless gRPC bootstrap (GRPC_XDS_BOOTSTRAP): where it goes and what it says. */
export interface GrpcBootstrapSlice {
  /** The path as pilot-agent names it, and as this process writes it. */
  shown: string;
  path: string;
  text: string;
}

export interface AgentOptions {
  plan: AgentPlan;
  node: Node;
  log: { levels: Map<string, Level>; json: boolean };
  /** Undefined when the proxy config's statusPort is 0. */
  status?: StatusSlice;
  /** Undefined when the agent runs no DNS proxy. */
  dns?: DnsProxyOptions;
  sds: SdsServerOptions;
  /** The name table's sink is the DNS proxy, wired when both run. */
  xds: XdsProxyOptions;
  grpcBootstrap?: GrpcBootstrapSlice;
  /** Undefined under DISABLE_ENVOY. */
  envoy?: EnvoySlice;
  /** Lines to log as warnings at start-up (values that did not parse, files that did not read...). */
  warnings: string[];
}

/** Every error of a bad start, as one line. */
export function isAgentStartError(e: unknown): e is Error {
  return (
    e instanceof AgentConfigError ||
    e instanceof AgentFileError ||
    e instanceof BootstrapError ||
    e instanceof BootstrapOptionError ||
    e instanceof BootstrapTemplateError ||
    e instanceof BootstrapOverrideError ||
    e instanceof MetadataTypeError
  );
}

/** The command line, planned: what `agent bootstrap` needs and `agent proxy` starts from. */
export async function planFromCommandLine(cl: AgentCommandLine): Promise<{ plan: AgentPlan; node: Node }> {
  let args: ReturnType<typeof parseAgentArgs>;
  try {
    args = parseAgentArgs([], cl.args);
  } catch (e) {
    if (e instanceof BootstrapError) throw new AgentConfigError(e.message.replace(/^pilot-agent: /, "agent: "));
    throw e;
  }
  const files = await readAgentFiles(cl.root, args.meshConfig);
  const plan = planAgent({
    args,
    env: cl.env,
    files,
    // planAgent drops the loopback addresses (GetPrivateIPs), so a given interface list is taken whole.
    hostIPs: cl.interfaces === undefined ? hostIPs() : Object.values(cl.interfaces).flat(),
    interfaceAddresses: cl.interfaces ?? interfaceAddresses(),
    binaryVersion: AGENT_ISTIO_VERSION,
  });
  return { plan, node: planNode(plan) };
}

/** The bootstrap template's text and name: the file when it exists, the built-in one for the default path. */
export async function bootstrapTemplate(plan: AgentPlan, root: string): Promise<BootstrapTemplate> {
  const text = await readIfPresent(underRoot(root, plan.templatePath));
  if (text !== undefined) return { text, name: plan.templatePath };
  if (plan.templatePath === DEFAULT_TEMPLATE_PATH) return BUILT_IN_TEMPLATE;
  throw new AgentConfigError(`bootstrap template ${plan.templatePath}: no such file`);
}

/** Envoy's slice: the template and bootstrap override read, the command line built. */
async function envoySlice(cl: AgentCommandLine, plan: AgentPlan, configPath: string): Promise<EnvoySlice> {
  const pc = plan.proxyConfig;
  const template = await bootstrapTemplate(plan, cl.root);
  let override: string | undefined;
  if (plan.bootstrapOverridePath !== undefined) {
    const text = await readFile(underRoot(cl.root, plan.bootstrapOverridePath), "utf8").catch((e: Error) => {
      throw new AgentConfigError(`env ISTIO_BOOTSTRAP_OVERRIDE ${plan.bootstrapOverridePath}: ${e.message}`);
    });
    override = bootstrapOverrideJSON(text, cl.env.HOST_IP, plan.bootstrapOverridePath);
  }
  return {
    template,
    configDir: underRoot(cl.root, configPath),
    binaryPath: underRoot(cl.root, pc.binaryPath ?? "/usr/local/bin/envoy"),
    args: envoyArgs(plan.envoy, join(configPath, BOOTSTRAP_FILE), override),
    cwd: cl.root,
    env: envoyEnvironment(cl.env, plan.compliancePolicy),
    admin: { host: "localhost", port: pc.proxyAdminPort ?? 15000 },
    ports: {
      statusPort: plan.metadataOptions.envoyStatusPort ?? 15021,
      prometheusPort: plan.metadataOptions.envoyPrometheusPort ?? 15090,
      secureMetricsPort: plan.metadataOptions.envoySecureMetricsPort,
      secureMergedMetricsPort: plan.metadataOptions.envoySecureMergedMetricsPort,
    },
    drain: plan.drain,
    // agent.go: Envoy as 1337 when the agent is root and DNS_PROXY_ADDR (as set, default localhost:15053) ends in :53.
    agentIsRoot:
      process.getuid?.() === 0 && envReader(cl.env).string("DNS_PROXY_ADDR", "localhost:15053").endsWith(":53"),
  };
}

/** Reads the command line, the environment and the files under the root once, into every server's slice. */
export async function readAgentOptions(cl: AgentCommandLine): Promise<AgentOptions> {
  const { plan, node } = await planFromCommandLine(cl);
  let levels: Map<string, Level>;
  try {
    levels = parseOutputLevels(plan.logOutputLevel);
  } catch (e) {
    if (e instanceof LogLevelError) throw new AgentConfigError(e.message);
    throw e;
  }
  const warnings = [...plan.warnings, ...node.warnings];
  const read = envReader(cl.env, (w) => warnings.push(w));
  const pc = plan.proxyConfig;
  const configPath = pc.configPath ?? "./etc/istio/proxy";
  const discoveryAddress = pc.discoveryAddress ?? "";
  // Read once, for every server that needs them (options.go's PodNamespaceVar, clusterIDVar).
  const namespace = plan.podNamespace;
  const clusterId = read.string("ISTIO_META_CLUSTER_ID");
  const warn = (w: string) => warnings.push(w);
  const options: AgentOptions = {
    plan,
    node,
    log: { levels, json: plan.logAsJSON },
    status: (pc.statusPort ?? 0) !== 0 ? statusSlice(plan, read, cl.statusHost) : undefined,
    dns: dnsProxyOptionsFromEnv(cl.env, {
      root: cl.root,
      proxyType: plan.proxyType === "router" ? "router" : "sidecar",
      dnsDomain: plan.domain,
      namespace,
      warn,
    }),
    sds: sdsOptionsFromEnv(cl.env, {
      root: cl.root,
      discoveryAddress,
      namespace,
      clusterId,
      warn,
      proxyless: plan.disableEnvoy,
    }),
    // (Its security variables' warnings are the SDS slice's, logged once.)
    xds: xdsProxyOptions(cl.env, {
      root: cl.root,
      discoveryAddress,
      namespace,
      clusterId,
      controlPlaneAuthPolicy: pc.controlPlaneAuthPolicy as string | number | undefined,
      proxyMetadata: pc.proxyMetadata as Record<string, string> | undefined,
      dynamicProxyConfig: read.bool("PROXY_CONFIG_XDS_AGENT", false),
      keepalive: {
        timeMs: read.durationMs("GRPC_KEEPALIVE_INTERVAL", 30_000),
        timeoutMs: read.durationMs("GRPC_KEEPALIVE_TIMEOUT", 10_000),
      },
      wasmRemoteLoadConversion: read.bool("ISTIO_AGENT_ENABLE_WASM_REMOTE_LOAD_CONVERSION", true),
    }),
    warnings,
  };
  if (plan.grpcBootstrapPath !== undefined) {
    const value = grpcBootstrap({
      node,
      xdsUdsPath: join(configPath, "XDS"),
      discoveryAddress,
      certDir: read.string("OUTPUT_CERTS"),
    });
    options.grpcBootstrap = {
      shown: plan.grpcBootstrapPath,
      path: underRoot(cl.root, plan.grpcBootstrapPath),
      text: grpcBootstrapText(value),
    };
  }
  if (!plan.disableEnvoy) options.envoy = await envoySlice(cl, plan, configPath);
  return options;
}
