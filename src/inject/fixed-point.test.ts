// Re-injecting an injected workload gives the same workload. For every kube-inject case of Istio's
// golden corpus (../shared/conformance/istio-inject, read at test time) that expects an output, the
// golden want.yaml, already injected, is injected again with the case's own settings and must come
// back unchanged (compared as Kubernetes objects; byte-identical output is counted and reported).
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import {
  caseKubeInjectOptions,
  ISTIO_NOT_FIXED_POINTS,
  type IstioInjectCase,
  readCase,
} from "../../conformance/kinds/istio-inject-case.js";
import { isRecord } from "../go/json.js";
import { readYaml } from "../go/yaml/read.js";
import { splitYamlStream } from "../kube/stream.js";
import { marshalTyped } from "../kube/typed.js";
import { isInjectable } from "../kube/workloads.js";
import { kubeInject } from "./kube-inject.js";

const CORPUS = fileURLToPath(new URL("../../../shared/conformance/istio-inject", import.meta.url));

/** Cases whose golden Istio's own re-injection does not give back unchanged (shared with the runner). */
const NOT_FIXED_POINTS = ISTIO_NOT_FIXED_POINTS;

/** Builds the injector a case runs with (as the istio-inject conformance runner does). */
function caseInjectorFor(dir: string, meta: IstioInjectCase): (text: string) => string {
  const options = caseKubeInjectOptions(dir, meta);
  return (text) => kubeInject(text, options);
}

/** The documents of a stream as normalised objects (typed kinds in their Go struct shape). */
function documents(text: string): unknown[] {
  return splitYamlStream(text)
    .map((raw) => readYaml(raw))
    .filter((d) => d !== null && d !== undefined)
    .map((d) => (isInjectable(d) ? marshalTyped(d, String((d as { kind: unknown }).kind)) : d));
}

/** The first path where two values differ, with both sides, or "" when they are equal. */
function firstDifference(want: unknown, got: unknown, path = ""): string {
  if (isDeepStrictEqual(want, got)) return "";
  if (typeof want === "object" && want !== null && typeof got === "object" && got !== null) {
    for (const k of new Set([...Object.keys(want), ...Object.keys(got)])) {
      const d = firstDifference(
        (want as Record<string, unknown>)[k],
        (got as Record<string, unknown>)[k],
        `${path}/${k}`,
      );
      if (d) return d;
    }
  }
  return `${path || "/"}: want ${JSON.stringify(want)?.slice(0, 300)}, got ${JSON.stringify(got)?.slice(0, 300)}`;
}

const INJECTED = new Set(["istio-proxy", "istio-init", "istio-validation"]);

/** A deep copy of the documents without the injected containers (every pod template in them). */
function withoutInjectedContainers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutInjectedContainers);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if ((k === "containers" || k === "initContainers") && Array.isArray(v)) {
      out[k] = v.filter((c) => !(isRecord(c) && INJECTED.has(String(c.name)))).map(withoutInjectedContainers);
    } else {
      out[k] = withoutInjectedContainers(v);
    }
  }
  return out;
}

interface Case {
  name: string;
  dir: string;
  meta: IstioInjectCase;
}

function corpusCases(): Case[] {
  return readdirSync(CORPUS, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
    .map((name) => ({
      name,
      dir: join(CORPUS, name),
      meta: readCase(join(CORPUS, name)),
    }))
    .filter((c) => c.meta.kubeInject && c.meta.expectedError === null);
}

if (!existsSync(CORPUS)) {
  it("re-injection fixed points", {
    skip: `the conformance corpus ${CORPUS} is absent: it is generated from Istio's sources and placed beside the clone as ../shared/conformance (README, "Conformance")`,
  }, () => {});
} else {
  describe("re-injecting Istio's golden outputs", () => {
    const cases = corpusCases();
    let identical = 0;
    let fixed = 0;

    it("finds the corpus cases", () => {
      assert.ok(cases.length >= 90, `only ${cases.length} kube-inject cases with an output`);
      for (const name of Object.keys(NOT_FIXED_POINTS)) {
        assert.ok(existsSync(join(CORPUS, name, "case.json")), `excluded case ${name} is not in the corpus`);
      }
    });

    for (const c of cases) {
      const reason = NOT_FIXED_POINTS[c.name];
      it(reason === undefined ? c.name : `${c.name} (not a fixed point: ${reason})`, () => {
        const inject = caseInjectorFor(c.dir, c.meta);
        const want = readFileSync(join(c.dir, "want.yaml"), "utf8");
        const once = inject(want);
        if (reason === undefined) {
          assert.equal(firstDifference(documents(want), documents(once)), "");
          fixed++;
          if (once.trim() === want.trim()) identical++;
          return;
        }
        // Only the injected containers change, and the pod settles after at most three passes.
        assert.equal(
          firstDifference(withoutInjectedContainers(documents(want)), withoutInjectedContainers(documents(once))),
          "",
        );
        let previous = once;
        let settled = false;
        for (let pass = 2; pass <= 3 && !settled; pass++) {
          const next = inject(previous);
          settled = firstDifference(documents(previous), documents(next)) === "";
          previous = next;
        }
        assert.ok(settled, "re-injection does not settle within three passes");
      });
    }

    // Every case that is a fixed point must also come back byte for byte: re-injection that only
    // reorders or reformats would be a difference kubectl diff shows.
    it("re-injects every fixed point byte-identically", (t) => {
      const expected = cases.length - cases.filter((c) => NOT_FIXED_POINTS[c.name] !== undefined).length;
      t.diagnostic(`${fixed} fixed points, ${identical} of them byte-identical; ${cases.length} cases`);
      assert.equal(fixed, expected, "every case not excluded was checked as a fixed point");
      assert.equal(identical, fixed, "fixed points whose re-injected text differs from Istio's");
    });
  });
}
