/**
 * `meshinject agent proxy`: the composition root of the running agent, in pilot-agent's order
 * (pilot/cmd/pilot-agent/app/cmd.go, pkg/istio-agent/agent.go Run and Close). The options are read
 * once; the status server starts first (cmd.go, before agent.Run); then the DNS proxy, the SDS
 * server, the XDS proxy and the proxyless gRPC bootstrap; then Envoy's bootstrap and Envoy — so the
 * sockets Envoy's bootstrap names accept connections before Envoy starts, and a server that cannot
 * start stops the agent before Envoy does. On SIGTERM/SIGINT (or `/quitquitquit`) Envoy is drained
 * first, with the DNS proxy, the SDS server and the XDS proxy serving throughout; once Envoy has
 * exited they are closed as Agent.Close closes them (the XDS proxy, the DNS proxy, the SDS server),
 * and the status server last. Exit code: Envoy's when it exits by itself, 0 after a shutdown.
 */
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { DNS_NOT_READY, type DnsProxy } from "../dns/server.js";
import { writeBootstrap, writeFileAtomic } from "../envoy/bootstrap-file.js";
import { EnvoyProcess } from "../envoy/supervisor.js";
import { type ReadinessProbe, WorkloadHealthChecker } from "../health/checker.js";
import { type AgentCommandLine, type AgentOptions, readAgentOptions } from "../options/agent-options.js";
import { type AgentPlan, bootstrapConfig } from "../plan.js";
import { grpcReadyCheck } from "../process/grpc-ready.js";
import { type AgentLog, Logger } from "../process/log.js";
import { agentMetrics } from "../process/metrics.js";
import { startAgentDnsProxy, startAgentSdsServer, startAgentXdsProxy } from "../process/servers.js";
import { startAgentStatusServer } from "../process/status-port.js";
import { EnvoyReadinessProbe } from "../status/envoy-probe.js";
import type { XdsProxy } from "../xds/proxy.js";

export interface ProxyCommandIO extends AgentCommandLine {
  /** Where log lines go (stderr by default). */
  writeLog?: (line: string) => void;
  /** Envoy's output: passed through (default) or piped. */
  stdio?: "inherit" | "pipe";
  /** The signals that shut the agent down (default SIGTERM and SIGINT). */
  signals?: NodeJS.Signals[];
}

/** A started server, closed once. */
interface Running {
  readonly name: string;
  close(): Promise<void>;
}

/** Closes `servers` one after the other, in the order given; a failing close is logged, not thrown. */
async function closeInOrder(servers: (Running | undefined)[], log: AgentLog): Promise<void> {
  for (const s of servers) {
    if (s === undefined) continue;
    try {
      await s.close();
      log.debug(`stopped ${s.name}`);
    } catch (e) {
      log.warn(`stopping ${s.name}: ${(e as Error).message}`);
    }
  }
}

/** The shutdown request: SIGTERM/SIGINT or `/quitquitquit`; settles once, with its reason logged. */
function shutdownRequest(log: AgentLog) {
  const aborted = new AbortController();
  let resolve: () => void = () => {};
  const requested = new Promise<void>((r) => {
    resolve = r;
  });
  return {
    requested,
    signal: aborted.signal,
    request(reason: string) {
      if (aborted.signal.aborted) return;
      log.info(`Shutting down: ${reason}`);
      aborted.abort();
      resolve();
    },
    /** The agent stops for another reason (Envoy exited, a server did not start): readiness fails from now. */
    stopping() {
      aborted.abort();
    },
  };
}

/**
 * health.NewWorkloadHealthChecker as NewXdsProxy makes it: nothing without a readinessProbe; Envoy's
 * readiness first unless Envoy is disabled; probes without a host go to the first proxy address
 * ("localhost" with REWRITE_PROBE_LEGACY_LOCALHOST_DESTINATION). Returns the stop function.
 */
function startWorkloadHealth(plan: AgentPlan, options: AgentOptions, xdsProxy: XdsProxy): (() => void) | undefined {
  const probe = plan.proxyConfig.readinessProbe as ReadinessProbe | undefined;
  if (probe === undefined || probe === null) return undefined;
  const ipv6 = options.status?.ipv6 === true;
  const envoy = plan.disableEnvoy
    ? undefined
    : new EnvoyReadinessProbe({
        host: ipv6 ? "::1" : "127.0.0.1",
        adminPort: plan.proxyConfig.proxyAdminPort ?? 15000,
      });
  const checker = new WorkloadHealthChecker(probe, {
    proxyAddrs: options.status?.legacyLocalhostProbeDestination ? [] : plan.instanceIPs,
    ipv6,
    envoyReady: envoy && (() => envoy.check()),
  });
  return checker.start((e) => xdsProxy.sendHealth({ healthy: e.healthy, message: e.unhealthyMessage }));
}

