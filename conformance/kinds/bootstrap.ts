/**
 * The `bootstrap` kind (see the corpus's FORMAT.md): pilot-agent's Envoy bootstrap (goldens rendered
 * from the corpus's copy of Istio's template), the option vectors, Envoy's command line and drain
 * helpers, and the proxyless gRPC bootstrap.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
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
  const golden = await readJSON<Parameters<typeof judgeGolden>[1] & { vectors: GoldenVector[] }>(
    dir,
    "bootstrap-golden.json",
  );
  const template = await readFile(join(dir, golden.template.file), "utf8");
  let defaultBootstrap: Json | undefined;
  for (const v of golden.vectors) {
    try {
      const r = await judgeGolden(dir, golden, v, template);
      if (v.base === "default" && r.failure === undefined) defaultBootstrap = r.bootstrap;
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
  const judges: Record<string, (v: Json) => Verdict | Promise<Verdict>> = {
    ...optionJudges(defaultBootstrap ?? {}),
    ...envoyJudges,
  };
  for (const file of ["bootstrap-options.json", "envoy-args.json", "grpc-bootstrap.json"]) {
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
