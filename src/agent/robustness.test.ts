// Hostile or broken manifests through the two agent-side reports (capture-rules, proxy-config):
// an injected pod with fields deleted or replaced by arbitrary JSON values must give either a
// report or the command's own one-line error, never a crash of another kind (TypeError, RangeError).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import fc from "fast-check";
import { readYaml } from "../go/yaml/read.js";
import { defaultConfigFiles, injectYaml, loadInjectorConfig } from "../index.js";
import { readMeshConfig } from "../mesh/index.js";
import { BootstrapError } from "./bootstrap/errors.js";
import { proxyConfigReport } from "./bootstrap/stream.js";
import { CaptureRulesError, captureRules } from "./capture/capture-report.js";

const CURL = readFileSync(new URL("../../examples/curl.yaml", import.meta.url), "utf8");
/** The injected Deployment of examples/curl.yaml as JSON (JSON is YAML: the reports read it as is). */
const INJECTED: unknown = (() => {
  const text = injectYaml(loadInjectorConfig(), CURL);
  const deployment = text.split(/^---$/m).find((d) => /^kind: Deployment$/m.test(d)) ?? "";
  return readYaml(deployment);
})();

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Every path to a value in `v` (object keys and array indexes). */
function paths(v: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (Array.isArray(v)) {
    for (const [i, x] of v.entries()) paths(x, [...at, i], out);
  } else if (typeof v === "object" && v !== null) for (const [k, x] of Object.entries(v)) paths(x, [...at, k], out);
  return out;
}

/** `v` with the value at `path` replaced (or deleted when `value` is undefined). */
function edited(v: unknown, path: (string | number)[], value: Json | undefined): unknown {
  if (path.length === 0) return value ?? null;
  const copy = structuredClone(v) as Record<string | number, unknown>;
  let parent: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (value === undefined) {
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete parent[last];
  } else parent[last] = value;
  return copy;
}

const ALL_PATHS = paths(INJECTED);
const jsonValue: fc.Arbitrary<Json> = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>;
const edit = fc.record({
  path: fc.constantFrom(...ALL_PATHS),
  value: fc.option(jsonValue, { nil: undefined }),
});
const mesh = defaultConfigFiles().mesh;
const meshConfig = readMeshConfig(mesh);

describe("agent reports on mutated injected manifests", () => {
  it("give a report or their own error, for 1,500 random edits (seed 7)", () => {
    const outcomes = { reports: 0, errors: 0 };
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 4 }), (edits) => {
        let doc: unknown = INJECTED;
        for (const e of edits) {
          const live = paths(doc);
          const target = live.find((p) => JSON.stringify(p) === JSON.stringify(e.path)) ?? live[live.length - 1] ?? [];
          doc = edited(doc, target, e.value);
        }
        const text = JSON.stringify(doc);
        try {
          captureRules(text, {
            source: "fuzz.yaml",
            namespace: "default",
            ipv6: true,
            dnsServers: ["10.0.0.10", "fd00::a"],
          });
          outcomes.reports++;
        } catch (err) {
          outcomes.errors++;
          assert.ok(err instanceof CaptureRulesError, `capture-rules: ${(err as Error).stack}`);
          assert.doesNotMatch((err as Error).message, /\n/);
        }
        try {
          proxyConfigReport(text, {
            source: "fuzz.yaml",
            meshConfigText: mesh,
            mesh: meshConfig,
            namespace: "default",
          });
        } catch (err) {
          assert.ok(err instanceof BootstrapError, `proxy-config: ${(err as Error).stack}`);
          assert.doesNotMatch((err as Error).message, /\n/);
        }
      }),
      { seed: 7, numRuns: 1500 },
    );
    // Both paths were exercised: the edits break some manifests and leave others injectable.
    assert.ok(outcomes.reports > 100 && outcomes.errors > 100, JSON.stringify(outcomes));
  });
});
