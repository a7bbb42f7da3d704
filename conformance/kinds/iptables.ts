/**
 * The `iptables` kind (see the corpus's FORMAT.md): the sidecar's traffic-capture rules.
 *
 * - capture-iptables.json: the lines one istio-iptables run hands to the iptables tools
 *   (src/agent/capture/iptables.ts `iptablesRun`), joined with "\n", trimmed, byte for byte;
 * - cni-sidecar-plugin.json: pod inputs → CaptureConfig (cni-sidecar.ts) → IPv4 restore input,
 *   compared table by table;
 * - config-validation.json: the validation functions (validate.ts) and SeparateV4V6 (ranges.ts);
 * - capture-nftables.json: the lines of the nftables transaction (src/agent/capture/nftables.ts
 *   `nftablesRules`), compared as capture-iptables.json's;
 * - ambient-*.json (`"scope": "ambient"`): ztunnel's in-pod rules, not the sidecar's: skipped and
 *   left out of the total (the details say so).
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { cniSidecarCaptureConfig } from "../../src/agent/capture/cni-sidecar.js";
import { type CaptureConfig, captureConfig } from "../../src/agent/capture/config.js";
import { iptablesRestore, iptablesRun } from "../../src/agent/capture/iptables.js";
import { nftablesRules } from "../../src/agent/capture/nftables.js";
import { type NetworkRange, separateV4V6 } from "../../src/agent/capture/ranges.js";
import {
  detectLocalIP,
  validateIPv4LoopbackCidr,
  validateIptablesBinary,
  validateOwnerGroups,
} from "../../src/agent/capture/validate.js";
import { formatPrefix } from "../../src/agent/netip.js";
import type { Failure, KindOptions, KindResult } from "../result.js";
import { shown } from "../result.js";

type Json = Record<string, unknown>;

interface Vector {
  id: string;
  name: string;
  [key: string]: unknown;
}

interface VectorFile {
  scope?: string;
  vectors?: Vector[];
}

/** Undefined when the vector passes, else why and both sides. */
type Verdict = { reason: string; expected: string; got: string } | undefined;

const show = (v: unknown): string => shown(typeof v === "string" ? v : (JSON.stringify(v) ?? "undefined"));

function obj(v: unknown): Json {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : {};
}

function lines(v: unknown): string[] {
  return Array.isArray(v) ? v.map(String) : [];
}

/** FORMAT.md's comparison: lines joined with "\n", the whole text trimmed. */
function compareText(got: string[], want: string[]): Verdict {
  const g = got.join("\n").trim();
  const w = want.join("\n").trim();
  if (g === w) return undefined;
  const gl = g.split("\n");
  const wl = w.split("\n");
  let i = 0;
  while (i < gl.length && i < wl.length && gl[i] === wl[i]) i++;
  return {
    reason: `differs at line ${i + 1} (want ${JSON.stringify(wl[i] ?? "<end>")}, got ${JSON.stringify(gl[i] ?? "<end>")})`,
    expected: show(w),
    got: show(g),
  };
}

/** The corpus's config: given fields over Go zero values. */
function vectorConfig(v: Vector): CaptureConfig {
  return captureConfig(obj(v.config) as Partial<CaptureConfig>);
}

// ---------------------------------------------------------------------------------------------

function judgeCaptureIptables(v: Vector): Verdict {
  return compareText(iptablesRun(vectorConfig(v)), lines(v.want));
}

function judgeCaptureNftables(v: Vector): Verdict {
  return compareText(nftablesRules(vectorConfig(v)), lines(v.want));
}

/** Restore input lines grouped by table (`* t` … `COMMIT`). */
function byTable(restore: string[]): Map<string, string[]> {
  const tables = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of restore) {
    if (line.startsWith("* ")) {
      current = [line];
      tables.set(line.slice(2), current);
    } else {
      current?.push(line);
    }
  }
  return tables;
}

function judgeCniSidecar(v: Vector): Verdict {
  const pod = obj(v.pod);
  const config = cniSidecarCaptureConfig({
    annotations: obj(pod.annotations) as Record<string, string>,
    proxyContainerEnv: obj(pod.proxyContainerEnv) as Record<string, string>,
    proxyRunAsUser: typeof pod.proxyRunAsUser === "number" ? pod.proxyRunAsUser : null,
    proxyRunAsGroup: typeof pod.proxyRunAsGroup === "number" ? pod.proxyRunAsGroup : null,
  });
  const got = byTable(iptablesRestore(config).v4);
  const want = obj(v.want);
  const names = new Set([...got.keys(), ...Object.keys(want)]);
  for (const table of [...names].sort()) {
    if (!got.has(table))
      return { reason: `table ${table} missing`, expected: show(want[table]), got: show([...got.keys()]) };
    if (!(table in want))
      return { reason: `unexpected table ${table}`, expected: show(Object.keys(want)), got: show(got.get(table)) };
    const verdict = compareText(got.get(table) as string[], lines(want[table]));
    if (verdict) return { ...verdict, reason: `table ${table}: ${verdict.reason}` };
  }
  return undefined;
}

/** Remarks where our pod → config reading differs from the generator's derivedConfig (informative). */
function cniConfigNote(v: Vector): string | undefined {
  const pod = obj(v.pod);
  const config = cniSidecarCaptureConfig({
    annotations: obj(pod.annotations) as Record<string, string>,
    proxyContainerEnv: obj(pod.proxyContainerEnv) as Record<string, string>,
    proxyRunAsUser: typeof pod.proxyRunAsUser === "number" ? pod.proxyRunAsUser : null,
    proxyRunAsGroup: typeof pod.proxyRunAsGroup === "number" ? pod.proxyRunAsGroup : null,
  }) as unknown as Json;
  const diffs = Object.entries(obj(v.derivedConfig))
    .filter(([key, value]) => JSON.stringify(config[key]) !== JSON.stringify(value))
    .map(([key, value]) => `${key}: derived ${JSON.stringify(value)}, ours ${JSON.stringify(config[key])}`);
  return diffs.length > 0 ? diffs.join("; ") : undefined;
}

