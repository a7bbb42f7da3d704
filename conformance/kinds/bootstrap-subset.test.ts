/**
 * The `bootstrap` kind judges any subset of its corpus: a temporary folder holding part of
 * ../shared/conformance/bootstrap (its corpus.json, the template, some golden vectors without the
 * `default` one, some option groups) must pass every vector it holds, the stats-tag regexp checks
 * included (they need a rendered bootstrap, which the runner renders itself). Skipped with a reason
 * when the corpus is not present.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { runBootstrap } from "./bootstrap.js";

const CORPUS = fileURLToPath(new URL("../../../shared/conformance/bootstrap/", import.meta.url));
const present = existsSync(join(CORPUS, "bootstrap-golden.json"));

type Json = Record<string, unknown>;

async function readJSON(name: string): Promise<Json> {
  return JSON.parse(await readFile(join(CORPUS, name), "utf8")) as Json;
}

/** A folder with corpus.json, the template, and what `files` gives (name → content). */
async function subsetFolder(files: Record<string, Json>, goldenCopies: string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "meshinject-bootstrap-subset-"));
  await copyFile(join(CORPUS, "corpus.json"), join(dir, "corpus.json"));
  await copyFile(join(CORPUS, "envoy_bootstrap.json.tmpl"), join(dir, "envoy_bootstrap.json.tmpl"));
  await mkdir(join(dir, "goldens"));
  for (const copy of goldenCopies) await copyFile(join(CORPUS, copy), join(dir, copy));
  for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), JSON.stringify(content));
  return dir;
}

describe("bootstrap kind on a subset of its corpus", {
  skip: present ? false : "the bootstrap corpus is not present",
}, () => {
  it("passes golden vectors without the default one, and the stats-tag checks", async () => {
    const golden = await readJSON("bootstrap-golden.json");
    const vectors = (golden.vectors as Array<Json & { base: string; goldenCopy: string }>).filter(
      (v) => v.base !== "default",
    );
    const kept = vectors.slice(0, 2);
    const options = await readJSON("bootstrap-options.json");
    const statsTags = (options.groups as Array<Json & { name: string; vectors: Json[] }>).filter(
      (g) => g.name === "statsTagRegex",
    );
    assert.ok(statsTags[0] !== undefined && statsTags[0].vectors.length > 0);
    const dir = await subsetFolder(
      {
        "bootstrap-golden.json": { ...golden, vectors: kept },
        "bootstrap-options.json": { ...options, groups: statsTags },
      },
      kept.map((v) => v.goldenCopy),
    );
    try {
      const result = await runBootstrap(dir, { mode: "kube-inject", budgetMs: 60_000 });
      assert.deepEqual(result.failures, []);
      assert.equal(result.total, kept.length + (statsTags[0]?.vectors.length ?? 0));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("passes the stats-tag checks with no golden file at all", async () => {
    const options = await readJSON("bootstrap-options.json");
    const groups = options.groups as Array<Json & { name: string; vectors: Json[] }>;
    const dir = await subsetFolder({ "bootstrap-options.json": options }, []);
    try {
      const result = await runBootstrap(dir, { mode: "kube-inject", budgetMs: 60_000 });
      assert.deepEqual(result.failures, []);
      assert.equal(
        result.total,
        groups.reduce((n, g) => n + g.vectors.length, 0),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
