/**
 * The `inject-policy` kind: the injection decision (see the corpus's FORMAT.md). Judged families:
 * `inject-required.json` (injectRequired), `ignored-namespaces.json`, `kube-inject-decisions.json`
 * (istioctl kube-inject's decision for each pod template) and `inject-path-envs.json`
 * (parseInjectEnvs).
 *
 * The webhook-selector families (`webhook-selectors.json`, `webhook-selector-matrix.json`: which
 * MutatingWebhookConfiguration entries the API server calls, and `istioctl x check-inject`'s
 * explanations) are judged in inject-policy-webhooks.ts, against the configurations that
 * `meshinject webhook-config` generates.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import {
  type InjectionPolicyConfig,
  injectRequired,
  isIgnoredNamespace,
  kubeInjectDecision,
  type PolicyPod,
  parseInjectEnvs,
} from "../../src/inject/policy.js";
import type { Failure, KindOptions, KindResult } from "../result.js";
import { shown } from "../result.js";
import { runWebhookFamilies, WEBHOOK_FAMILIES } from "./inject-policy-webhooks.js";

type Json = Record<string, unknown>;

interface Verdict {
  pass: boolean;
  expected: string;
  got: string;
}

const show = (v: unknown) => shown(JSON.stringify(v) ?? "undefined");

function verdict(expected: unknown, got: unknown): Verdict {
  return { pass: isDeepStrictEqual(got, expected), expected: show(expected), got: show(got) };
}

function judgeInjectRequired(v: Json): Verdict {
  return verdict(v.want, injectRequired(v.pod as PolicyPod, v.config as InjectionPolicyConfig));
}

function judgeIgnoredNamespace(v: Json): Verdict {
  return verdict(v.ignored, isIgnoredNamespace(v.namespace as string));
}

/** kube-inject always decides with policy "enabled", no selectors and the default ignored namespaces. */
function judgeKubeInject(v: Json): Verdict {
  const decision = kubeInjectDecision(v.pod as PolicyPod, { fullName: String(v.name ?? "") });
  return verdict(v.want, decision.inject);
}

function judgeInjectPath(v: Json): Verdict {
  return verdict(v.want, parseInjectEnvs(v.path as string));
}

const FAMILIES: ReadonlyMap<string, (v: Json) => Verdict> = new Map([
  ["inject-required.json", judgeInjectRequired],
  ["ignored-namespaces.json", judgeIgnoredNamespace],
  ["kube-inject-decisions.json", judgeKubeInject],
  ["inject-path-envs.json", judgeInjectPath],
]);

export async function runInjectPolicy(dir: string, _options: KindOptions): Promise<KindResult> {
  const failures: Failure[] = [];
  const counts: string[] = [];
  let passed = 0;
  let total = 0;
  const webhookFamilies = new Map<string, Json[]>();
  const files = (await readdir(dir)).filter((f) => f.endsWith(".json") && f !== "corpus.json").sort();
  const unknown: string[] = [];
  for (const file of files) {
    const parsed = JSON.parse(await readFile(join(dir, file), "utf8")) as { vectors?: Json[] };
    if (!Array.isArray(parsed.vectors)) throw new Error(`${file}: expected an object with a "vectors" array`);
    if (WEBHOOK_FAMILIES.has(file)) {
      webhookFamilies.set(file, parsed.vectors);
      continue;
    }
    const judge = FAMILIES.get(file);
    if (judge === undefined) {
      unknown.push(file);
      continue;
    }
    let familyPassed = 0;
    for (const v of parsed.vectors) {
      const result = judge(v);
      if (result.pass) familyPassed++;
      else {
        failures.push({
          file,
          name: `${String(v.id)} ${String(v.name ?? v.namespace ?? "")}`,
          expected: result.expected,
          got: result.got,
          reason: "decision differs",
        });
      }
    }
    passed += familyPassed;
    total += parsed.vectors.length;
    counts.push(`${file.replace(/\.json$/, "")} ${familyPassed}/${parsed.vectors.length}`);
  }
  if (webhookFamilies.size > 0) {
    const webhooks = await runWebhookFamilies(dir, webhookFamilies);
    passed += webhooks.passed;
    total += webhooks.total;
    counts.push(...webhooks.counts);
    failures.push(...webhooks.failures);
  }
  if (unknown.length > 0) counts.push(`files with no judge: ${unknown.join(", ")}`);
  return { passed, total, details: counts.join(", "), failures };
}
