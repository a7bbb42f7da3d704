/**
 * bootstrap-golden.json of the `bootstrap` corpus: Istio's TestGolden. Each vector's node is built
 * with getNodeMetaData from its inputs, the bootstrap written by writeBootstrap (the agent's own
 * code path) from a template, the text normalised as the test does, then judged under the corpus's
 * comparison rule: the stats matcher lists first, then semantic equality with the golden (objects
 * unordered, arrays ordered) after the ignored paths are dropped.
 */
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { getNodeMetaData, type MetadataOptions } from "../../src/agent/bootstrap/node-metadata.js";
import { LIGHTSTEP_TOKEN_FILE, writeBootstrap } from "../../src/agent/envoy/bootstrap-file.js";
import { compile } from "../../src/go/regexp/regexp.js";
import type { ProxyConfig } from "../../src/mesh/index.js";
import type { Failure } from "../result.js";
import { shown } from "../result.js";

type Json = Record<string, unknown>;

export interface GoldenVector {
  id: string;
  name: string;
  base: string;
  proxyCfgBase: string;
  goldenCopy: string;
  testCase: Json;
  proxyConfig: Json;
  inputs: {
    binaryVersion: string;
    envs: string[];
    annotationsFile: string;
    metadataOptions: Json;
    compliancePolicy: string;
    logAsJSON: boolean;
  };
  compare: { normaliseLocality: boolean; ignore: string[] };
  want: {
    statsMatcher: { prefixes: string[]; suffixes: string[]; regexps: string[] };
    lightstepAccessTokenFileExists: boolean;
  };
}

interface GoldenFile {
  template: { file: string };
  normalisation: { replacements: { goRegexp: string; literal?: string; replacement: string; when: string }[] };
  vectors: GoldenVector[];
}

/** Where `<ISTIO_SRC>` points in the runner (only its file name survives normalisation). */
const ISTIO_SRC = "/istio-src";

function substitute(v: unknown, tmp: string): unknown {
  if (typeof v === "string") return v.replaceAll("<TMPDIR>", tmp).replaceAll("<ISTIO_SRC>", ISTIO_SRC);
  if (Array.isArray(v)) return v.map((x) => substitute(x, tmp));
  if (typeof v === "object" && v !== null) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x, tmp)]));
  }
  return v;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Applies the corpus's normalisation replacements (Go RE2, `$1` group references) to the text. */
function normalise(text: string, file: GoldenFile, tmp: string, checkLocality: boolean): string {
  let out = text;
  for (const r of file.normalisation.replacements) {
    if (r.when === "unless checkLocality" && checkLocality) continue;
    // Go's ReplaceAllString, `$1` references included; the temporary folder is a literal.
    out =
      r.literal === "<TMPDIR>"
        ? out.replace(new RegExp(escapeRegExp(tmp), "gu"), () => r.replacement)
        : compile(r.goRegexp).replaceAllString(out, r.replacement);
  }
  return out;
}

/** Deletes `a.b.c` or `a.b[key]` from a parsed bootstrap. */
function dropPath(doc: Json, path: string): void {
  const m = /^(.*)\[(.+)\]$/.exec(path);
  const parts = (m ? (m[1] as string) : path).split(".");
  let cur: unknown = doc;
  for (const p of parts.slice(0, m ? parts.length : parts.length - 1)) {
    cur = (cur as Json | undefined)?.[p];
    if (typeof cur !== "object" || cur === null) return;
  }
  delete (cur as Json)[m ? (m[2] as string) : (parts.at(-1) as string)];
}

function matcherLists(doc: Json): { prefixes: string; suffixes: string; regexps: string } {
  const patterns =
    ((((doc.stats_config as Json | undefined)?.stats_matcher as Json | undefined)?.inclusion_list as Json | undefined)
      ?.patterns as Json[] | undefined) ?? [];
  const pick = (f: (p: Json) => unknown) =>
    patterns
      .map(f)
      .filter((x) => typeof x === "string" && x !== "")
      .join(",");
  return {
    prefixes: pick((p) => p.prefix),
    suffixes: pick((p) => p.suffix),
    regexps: pick((p) => (p.safe_regex as Json | undefined)?.regex),
  };
}

export interface GoldenVerdict {
  failure?: Omit<Failure, "file">;
  /** The rendered bootstrap (normalised, parsed), when it parsed. */
  bootstrap?: Json;
}

