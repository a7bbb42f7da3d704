/**
 * Envoy readiness as pilot-agent judges it from Envoy's admin `/stats` text (`name: value` lines): first the
 * initial CDS and LDS updates, then `server.state` LIVE and the workers started. Pure: no I/O.
 */

/** The admin queries the agent sends (`/stats?usedonly&filter=…`). */
export const UPDATE_STATS_FILTER =
  "^(cluster_manager\\.cds|listener_manager\\.lds)\\.(update_success|update_rejected)$";
export const READY_STATS_FILTER = "^(server\\.state|listener_manager\\.workers_started)";

export interface UpdateStats {
  cdsSuccess: number;
  cdsRejected: number;
  ldsSuccess: number;
  ldsRejected: number;
}

/** Envoy's server.state values. */
const SERVER_STATES: Record<number, string> = { 0: "LIVE", 1: "DRAINING", 2: "PRE_INITIALIZING", 3: "INITIALIZING" };

export function serverStateName(state: number): string {
  return SERVER_STATES[state] ?? "UNKNOWN";
}

/**
 * Reads the named stats from the text: the first line that starts with a name gives its value (missing = 0).
 * Throws with every malformed matching line's problem.
 */
export function readStats(text: string, names: readonly string[]): Map<string, number> {
  const values = new Map<string, number>();
  const problems: string[] = [];
  for (const line of text.split(/(?<=\n)/)) {
    for (const name of names) {
      if (values.has(name) || !line.startsWith(name)) continue;
      const parts = line.split(":");
      if (parts.length !== 2) {
        values.set(name, 0);
        problems.push(`envoy stat ${name} missing separator. line:${line}`);
        continue;
      }
      const v = parts[1].trim();
      if (!/^\d+$/.test(v)) {
        values.set(name, 0);
        problems.push(`failed parsing Envoy stat ${name} (invalid syntax) line: ${line}`);
        continue;
      }
      values.set(name, Number(v));
    }
  }
  if (problems.length > 0) throw new Error(problems.join("; "));
  for (const name of names) if (!values.has(name)) values.set(name, 0);
  return values;
}

export function describeUpdateStats(s: UpdateStats): string {
  return `cds updates: ${s.cdsSuccess} successful, ${s.cdsRejected} rejected; lds updates: ${s.ldsSuccess} successful, ${s.ldsRejected} rejected`;
}

export function parseUpdateStats(text: string): UpdateStats {
  const v = readStats(text, [
    "cluster_manager.cds.update_success",
    "cluster_manager.cds.update_rejected",
    "listener_manager.lds.update_success",
    "listener_manager.lds.update_rejected",
  ]);
  return {
    cdsSuccess: v.get("cluster_manager.cds.update_success") ?? 0,
    cdsRejected: v.get("cluster_manager.cds.update_rejected") ?? 0,
    ldsSuccess: v.get("listener_manager.lds.update_success") ?? 0,
    ldsRejected: v.get("listener_manager.lds.update_rejected") ?? 0,
  };
}

/** Whether Envoy has its first configuration: undefined when it has, else why not. */
export function judgeConfigStatus(s: UpdateStats): string | undefined {
  const cds = s.cdsSuccess > 0;
  const lds = s.ldsSuccess > 0;
  if (cds && lds) return undefined;
  if (!cds && !lds) return `config not received from XDS server (is Istiod running?): ${describeUpdateStats(s)}`;
  if (s.ldsRejected > 0 || s.cdsRejected > 0) {
    return `config received from XDS server, but was rejected: ${describeUpdateStats(s)}`;
  }
  return `config not fully received from XDS server: ${describeUpdateStats(s)}`;
}

/** Whether Envoy is live with its workers started, from the readiness stats text. */
export function judgeEnvoyReadiness(text: string): string | undefined {
  if (!text.includes("server.state")) return `failed to get readiness stats: server.state is not yet updated: ${text}`;
  if (!text.includes("listener_manager.workers_started")) {
    return `failed to get readiness stats: listener_manager.workers_started is not yet updated: ${text}`;
  }
  let v: Map<string, number>;
  try {
    v = readStats(text, ["server.state", "listener_manager.workers_started"]);
  } catch (e) {
    return `failed to get readiness stats: ${(e as Error).message}`;
  }
  const state = v.get("server.state") ?? 0;
  if (state !== 0) return `server is not live, current state is: ${serverStateName(state)}`;
  if (v.get("listener_manager.workers_started") !== 1) return "workers have not yet started";
  return undefined;
}
