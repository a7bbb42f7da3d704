/**
 * The webhook-selector families of the `inject-policy` kind (`webhook-selectors.json`,
 * `webhook-selector-matrix.json`), judged against configurations that `webhookConfiguration()`
 * generates, not against the installed ones in `webhooks/`: for each file there, the generator
 * options are read off the installed object (name, `istio.io/rev` and `istio.io/tag` labels, Service,
 * deactivated selectors), the configuration is generated, and its webhook names and selectors must
 * equal the installed ones (a difference is a failure of its own and shows in the vectors too).
 */
import { readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import type { Labels } from "../../src/inject/policy-selector.js";
import {
  NEVER_MATCH,
  REVISION_LABEL,
  TAG_LABEL,
  type WebhookConfigOptions,
  webhookConfiguration,
} from "../../src/webhook/webhook-config.js";
import { checkInject, matchingWebhooks } from "../../src/webhook/webhook-match.js";
import type { Failure } from "../result.js";
import { shown } from "../result.js";

type Json = Record<string, unknown>;

export const WEBHOOK_FAMILIES: ReadonlySet<string> = new Set([
  "webhook-selectors.json",
  "webhook-selector-matrix.json",
]);

const show = (v: unknown) => shown(JSON.stringify(v) ?? "undefined");

/** The generator options that should reproduce an installed configuration. */
export function optionsFromInstalled(installed: Json): WebhookConfigOptions {
  const metadata = (installed.metadata ?? {}) as { name?: string; labels?: Record<string, string> };
  const labels = metadata.labels ?? {};
  const webhooks = (installed.webhooks ?? []) as Json[];
  const rev = labels[REVISION_LABEL];
  const options: WebhookConfigOptions = { revision: rev === undefined || rev === "default" ? "" : rev };
  if (labels[TAG_LABEL] !== undefined) options.tag = labels[TAG_LABEL];
  if (metadata.name !== undefined) options.name = metadata.name;
  const service = (webhooks[0]?.clientConfig as { service?: Json } | undefined)?.service;
  if (service !== undefined) {
    if (typeof service.namespace === "string") options.namespace = service.namespace;
    if (typeof service.name === "string") options.service = service.name;
    if (typeof service.path === "string") options.path = service.path;
  }
  const never = (s: unknown) => isDeepStrictEqual(s, structuredClone(NEVER_MATCH));
  if (webhooks.length > 0 && webhooks.every((w) => never(w.namespaceSelector) && never(w.objectSelector))) {
    options.deactivated = true;
  }
  return options;
}

const selectorsOf = (config: Json) =>
  ((config.webhooks ?? []) as Json[]).map((w) => ({
    name: w.name,
    namespaceSelector: w.namespaceSelector,
    objectSelector: w.objectSelector,
  }));

interface Generated {
  /** By file key (`default-injector`), the generated configuration. */
  configs: Map<string, Json>;
  failures: Failure[];
  reproduced: number;
}

async function generateAll(dir: string, files: Iterable<string>): Promise<Generated> {
  const configs = new Map<string, Json>();
  const failures: Failure[] = [];
  let reproduced = 0;
  for (const file of files) {
    const key = basename(file, ".json");
    const parsed = JSON.parse(await readFile(join(dir, file), "utf8")) as { object?: Json };
    const installed = parsed.object ?? {};
    let generated: Json;
    try {
      generated = webhookConfiguration(optionsFromInstalled(installed));
    } catch (e) {
      failures.push({ file, name: key, expected: "a configuration", got: show(String(e)), reason: "generator failed" });
      continue;
    }
    configs.set(key, generated);
    const want = selectorsOf(installed);
    const got = selectorsOf(generated);
    if (isDeepStrictEqual(JSON.parse(JSON.stringify(got)), want)) reproduced++;
    else failures.push({ file, name: key, expected: show(want), got: show(got), reason: "generated selectors differ" });
  }
  return { configs, failures, reproduced };
}

export interface WebhookFamilyResult {
  passed: number;
  total: number;
  counts: string[];
  failures: Failure[];
}

/** Judges the webhook-selector families present in `dir` (file name → parsed vectors). */
export async function runWebhookFamilies(dir: string, families: Map<string, Json[]>): Promise<WebhookFamilyResult> {
  const configFiles = new Set<string>();
  for (const vectors of families.values()) {
    for (const v of vectors) for (const f of (v.webhookConfigurations ?? []) as string[]) configFiles.add(f);
  }
  const matrix = await readMatrixConfigs(dir);
  for (const f of matrix.values()) configFiles.add(f);
  const gen = await generateAll(dir, [...configFiles].sort());
  const failures = [...gen.failures];
  const counts: string[] = [];
  let passed = 0;
  let total = 0;
  for (const [file, vectors] of families) {
    let familyPassed = 0;
    for (const v of vectors) {
      const { expected, got } = judge(file, v, gen.configs, matrix);
      if (isDeepStrictEqual(got, expected)) familyPassed++;
      else {
        failures.push({
          file,
          name: `${String(v.id)} ${String(v.name ?? "")}`.trim(),
          expected: show(expected),
          got: show(got),
          reason: "webhook selection differs",
        });
      }
    }
    passed += familyPassed;
    total += vectors.length;
    counts.push(`${file.replace(/\.json$/, "")} ${familyPassed}/${vectors.length}`);
  }
  counts.push(`generated configs reproduce ${gen.reproduced}/${configFiles.size} of webhooks/`);
  return { passed, total, counts, failures };
}

async function readMatrixConfigs(dir: string): Promise<Map<string, string>> {
  try {
    const parsed = JSON.parse(await readFile(join(dir, "webhook-selector-matrix.json"), "utf8")) as {
      webhookConfigurations?: Record<string, string>;
    };
    return new Map(Object.entries(parsed.webhookConfigurations ?? {}));
  } catch {
    return new Map();
  }
}

function judge(
  file: string,
  v: Json,
  configs: Map<string, Json>,
  matrix: Map<string, string>,
): { expected: unknown; got: unknown } {
  const ns = (v.namespaceLabels ?? {}) as Labels;
  const pod = (v.podLabels ?? {}) as Labels;
  const config = (key: string) => configs.get(key) ?? {};
  if (file === "webhook-selector-matrix.json") {
    const want = (v.want ?? {}) as Record<string, unknown>;
    const got: Record<string, string[]> = {};
    for (const key of Object.keys(want)) {
      const source = matrix.get(key);
      got[key] = matchingWebhooks(config(source ? basename(source, ".json") : key), ns, pod);
    }
    return { expected: want, got };
  }
  const keys = ((v.webhookConfigurations ?? []) as string[]).map((f) => basename(f, ".json"));
  const matching: Record<string, string[]> = {};
  for (const key of keys) matching[key] = matchingWebhooks(config(key), ns, pod);
  const analysis = checkInject(
    keys.map((k) => config(k)),
    pod,
    ns,
  );
  return {
    expected: { analysis: (v.want as Json | undefined)?.analysis, matchingWebhooks: v.matchingWebhooks },
    got: { analysis: analysis.map((a) => ({ ...a })), matchingWebhooks: matching },
  };
}