export function metadataOptionsOf(v: GoldenVector, tmp: string): MetadataOptions {
  const mo = v.inputs.metadataOptions;
  return {
    envs: v.inputs.envs,
    platform: { metadata: {}, locality: {}, labels: undefined, isKubernetes: true },
    instanceIPs: mo.InstanceIPs as string[],
    stsPort: mo.StsPort as number,
    id: mo.ID as string,
    proxyConfig: substitute(v.proxyConfig, tmp) as ProxyConfig,
    pilotSubjectAltName: mo.PilotSubjectAltName as string[],
    outlierLogPath: mo.OutlierLogPath as string,
    envoyStatusPort: mo.EnvoyStatusPort as number,
    envoyPrometheusPort: mo.EnvoyPrometheusPort as number,
    envoySecureMetricsPort: mo.EnvoySecureMetricsPort as number,
    envoySecureMergedMetricsPort: mo.EnvoySecureMergedMetricsPort as number,
    workloadIdentitySocketFile: mo.WorkloadIdentitySocketFile as string,
    binaryVersion: v.inputs.binaryVersion,
    annotationsFile: v.inputs.annotationsFile,
  };
}

/** Renders one vector from `templateText` and judges it; `dir` is the corpus folder. */
export async function judgeGolden(
  dir: string,
  file: GoldenFile,
  v: GoldenVector,
  templateText: string,
): Promise<GoldenVerdict> {
  const tmp = await mkdtemp(join(tmpdir(), "meshinject-bootstrap-"));
  try {
    const node = getNodeMetaData(metadataOptionsOf(v, tmp));
    const configDir = join(tmp, "bootstrap", v.proxyCfgBase);
    const written = await writeBootstrap(
      { node, compliancePolicy: v.inputs.compliancePolicy, logAsJSON: v.inputs.logAsJSON },
      templateText,
      "envoy_bootstrap.json",
      configDir,
    );
    const tokenExists = existsSync(join(configDir, LIGHTSTEP_TOKEN_FILE));
    if (tokenExists !== v.want.lightstepAccessTokenFileExists) {
      return {
        failure: {
          name: v.name,
          reason: "lightstep token file",
          expected: String(v.want.lightstepAccessTokenFileExists),
          got: String(tokenExists),
        },
      };
    }
    const text = normalise(written.text, file, tmp, !v.compare.normaliseLocality);
    let got: Json;
    try {
      got = JSON.parse(text) as Json;
    } catch (e) {
      return {
        failure: { name: v.name, reason: `not JSON: ${(e as Error).message}`, expected: "JSON", got: shown(text) },
      };
    }
    const golden = JSON.parse(await readFile(join(dir, v.goldenCopy), "utf8")) as Json;
    const lists = matcherLists(got);
    const want = v.want.statsMatcher;
    for (const [kind, expected] of [
      ["prefixes", want.prefixes.join(",")],
      ["suffixes", want.suffixes.join(",")],
      ["regexps", want.regexps.join(",")],
    ] as const) {
      if (lists[kind] !== expected) {
        return {
          failure: {
            name: v.name,
            reason: `stats matcher ${kind}`,
            expected: shown(expected),
            got: shown(lists[kind]),
          },
        };
      }
    }
    const bootstrap = structuredClone(got);
    for (const path of v.compare.ignore) {
      dropPath(got, path);
      dropPath(golden, path);
    }
    if (!isDeepStrictEqual(got, golden)) {
      const where = firstDifference(golden, got, "");
      return {
        bootstrap,
        failure: {
          name: v.name,
          reason: `bootstrap differs at ${where.path}`,
          expected: shown(JSON.stringify(where.want) ?? "absent"),
          got: shown(JSON.stringify(where.got) ?? "absent"),
        },
      };
    }
    return { bootstrap };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** The first place two parsed documents differ, for the report. */
export function firstDifference(
  want: unknown,
  got: unknown,
  path: string,
): { path: string; want: unknown; got: unknown } {
  if (
    typeof want === "object" &&
    want !== null &&
    typeof got === "object" &&
    got !== null &&
    Array.isArray(want) === Array.isArray(got)
  ) {
    const keys = new Set([...Object.keys(want), ...Object.keys(got)]);
    for (const k of keys) {
      const a = (want as Json)[k];
      const b = (got as Json)[k];
      if (!isDeepStrictEqual(a, b)) return firstDifference(a, b, `${path}.${k}`);
    }
  }
  return { path: path || ".", want, got };
}
