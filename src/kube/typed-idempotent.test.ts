import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { readYaml } from "../go/yaml/read.js";
import { splitYamlStream } from "./stream.js";
import { marshalTyped } from "./typed.js";
import { podOf, workloadKind } from "./workloads.js";

// The injector skips re-marshalling a pod that is already typed: that is only sound if typing is
// idempotent. Checked on every workload and pod of Istio's golden cases, and on mutated pods.

const CORPUS = fileURLToPath(new URL("../../../shared/conformance/istio-inject", import.meta.url));
const skipWithoutCorpus = existsSync(CORPUS)
  ? false
  : `the conformance corpus ${CORPUS} is absent: it is generated from Istio's sources and placed beside the clone as ../shared/conformance (README, "Conformance")`;

function corpusObjects(): { obj: Record<string, unknown>; type: string }[] {
  const out: { obj: Record<string, unknown>; type: string }[] = [];
  for (const name of readdirSync(CORPUS)) {
    for (const file of ["input.yaml", "want.yaml"]) {
      const path = join(CORPUS, name, file);
      if (!existsSync(path)) continue;
      for (const raw of splitYamlStream(readFileSync(path, "utf8"))) {
        const doc = readYaml(raw);
        if (doc === null || typeof doc !== "object" || Array.isArray(doc)) continue;
        const kind = workloadKind(doc);
        if (kind === undefined || kind.kind === "List") continue;
        out.push({ obj: doc as Record<string, unknown>, type: kind.type });
        const pod = podOf(doc);
        if (pod) out.push({ obj: { metadata: pod.metadata, spec: pod.spec }, type: "Pod" });
      }
    }
  }
  return out;
}

function assertIdempotent(obj: unknown, type: string): void {
  let once: unknown;
  try {
    once = marshalTyped(obj, type);
  } catch {
    return; // not a valid object of that type: nothing to compare
  }
  assert.deepStrictEqual(marshalTyped(once, type), once);
}

test("typed marshalling is idempotent on Istio's golden workloads and pods", { skip: skipWithoutCorpus }, () => {
  const objects = corpusObjects();
  assert.ok(objects.length > 300, `expected the corpus objects, found ${objects.length}`);
  for (const { obj, type } of objects) assertIdempotent(obj, type);
});

/** A deep copy of JSON-shaped data with every object's keys in reverse order. */
function keysReversed(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(keysReversed);
  if (typeof v !== "object" || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).reverse()) out[k] = keysReversed((v as Record<string, unknown>)[k]);
  return out;
}

test("typed marshalling writes Go's field order whatever the input's key order", { skip: skipWithoutCorpus }, () => {
  for (const { obj, type } of corpusObjects()) {
    let once: unknown;
    try {
      once = marshalTyped(obj, type);
    } catch {
      continue;
    }
    // Typed already (struct keys in field order): the same text, key for key.
    assert.equal(JSON.stringify(marshalTyped(once, type)), JSON.stringify(once));
    // Every key in reverse order: the same fields (maps keep their keys' order, as given), struct
    // keys in field order again (so typing it once more changes nothing, not even the order).
    const reversed = marshalTyped(keysReversed(once), type);
    assert.deepStrictEqual(reversed, once);
    assert.equal(JSON.stringify(marshalTyped(reversed, type)), JSON.stringify(reversed));
    assert.equal(JSON.stringify(marshalTyped(keysReversed(obj), type)), JSON.stringify(reversed));
  }
});

test("typed marshalling is idempotent on mutated pods", { skip: skipWithoutCorpus }, () => {
  const pods = corpusObjects().filter((o) => o.type === "Pod");
  const scalar = fc.oneof(
    fc.string({ maxLength: 6 }),
    fc.constantFrom("", "0", "100m", "1Gi", "2000m", "1e3", "true", "2020-01-02T03:04:05+01:00"),
    fc.integer({ min: -5, max: 70000 }),
    fc.double({ noNaN: true }),
    fc.boolean(),
    fc.constant(null),
  );
  const keys = fc.constantFrom("name", "resources", "limits", "cpu", "ports", "containerPort", "env", "valueFrom", "x");
  fc.assert(
    fc.property(fc.nat(pods.length - 1), fc.array(fc.tuple(fc.nat(), keys, scalar), { maxLength: 4 }), (i, edits) => {
      const pod = structuredClone((pods[i] as { obj: Record<string, unknown> }).obj) as {
        spec?: { containers?: Record<string, unknown>[] } & Record<string, unknown>;
      };
      for (const [at, key, value] of edits) {
        const containers = pod.spec?.containers;
        const target =
          Array.isArray(containers) && containers.length > 0 ? containers[at % containers.length] : pod.spec;
        if (target && typeof target === "object") (target as Record<string, unknown>)[key] = value;
      }
      assertIdempotent(pod, "Pod");
    }),
    { seed: 7, numRuns: 2000 },
  );
});
