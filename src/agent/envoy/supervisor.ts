/**
 * Envoy as the agent runs it (pilot-agent's pkg/envoy Agent and proxy): started with
 * the command line args.ts builds, its output passed through, its exit reported; on stop, drained
 * the way pilot-agent drains it — `POST /drain_listeners?[inboundonly&]graceful`, then either the
 * termination drain duration or, with EXIT_ON_ZERO_ACTIVE_CONNECTIONS, the minimum drain duration
 * and a poll every second until no downstream connection is active — then killed. `/quitquitquit`
 * on the status server skips the drain (skipDrain). The same code runs the real Envoy and the
 * tests' fake one.
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { AgentLog } from "../process/log.js";
import { ACTIVE_CONNECTIONS_QUERY, type AgentPorts, activeConnections } from "./active-connections.js";
import { type AdminTarget, drainListeners, getStats } from "./admin.js";

/** Envoy could not be started (a missing binary, a file that is not executable). */
export class EnvoyStartError extends Error {
  override name = "EnvoyStartError";
}

export interface EnvoyProcessOptions {
  binaryPath: string;
  args: readonly string[];
  /** Envoy's working directory: where the bootstrap's relative paths resolve (`/` in a pod). */
  cwd: string;
  env: Record<string, string>;
  admin: AdminTarget;
  ports: AgentPorts;
  drain: { inboundOnly: boolean; terminationDrainMs: number; minDrainMs: number; exitOnZeroActiveConnections: boolean };
  log: AgentLog;
  /** Where Envoy's output goes: the agent's own stdout/stderr by default. */
  stdio?: "inherit" | "pipe";
  /**
   * pkg/envoy proxy.go `AgentIsRoot`: Envoy runs as uid and gid 1337 (the agent is root and its DNS
   * address ends in `:53`: permission-less Docker, where iptables cannot redirect).
   */
  agentIsRoot?: boolean;
}

/** The proxy's user and group (istio-proxy). */
export const PROXY_UID = 1337;

const POLL_MS = 1000;
const MAX_POLL_ERRORS = 5;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export class EnvoyProcess {
  readonly name = "envoy";
  readonly exited: Promise<number>;
  private child: ChildProcess | undefined;
  private skip = false;
  private running = false;
  private resolveExit!: (code: number) => void;

  constructor(private readonly options: EnvoyProcessOptions) {
    this.exited = new Promise((resolve) => {
      this.resolveExit = resolve;
    });
  }

  /** The child, for tests that read its output. */
  get process(): ChildProcess | undefined {
    return this.child;
  }

  /** Envoy's command line (after the binary). */
  get args(): readonly string[] {
    return this.options.args;
  }

  /** Whether Envoy is still running. */
  get isRunning(): boolean {
    return this.running;
  }

  /** Stop without draining (the status server's `/quitquitquit`). */
  skipDrain(): void {
    this.skip = true;
  }

  /**
   * The status server's `/drain` (pilot-agent's envoy Agent.DrainNow): drain the listeners now,
   * leaving Envoy running, and skip the drain when stopping later.
   */
  async drainNow(): Promise<void> {
    const o = this.options;
    o.log.info("Agent draining proxy");
    try {
      await drainListeners(o.admin, o.drain.inboundOnly, true);
    } catch (e) {
      o.log.warn(`Error in invoking drain listeners endpoint: ${(e as Error).message}`);
    }
    this.skip = true;
  }

  start(): Promise<void> {
    const o = this.options;
    o.log.info(`Envoy command: [${o.args.join(" ")}]`);
    return new Promise((resolve, reject) => {
      const child = spawn(o.binaryPath, [...o.args], {
        cwd: o.cwd,
        env: o.env,
        stdio: ["ignore", o.stdio ?? "inherit", o.stdio ?? "inherit"],
        ...(o.agentIsRoot ? { uid: PROXY_UID, gid: PROXY_UID } : {}),
      });
      this.child = child;
      child.once("error", (e: NodeJS.ErrnoException) => {
        if (!this.running) {
          const why = e.code === "ENOENT" ? "no such file" : e.code === "EACCES" ? "not executable" : e.message;
          reject(new EnvoyStartError(`cannot start Envoy ${o.binaryPath}: ${why}`));
          this.resolveExit(127);
        }
      });
      child.once("spawn", () => {
        this.running = true;
        resolve();
      });
      child.once("exit", (code, signal) => {
        this.running = false;
        const status = code ?? 128 + (signal === "SIGKILL" ? 9 : signal === "SIGTERM" ? 15 : 1);
        o.log.info(`Envoy exited (${code === null ? `signal ${signal}` : `code ${code}`})`);
        this.resolveExit(status);
      });
    });
  }

  /** Resolves when Envoy has exited or `ms` passed; true when it exited. */
  private async exitedWithin(ms: number): Promise<boolean> {
    if (!this.running) return true;
    return Promise.race([this.exited.then(() => true), sleep(ms).then(() => false)]);
  }

  async stop(): Promise<void> {
    const o = this.options;
    if (!this.running) return;
    if (!this.skip) {
      o.log.info("Agent draining Proxy for termination");
      try {
        await drainListeners(o.admin, o.drain.inboundOnly);
      } catch (e) {
        o.log.warn(`error in invoking drain listeners endpoint: ${(e as Error).message}`);
      }
      if (o.drain.exitOnZeroActiveConnections) {
        o.log.info(
          `Agent draining proxy for ${o.drain.minDrainMs} ms, then waiting for active connections to terminate`,
        );
        if (!(await this.exitedWithin(o.drain.minDrainMs))) await this.waitForZeroConnections();
      } else {
        o.log.info(`Graceful termination period is ${o.drain.terminationDrainMs} ms, starting...`);
        await this.exitedWithin(o.drain.terminationDrainMs);
        o.log.info("Graceful termination period complete, terminating remaining proxies.");
      }
    }
    if (this.running) {
      this.child?.kill("SIGKILL");
      await this.exited;
    }
  }

  private async waitForZeroConnections(): Promise<void> {
    const o = this.options;
    let errors = 0;
    while (this.running) {
      try {
        const n = activeConnections(await getStats(o.admin, ACTIVE_CONNECTIONS_QUERY), o.ports);
        if (n <= 0) {
          o.log.info("There are no more active connections. terminating proxy...");
          return;
        }
        o.log.info(`There are still ${n} active connections`);
      } catch (e) {
        errors++;
        o.log.warn(`unable to get the number of active connections: ${(e as Error).message}`);
        if (errors >= MAX_POLL_ERRORS) return;
      }
      if (await this.exitedWithin(POLL_MS)) return;
    }
  }
}
