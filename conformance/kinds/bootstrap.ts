/**
 * The `bootstrap` kind (see the corpus's FORMAT.md): pilot-agent's Envoy bootstrap (goldens rendered
 * from the corpus's copy of Istio's template), the option vectors, Envoy's command line and drain
 * helpers, and the proxyless gRPC bootstrap.
 */
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getNodeMetaData } from "../../src/agent/bootstrap/node-metadata.js";
import { writeBootstrap } from "../../src/agent/envoy/bootstrap-file.js";
import { defaultProxyConfig } from "../../src/mesh/index.js";
import type { Failure, KindOptions, KindResult } from "../result.js";
import { shown } from "../result.js";
import { envoyJudges } from "./bootstrap-envoy.js";
import { type GoldenVector, judgeGolden } from "./bootstrap-golden.js";
import { optionJudges, type Verdict } from "./bootstrap-options.js";

type Json = Record<string, unknown>;

interface GroupFile {
  groups: { name: string; vectors: Json[] }[];
}

const show = (v: unknown) => shown(typeof v === "string" ? v : (JSON.stringify(v) ?? "undefined"));

async function readJSON<T>(dir: string, name: string): Promise<T> {
  return JSON.parse(await readFile(join(dir, name), "utf8")) as T;
}

/** The corpus's copy of Istio's bootstrap template (FORMAT.md: `envoy_bootstrap.json.tmpl`). */
const TEMPLATE_FILE = "envoy_bootstrap.json.tmpl";

/**
 * A bootstrap rendered from the folder's template for a proxy with Istio's default ProxyConfig: what
 * the stats-tag regexp checks read their `stats_tags` from (Istio runs them on every golden it
 * renders; the tags are the template's own text). Rendered here, so that a folder holding any subset
 * of the corpus (without the `default` golden, or without bootstrap-golden.json) can be judged.
 */
async function renderedBootstrap(dir: string, templateFile: string): Promise<Json> {
  const template = await readFile(join(dir, templateFile), "utf8");
  const tmp = await mkdtemp(join(tmpdir(), "meshinject-bootstrap-"));
  try {
    const node = getNodeMetaData({
      envs: [],
      instanceIPs: ["10.3.3.3"],
      id: "sidecar~10.3.3.3~pod.ns~ns.svc.cluster.local",
      proxyConfig: defaultProxyConfig(),
      binaryVersion: "",
    });
    const written = await writeBootstrap({ node }, template, "envoy_bootstrap.json", tmp);
    return JSON.parse(written.text) as Json;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Runs whichever of the corpus's files the folder holds, and every vector in them. */
export async function runBootstrap(dir: string, _options: KindOptions): Promise<KindResult> {
  const failures: Failure[] = [];
  let passed = 0;
  let total = 0;
  const record = (file: string, name: string, verdict: Verdict) => {
    total++;
    if (verdict === undefined) passed++;
    else
      failures.push({ file, name, reason: verdict.reason, expected: show(verdict.expected), got: show(verdict.got) });
  };
  let templateFile = TEMPLATE_FILE;
  if (existsSync(join(dir, "bootstrap-golden.json"))) {
    const golden = await readJSON<Parameters<typeof judgeGolden>[1] & { vectors: GoldenVector[] }>(
      dir,
      "bootstrap-golden.json",
    );
    templateFile = golden.template.file;
    const template = await readFile(join(dir, templateFile), "utf8");
    for (const v of golden.vectors) {
      try {
        const r = await judgeGolden(dir, golden, v, template);
        total++;
        if (r.failure === undefined) passed++;
        else failures.push({ file: "bootstrap-golden.json", ...r.failure });
      } catch (e) {
        record("bootstrap-golden.json", v.name, {
          reason: `threw ${(e as Error).message}`,
          expected: "a bootstrap",
          got: "error",
        });
      }
    }
  }
  let bootstrap: Promise<Json> | undefined;
  const judges: Record<string, (v: Json) => Verdict | Promise<Verdict>> = {
    ...optionJudges(() => {
      bootstrap ??= renderedBootstrap(dir, templateFile);
      return bootstrap;
    }),
    ...envoyJudges,
  };
  for (const file of ["bootstrap-options.json", "envoy-args.json", "grpc-bootstrap.json"]) {
    if (!existsSync(join(dir, file))) continue;
    const data = await readJSON<GroupFile>(dir, file);
    for (const group of data.groups) {
      const judge = judges[group.name];
      for (const v of group.vectors) {
        const name = `${group.name}/${v.id} ${v.name}`;
        if (judge === undefined) {
          record(file, name, { reason: "no judge for this group", expected: "a judge", got: "none" });
          continue;
        }
        try {
          record(file, name, await judge(v));
        } catch (e) {
          record(file, name, { reason: `threw ${(e as Error).message}`, expected: "a result", got: "error" });
        }
      }
    }
  }
  return { passed, total, failures };
}
