/**
 * The `istio-inject` kind: Istio's own golden injection cases (see the corpus FORMAT.md), judged
 * through `kubeInject` in kube-inject mode. A case passes when the output equals the golden file as
 * Kubernetes objects (every document parsed and normalised as its typed kind); byte-identical output
 * (after trimming, as the Go test compares) is reported as a stricter grade.
 */

import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { readYaml } from "../../src/go/yaml/read.js";
import { kubeInject } from "../../src/inject/kube-inject.js";
import { splitYamlStream } from "../../src/kube/stream.js";
import { marshalTyped } from "../../src/kube/typed.js";
import { type Failure, type KindResult, type KindRunner, shown } from "../result.js";
import { caseKubeInjectOptions, type IstioInjectCase, readCase } from "./istio-inject-case.js";
import { runIstioInjectWebhook } from "./istio-inject-webhook.js";
import { httpsTransport } from "./webhook-https.js";

interface CaseOutcome {
  output?: string;
  error?: string;
  warnings: string[];
}

async function runCase(dir: string): Promise<{ meta: IstioInjectCase; outcome: CaseOutcome }> {
  const meta = readCase(dir);
  const warnings: string[] = [];
  try {
    const output = kubeInject(await readFile(join(dir, "input.yaml"), "utf8"), {
      ...caseKubeInjectOptions(dir, meta),
      warn: (w) => warnings.push(w),
    });
    return { meta, outcome: { output, warnings } };
  } catch (e) {
    return { meta, outcome: { error: e instanceof Error ? e.message : String(e), warnings } };
  }
}

/** The documents of a stream as normalised objects (typed kinds go through their Go struct shape). */
function documents(text: string): unknown[] {
  return splitYamlStream(text)
    .map((raw) => readYaml(raw))
    .filter((d) => d !== null && d !== undefined)
    .map((d) => {
      const kind = (d as { kind?: unknown }).kind;
      if (typeof kind !== "string") return d;
      try {
        return marshalTyped(d, kind);
      } catch {
        return d;
      }
    });
}

function firstDifference(a: unknown, b: unknown, path = ""): string {
  if (isDeepStrictEqual(a, b)) return "";
  if (typeof a === "object" && a !== null && typeof b === "object" && b !== null) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) {
      const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}/${k}`);
      if (d) return d;
    }
  }
  return `${path || "/"}: expected ${JSON.stringify(a)?.slice(0, 300)}, got ${JSON.stringify(b)?.slice(0, 300)}`;
}

export const runIstioInject: KindRunner = async (dir, options) => {
  // The webhook mode talks to the real server over HTTPS, as the API server would.
  if (options.mode === "webhook") return runIstioInjectWebhook(dir, options, httpsTransport);
  const failures: Failure[] = [];
  let passed = 0;
  let total = 0;
  let identical = 0;
  let outputs = 0;
  const entries = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  for (const name of entries.sort()) {
    const caseDir = join(dir, name);
    const { meta, outcome } = await runCase(caseDir);
    if (!meta.kubeInject) continue;
    total++;
    const fail = (reason: string, expected: string, got: string) =>
      failures.push({ file: name, name, reason, expected, got });
    if (meta.expectedError !== null) {
      if (outcome.error?.toLowerCase().includes(meta.expectedError.toLowerCase())) passed++;
      else fail("expected an error", shown(meta.expectedError), shown(outcome.error ?? outcome.output ?? ""));
      continue;
    }
    if (outcome.error !== undefined) {
      fail("kube-inject failed", "success", shown(outcome.error));
      continue;
    }
    if (meta.expectedLog !== null && !outcome.warnings.some((w) => w.includes(meta.expectedLog as string))) {
      fail("missing warning", shown(meta.expectedLog), shown(outcome.warnings.join("")));
      continue;
    }
    outputs++;
    const want = await readFile(join(caseDir, "want.yaml"), "utf8");
    const got = outcome.output ?? "";
    if (got.trim() === want.trim()) identical++;
    let difference: string;
    try {
      difference = firstDifference(documents(want), documents(got));
    } catch (e) {
      difference = `cannot parse: ${(e as Error).message}`;
    }
    if (difference === "") passed++;
    else fail("objects differ", "golden", shown(difference));
  }
  const details = `byte-identical ${identical}/${outputs} outputs; ${total - outputs} error cases`;
  const result: KindResult = { passed, total, failures, details };
  return result;
};
