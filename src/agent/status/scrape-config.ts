/**
 * The application's metrics scrape configuration (ISTIO_PROMETHEUS_ANNOTATIONS, written by the injector from
 * the pod's prometheus.io annotations), normalised as pilot-agent does at start. Pure: no I/O.
 */

import { atoi } from "../../go/strconv.js";
import {
  istioReservedPortReason,
  parseScrapeTargets as parseTargets,
  type ScrapeTarget,
} from "../../inject/scrape-targets.js";

export const PROMETHEUS_ANNOTATIONS_ENV = "ISTIO_PROMETHEUS_ANNOTATIONS";

export type { ScrapeTarget } from "../../inject/scrape-targets.js";
export { istioReservedPortReason };

export interface ScrapeConfig {
  scrape: string;
  /** The legacy single-target fields. */
  port: string;
  path: string;
  /** What the agent scrapes, in order. */
  targets: ScrapeTarget[];
}

const DEFAULT_PATH = "/metrics";
const DEFAULT_PORT = "80";

/** {@link parseTargets} (Istio's ParseScrapeTargets), `undefined` when there is no entry. */
export function parseScrapeTargets(raw: string): ScrapeTarget[] | undefined {
  const out = parseTargets(raw);
  return out.length === 0 ? undefined : out;
}

function stringField(obj: Record<string, unknown>, key: string): string {
  const v = obj[key];
  if (v === undefined || v === null) return "";
  if (typeof v !== "string") throw new Error(`field ${key}: cannot unmarshal ${typeof v} into a string`);
  return v;
}

function decode(text: string): { scrape: string; port: string; path: string; targets?: ScrapeTarget[] } {
  const raw: unknown = JSON.parse(text);
  if (raw === null) return { scrape: "", port: "", path: "" };
  if (typeof raw !== "object" || Array.isArray(raw)) throw new Error("cannot unmarshal a non-object");
  // Go's encoding/json matches field names case-insensitively.
  const obj: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) obj[k.toLowerCase()] = v;
  const targetsRaw = obj.targets;
  let targets: ScrapeTarget[] | undefined;
  if (Array.isArray(targetsRaw)) {
    targets = targetsRaw.map((t, i) => {
      if (t === null) return { port: "", path: "" };
      if (typeof t !== "object" || Array.isArray(t)) throw new Error(`targets[${i}]: not an object`);
      const tf: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(t as Record<string, unknown>)) tf[k.toLowerCase()] = v;
      return { port: stringField(tf, "port"), path: stringField(tf, "path") };
    });
  } else if (targetsRaw !== undefined && targetsRaw !== null) {
    throw new Error("field targets: not an array");
  }
  return {
    scrape: stringField(obj, "scrape"),
    port: stringField(obj, "port"),
    path: stringField(obj, "path"),
    targets,
  };
}

/**
 * The scrape configuration the agent uses, or undefined when it scrapes no application (the variable
 * is unset or `scrape` is "false"). Throws with a one-line message when the agent would refuse to start.
 */
export function normalizeScrapeConfig(text: string | undefined, statusPort: number): ScrapeConfig | undefined {
  if (text === undefined) return undefined;
  let d: ReturnType<typeof decode>;
  try {
    d = decode(text);
  } catch (e) {
    throw new Error(`failed to unmarshal ${PROMETHEUS_ANNOTATIONS_ENV}: ${(e as Error).message}`);
  }
  if (d.scrape === "false") return undefined;
  const invalid = (why: string) => new Error(`invalid prometheus scrape configuration: ${why}`);
  let legacyPort = d.port;
  let legacyPath = d.path;
  let targets: ScrapeTarget[];
  if (!d.targets || d.targets.length === 0) {
    // The legacy fields: defaults, the status port refused by its text, then one target of them.
    legacyPath = legacyPath === "" ? DEFAULT_PATH : legacyPath;
    legacyPort = legacyPort === "" ? DEFAULT_PORT : legacyPort;
    if (legacyPort === String(statusPort)) {
      throw invalid(
        "application port is the same as agent port, which may lead to a recursive loop. " +
          `Ensure pod does not have prometheus.io/port=${statusPort} label, or that injection is not happening multiple times`,
      );
    }
    targets = [{ port: legacyPort, path: legacyPath }];
  } else {
    // The legacy fields take the first target's as written, before its path is defaulted.
    legacyPort = legacyPort === "" ? d.targets[0].port : legacyPort;
    legacyPath = legacyPath === "" ? d.targets[0].path : legacyPath;
    targets = d.targets.map((t) => ({ port: t.port, path: t.path === "" ? DEFAULT_PATH : t.path }));
  }
  // Every target, the legacy one included, by number: "015020" dials 15020 yet is not the text "15020".
  for (const t of targets) {
    const { value, err } = atoi(t.port);
    if (err !== undefined || value < 1n || value > 65535n)
      throw invalid(`invalid target port ${JSON.stringify(t.port)}`);
    const n = Number(value);
    if (n === statusPort)
      throw invalid(`target port ${t.port} is the same as agent port, which may lead to a recursive loop`);
    const reason = istioReservedPortReason(String(n));
    if (reason !== "") throw invalid(`target port ${t.port} is reserved for Istio (${reason}) and cannot be scraped`);
  }
  return {
    scrape: d.scrape,
    port: legacyPort,
    path: legacyPath,
    targets,
  };
}
