/**
 * The status server (src/agent/status) as the agent runs it: its slice of the options plus a narrow
 * port onto the rest of the agent — the agent's own readiness checks (Envoy still running, the DNS
 * proxy's name table; istio-agent's Agent.Check), the first readiness for
 * `istio_agent_startup_duration_seconds`, `/quitquitquit` (skip the drain, then shut down), `/drain`
 * (drain Envoy now) and `/debug/ndsz`. Readiness fails from the moment the agent starts to shut down.
 */

import type { Registry } from "prom-client";
import type { StatusSlice } from "../options/status.js";
import { type StatusServer, startStatusServer } from "../status/server.js";
import type { AgentLog } from "./log.js";
import { ServerStartError } from "./servers.js";

/** What the status server may ask of the agent, and nothing more. */
export interface StatusPort {
  /** The agent's own readiness after Envoy's: undefined when ready, else why not (one line). */
  agentReady(): string | undefined;
  /** Further readiness checks (the DNS proxy's), asked in order. */
  checks(): Promise<string | undefined>;
  /** Called once the agent reported ready (istio_agent_startup_duration_seconds). */
  markReady(): void;
  /** `/quitquitquit`: stop without draining Envoy. */
  skipDrain(): void;
  /** `/drain`: drain Envoy's listeners now (pilot-agent's Agent.DrainNow). */
  drainNow(): void;
  /** Shut the agent down (as SIGTERM does); the reason is logged. */
  quit(reason: string): void;
  /** The DNS proxy's name table for /debug/ndsz (undefined without a DNS proxy). */
  ndsz(): unknown;
  registry: Registry;
  /** Aborted when the agent starts to shut down. */
  shuttingDown: AbortSignal;
}

export async function startAgentStatusServer(
  slice: StatusSlice,
  port: StatusPort,
  log: AgentLog,
): Promise<StatusServer> {
  return startStatusServer({
    ...slice,
    agentReady: () => port.agentReady(),
    probes: [
      () => port.checks(),
      () => {
        port.markReady();
        return undefined;
      },
    ],
    disableDrain: () => port.skipDrain(),
    onDrain: () => port.drainNow(),
    onQuit: (reason) => port.quit(reason),
    registry: port.registry,
    fetchDNS: () => port.ndsz(),
    signal: port.shuttingDown,
    log,
  }).catch((e: Error) => {
    throw new ServerStartError(`status server on port ${slice.port}: ${e.message}`);
  });
}