export async function proxyCommand(io: ProxyCommandIO): Promise<number> {
  const options: AgentOptions = await readAgentOptions(io);
  const { plan } = options;
  const log = new Logger({ levels: options.log.levels, json: options.log.json, write: io.writeLog });
  for (const w of options.warnings) log.warn(w);
  const metrics = agentMetrics();
  const shutdown = shutdownRequest(log);
  const onSignal = (signal: NodeJS.Signals) => shutdown.request(`received ${signal}, draining`);
  const signals = io.signals ?? ["SIGTERM", "SIGINT"];
  for (const s of signals) process.once(s, onSignal);

  let status: Running | undefined;
  let dns: (Running & { proxy: DnsProxy }) | undefined;
  let sds: Running | undefined;
  let xds: Running | undefined;
  let health: Running | undefined;
  let envoy: EnvoyProcess | undefined;
  const envoyRunning: Running = { name: "envoy", close: async () => envoy?.stop() };
  // Agent.Close's order, after Envoy has exited; the status server outlives them, answering not-ready.
  const stopAll = () => {
    shutdown.stopping();
    return closeInOrder([envoyRunning, health, xds, dns, sds, status], log);
  };
  // NewServer: with a gRPC bootstrap path, its grpcready probe joins the readiness checks.
  const grpcReady = options.grpcBootstrap && grpcReadyCheck(io.root, options.grpcBootstrap.shown);
  try {
    try {
      if (options.status) {
        const server = await startAgentStatusServer(
          options.status,
          {
            agentReady: () => (envoy !== undefined && !envoy.isRunning ? "Envoy is not running" : undefined),
            checks: async () =>
              (await grpcReady?.()) ??
              (dns === undefined || dns.proxy.isReady() ? undefined : `dns proxy: ${DNS_NOT_READY}`),
            markReady: () => metrics.markReady(),
            skipDrain: () => envoy?.skipDrain(),
            drainNow: () => void envoy?.drainNow(),
            quit: (reason) => shutdown.request(reason),
            ndsz: () => dns?.proxy.ndsz(),
            registry: metrics.registry,
            shuttingDown: shutdown.signal,
          },
          log.withScope("healthcheck"),
        );
        status = { name: "status server", close: () => server.close() };
      }
      // istio-agent's Agent.Run: the DNS server, the SDS server, the XDS proxy, the gRPC bootstrap, Envoy.
      if (options.dns) {
        const proxy = await startAgentDnsProxy(options.dns, metrics.registry, log.withScope("dns"));
        dns = { name: "dns proxy", proxy, close: () => proxy.close() };
      }
      const sdsServer = await startAgentSdsServer(options.sds, log.withScope("sds"));
      sds = { name: "sds server", close: () => sdsServer.close() };
      const nameTables = dns?.proxy;
      // initXdsProxy's handlers: the name table for the DNS proxy; with PROXY_CONFIG_XDS_AGENT, the
      // ProxyConfig's trust anchors for the secret cache (UpdateConfigTrustBundle).
      const xdsProxy = await startAgentXdsProxy(
        {
          ...options.xds,
          onNameTable: nameTables && ((table) => nameTables.updateNameTable(table)),
          onProxyConfig: (trustBundle) => sdsServer.secrets.updateConfigTrustBundle(trustBundle),
        },
        log.withScope("xdsproxy"),
      );
      xds = { name: "xds proxy", close: () => xdsProxy.close() };
      // NewXdsProxy: the proxy config's readinessProbe (VMs) checked and reported to istiod as health.
      const stopHealth = startWorkloadHealth(plan, options, xdsProxy);
      if (stopHealth) health = { name: "health checker", close: async () => stopHealth() };
      if (options.grpcBootstrap) {
        await mkdir(dirname(options.grpcBootstrap.path), { recursive: true });
        await writeFileAtomic(options.grpcBootstrap.path, options.grpcBootstrap.text);
        log.info(`gRPC bootstrap written to ${options.grpcBootstrap.shown}`);
      }
      if (options.envoy) {
        const e = options.envoy;
        await writeBootstrap(bootstrapConfig(plan, options.node), e.template.text, e.template.name, e.configDir);
        const proc = new EnvoyProcess({ ...e, log: log.withScope("envoy"), stdio: io.stdio });
        await proc.start();
        envoy = proc;
      } else {
        log.info("Envoy is disabled (DISABLE_ENVOY): the agent runs without it");
      }
    } catch (e) {
      await stopAll();
      throw e;
    }
    log.info(`agent started: ${plan.serviceNode}`);
    const exited = envoy?.exited.then((code) => ({ code }));
    const first = await Promise.race([shutdown.requested.then(() => undefined), ...(exited ? [exited] : [])]);
    if (first !== undefined) log.warn(`envoy exited with code ${first.code}; stopping the agent`);
    await stopAll();
    return first?.code ?? 0;
  } finally {
    for (const s of signals) process.off(s, onSignal);
  }
}
