/**
 * Assembles `meshinject agent proxy`: reads the command line, environment and files under the root,
 * plans the start (plan.ts), writes Envoy's bootstrap (and the proxyless gRPC bootstrap when
 * GRPC_XDS_BOOTSTRAP is set), and builds the components — Envoy first. Callers add their servers
 * (the status server, the DNS proxy...) to `components` before `start()`.
 */
import { mkdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { parseAgentArgs } from "../bootstrap/agent-args.js";
import { BootstrapOptionError } from "../bootstrap/converters.js";
import { DEFAULT_BOOTSTRAP_TEMPLATE, DEFAULT_TEMPLATE_PATH } from "../bootstrap/default-template.js";
import { BootstrapError } from "../bootstrap/errors.js";
import { grpcBootstrap, grpcBootstrapText } from "../bootstrap/grpc.js";
import { MetadataTypeError } from "../bootstrap/metadata-fields.js";
import { getNodeMetaData, type Node } from "../bootstrap/node-metadata.js";
import { BootstrapTemplateError, renderBootstrap } from "../bootstrap/render.js";
import { templateParams } from "../bootstrap/template-params.js";
import { envoyArgs } from "../envoy/args.js";
import { BOOTSTRAP_FILE, writeBootstrap, writeFileAtomic } from "../envoy/bootstrap-file.js";
import { BootstrapOverrideError, bootstrapOverrideJSON } from "../envoy/override.js";
import { EnvoyProcess } from "../envoy/supervisor.js";
import { Agent } from "./agent.js";
import type { Component } from "./component.js";
import { AgentFileError, hostIPs, readAgentFiles, readIfPresent, underRoot } from "./inputs.js";
import { Logger, parseOutputLevels } from "./log.js";
import { type AgentMetrics, agentMetrics } from "./metrics.js";
import { AgentConfigError, type AgentPlan, envoyEnvironment, planAgent } from "./plan.js";
import { StatusComponent } from "./status-component.js";
import { AGENT_ISTIO_VERSION } from "./version.js";

export interface AgentRuntimeOptions {
  /** The arguments after the program name: `proxy [sidecar|router] [flags]`. */
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  /** The folder pilot-agent's paths are relative to (`/` in a pod). */
  root: string;
  /** Envoy's output: passed through (default) or piped for tests. */
  stdio?: "inherit" | "pipe";
  /** Where log lines go (stderr by default). */
  writeLog?: (line: string) => void;
  /** The status server's listen address (default `::`, as pilot-agent); tests keep it on loopback. */
  statusHost?: string;
}

export interface AgentRuntime {
  plan: AgentPlan;
  node: Node;
  log: Logger;
  metrics: AgentMetrics;
  /** Where the bootstrap was written (as this process sees it); undefined without Envoy. */
  bootstrapPath?: string;
  envoy?: EnvoyProcess;
  /** Started in order, stopped in reverse; add servers before building the agent. */
  components: Component[];
  /** The DNS proxy's `/debug/ndsz` view, when the agent runs one. */
  ndsz?: () => unknown;
  /** The agent over `components`. */
  agent(): Agent;
  /** Asks the agent to stop (as SIGTERM does); the reason is logged. */
  shutdown(reason: string): void;
  /** Settles when a shutdown was asked for. */
  shutdownRequested: Promise<void>;
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
export async function planFromCommandLine(options: AgentRuntimeOptions): Promise<{ plan: AgentPlan; node: Node }> {
  let args: ReturnType<typeof parseAgentArgs>;
  try {
    args = parseAgentArgs([], options.args);
  } catch (e) {
    if (e instanceof BootstrapError) throw new AgentConfigError(e.message.replace(/^pilot-agent: /, "agent: "));
    throw e;
  }
  const files = await readAgentFiles(options.root, args.meshConfig);
  const plan = planAgent({ args, env: options.env, files, hostIPs: hostIPs(), binaryVersion: AGENT_ISTIO_VERSION });
  let node: Node;
  try {
    node = getNodeMetaData(plan.metadataOptions);
  } catch (e) {
    if (e instanceof MetadataTypeError) throw new AgentConfigError(`node metadata: ${e.message}`);
    throw e;
  }
  return { plan, node };
}

/** The bootstrap template's text and name: the file when it exists, the built-in one for the default path. */
export async function bootstrapTemplate(plan: AgentPlan, root: string): Promise<{ text: string; name: string }> {
  const text = await readIfPresent(underRoot(root, plan.templatePath));
  if (text !== undefined) return { text, name: plan.templatePath };
  if (plan.templatePath === DEFAULT_TEMPLATE_PATH) return { text: DEFAULT_BOOTSTRAP_TEMPLATE, name: "built-in" };
  throw new AgentConfigError(`bootstrap template ${plan.templatePath}: no such file`);
}

/** The bootstrap text `agent bootstrap` prints (nothing written). */
export async function renderAgentBootstrap(options: AgentRuntimeOptions): Promise<string> {
  const { plan, node } = await planFromCommandLine(options);
  const template = await bootstrapTemplate(plan, options.root);
  const params = templateParams({
    node,
    compliancePolicy: plan.compliancePolicy,
    logAsJSON: plan.logAsJSON,
    features: plan.features,
    lightstepTokenPath: join(plan.proxyConfig.configPath ?? "", "lightstep_access_token.txt"),
  });
  return renderBootstrap(template.text, params, template.name);
}

export async function prepareAgent(options: AgentRuntimeOptions): Promise<AgentRuntime> {
  const { plan, node } = await planFromCommandLine(options);
  const flags = parseAgentArgs([], options.args).flags ?? {};
  let levels: ReturnType<typeof parseOutputLevels>;
  try {
    levels = parseOutputLevels(plan.logOutputLevel);
  } catch (e) {
    throw new AgentConfigError((e as Error).message);
  }
  const log = new Logger({ levels, json: flags.logAsJSON === true, write: options.writeLog });
  for (const w of [...plan.warnings, ...node.warnings]) log.warn(w);
  const metrics = agentMetrics();
  const pc = plan.proxyConfig;
  const configPath = pc.configPath ?? "./etc/istio/proxy";
  let requestShutdown: () => void = () => {};
  const shutdownRequested = new Promise<void>((resolve) => {
    requestShutdown = resolve;
  });
  const runtime: AgentRuntime = {
    plan,
    node,
    log,
    metrics,
    components: [],
    agent: () => new Agent(runtime.components, log),
    shutdown: (reason) => {
      log.info(`Shutting down: ${reason}`);
      requestShutdown();
    },
    shutdownRequested,
  };
  // The status server first: it outlives Envoy's drain, answering not-ready meanwhile.
  if ((pc.statusPort ?? 0) !== 0) runtime.components.push(new StatusComponent(runtime, { host: options.statusHost }));
  if (plan.grpcBootstrapPath !== undefined) {
    const value = grpcBootstrap({
      node,
      xdsUdsPath: join(configPath, "XDS"),
      discoveryAddress: pc.discoveryAddress ?? "",
      certDir: options.env.OUTPUT_CERTS ?? "",
    });
    const path = underRoot(options.root, plan.grpcBootstrapPath);
    await mkdir(dirname(path), { recursive: true });
    await writeFileAtomic(path, grpcBootstrapText(value));
    log.info(`gRPC bootstrap written to ${plan.grpcBootstrapPath}`);
  }
  if (plan.disableEnvoy) {
    log.info("Envoy is disabled (DISABLE_ENVOY): the agent runs without it");
    return runtime;
  }
  const template = await bootstrapTemplate(plan, options.root);
  const written = await writeBootstrap(
    { node, compliancePolicy: plan.compliancePolicy, logAsJSON: plan.logAsJSON, features: plan.features },
    template.text,
    template.name,
    underRoot(options.root, configPath),
  );
  runtime.bootstrapPath = written.path;
  let override: string | undefined;
  if (plan.bootstrapOverridePath !== undefined) {
    const text = await readFile(underRoot(options.root, plan.bootstrapOverridePath), "utf8").catch((e: Error) => {
      throw new AgentConfigError(`env ISTIO_BOOTSTRAP_OVERRIDE ${plan.bootstrapOverridePath}: ${e.message}`);
    });
    override = bootstrapOverrideJSON(text, options.env.HOST_IP, plan.bootstrapOverridePath);
  }
  const envoy = new EnvoyProcess({
    binaryPath: underRoot(options.root, pc.binaryPath ?? "/usr/local/bin/envoy"),
    args: envoyArgs(plan.envoy, join(configPath, BOOTSTRAP_FILE), override),
    cwd: options.root,
    env: envoyEnvironment(options.env, plan.compliancePolicy),
    admin: { host: "localhost", port: pc.proxyAdminPort ?? 15000 },
    ports: {
      statusPort: plan.metadataOptions.envoyStatusPort ?? 15021,
      prometheusPort: plan.metadataOptions.envoyPrometheusPort ?? 15090,
    },
    drain: plan.drain,
    log: log.withScope("envoy"),
    stdio: options.stdio,
  });
  runtime.envoy = envoy;
  runtime.components.push(envoy);
  return runtime;
}

/**
 * Runs a prepared agent until SIGTERM/SIGINT (drain, exit 0) or Envoy's own exit (its code).
 * Resolves with the exit code; start failures reject with their one-line error.
 */
export async function runAgent(
  runtime: AgentRuntime,
  signals: NodeJS.Signals[] = ["SIGTERM", "SIGINT"],
): Promise<number> {
  const agent = runtime.agent();
  const onSignal = (signal: NodeJS.Signals) => runtime.shutdown(`received ${signal}, draining`);
  for (const s of signals) process.once(s, onSignal);
  try {
    await agent.start();
    runtime.log.info(`agent started: ${runtime.plan.serviceNode}`);
    return await agent.run(runtime.shutdownRequested);
  } finally {
    for (const s of signals) process.off(s, onSignal);
  }
}