// ---------------------------------------------------------------------------------------------

function rangeJson(r: NetworkRange): Json {
  return { isWildcard: r.isWildcard, cidrs: r.cidrs.map(formatPrefix), hasLoopBackIP: r.hasLoopBackIP };
}

/** Runs a check that throws on invalid input; compares validity (and the message when given). */
function judgeValidity(v: Vector, check: () => void): Verdict {
  let error: string | undefined;
  try {
    check();
  } catch (e) {
    error = (e as Error).message;
  }
  const wantError = typeof v.wantError === "string" ? v.wantError : undefined;
  const wantValid = typeof v.valid === "boolean" ? v.valid : wantError === undefined;
  if ((error === undefined) !== wantValid) {
    return { reason: "validity differs", expected: show(wantValid ? "valid" : "invalid"), got: show(error ?? "valid") };
  }
  if (wantError !== undefined && error !== undefined && !error.includes(wantError)) {
    return { reason: "error message differs", expected: show(wantError), got: show(error) };
  }
  return undefined;
}

function judgeValidation(v: Vector): Verdict {
  const fn = String(v.function);
  const input = obj(v.input);
  const want = obj(v.want);
  if (fn.startsWith("ValidateOwnerGroups")) {
    return judgeValidity(v, () => validateOwnerGroups(String(input.include ?? ""), String(input.exclude ?? "")));
  }
  if (fn.startsWith("ValidateIPv4LoopbackCidr"))
    return judgeValidity(v, () => validateIPv4LoopbackCidr(String(input.cidr)));
  if (fn.startsWith("ValidateIptablesBinary"))
    return judgeValidity(v, () => validateIptablesBinary(String(input.value)));
  if (fn.startsWith("getLocalIP")) {
    const got = detectLocalIP(lines(input.interfaceAddrs), input.dualStack === true).isIPv6;
    return got === want.isIPv6 ? undefined : { reason: "isIPv6 differs", expected: show(want.isIPv6), got: show(got) };
  }
  if (fn.startsWith("SeparateV4V6")) {
    let got: Json;
    try {
      const { v4, v6 } = separateV4V6(String(input.cidrList));
      got = { v4: rangeJson(v4), v6: rangeJson(v6) };
    } catch (e) {
      got = { error: (e as Error).message };
    }
    if ("error" in got && (v.valid === false || typeof v.wantError === "string" || "error" in want)) return undefined;
    const expected = { v4: want.v4, v6: want.v6 };
    return JSON.stringify(got) === JSON.stringify(expected)
      ? undefined
      : { reason: "ranges differ", expected: show(expected), got: show(got) };
  }
  return { reason: `no judge for function ${fn}`, expected: "", got: "" };
}

// ---------------------------------------------------------------------------------------------

export async function runIptables(dir: string, _options: KindOptions): Promise<KindResult> {
  const judges: Record<string, (v: Vector) => Verdict> = {
    "capture-iptables.json": judgeCaptureIptables,
    "cni-sidecar-plugin.json": judgeCniSidecar,
    "config-validation.json": judgeValidation,
    "capture-nftables.json": judgeCaptureNftables,
  };
  const files = (await readdir(dir)).filter((f) => f.endsWith(".json") && f !== "corpus.json").sort();
  const failures: Failure[] = [];
  const notes: Failure[] = [];
  const perFile: string[] = [];
  const skipped: string[] = [];
  let passed = 0;
  let total = 0;
  for (const file of files) {
    const data = JSON.parse(await readFile(join(dir, file), "utf8")) as VectorFile;
    const stem = file.replace(/\.json$/, "");
    const isAmbient = (v: Vector) => (v.scope ?? data.scope) === "ambient";
    const ambient = (data.vectors ?? []).filter(isAmbient).length;
    if (ambient > 0) skipped.push(`${stem} ${ambient}`);
    const vectors = (data.vectors ?? []).filter((v) => !isAmbient(v));
    if (vectors.length === 0) continue;
    const judge = judges[file];
    let filePassed = 0;
    for (const vector of vectors) {
      total++;
      const name = `${vector.id} ${vector.name}`;
      let verdict: Verdict;
      if (judge === undefined) {
        verdict = { reason: "no judge for this vector file", expected: "", got: "" };
      } else {
        try {
          verdict = judge(vector);
        } catch (e) {
          verdict = { reason: "threw", expected: "", got: (e as Error).message };
        }
      }
      if (verdict === undefined) {
        passed++;
        filePassed++;
      } else {
        failures.push({ file, name, ...verdict });
      }
      if (file === "cni-sidecar-plugin.json") {
        const note = cniConfigNote(vector);
        if (note !== undefined) notes.push({ file, name, expected: "", got: "", reason: `derivedConfig: ${note}` });
      }
    }
    perFile.push(`${stem} ${filePassed}/${vectors.length}`);
  }
  const details = [
    perFile.join(", "),
    skipped.length > 0 ? `skipped, ambient scope (sidecar only): ${skipped.join(", ")}` : "",
  ]
    .filter((s) => s !== "")
    .join("; ");
  return { passed, total, details, failures, notes };
}
