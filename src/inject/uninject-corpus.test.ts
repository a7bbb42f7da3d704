// Uninjection undoes injection on Istio's own cases. For every kube-inject case of the golden corpus
// (../shared/conformance/istio-inject, read at test time): the input injected with the case's settings
// and uninjected again is the input (as Kubernetes writes typed objects, probes' named ports as their
// numbers, as the injection records them); and injecting that result
// gives the injected workload back, so uninjection never loses what injection needs.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { caseKubeInjectOptions, readCase } from "../../conformance/kinds/istio-inject-case.js";
import { isRecord } from "../go/json.js";
import { readYaml } from "../go/yaml/read.js";
import { splitYamlStream } from "../kube/stream.js";
import { marshalTyped } from "../kube/typed.js";
import { isInjectable } from "../kube/workloads.js";
import { kubeInject } from "./kube-inject.js";
import { STATUS_ANNOTATION } from "./pod.js";
import { kubeUninject } from "./uninject.js";

const CORPUS = fileURLToPath(new URL("../../../shared/conformance/istio-inject", import.meta.url));

/**
 * merge-probers' input was injected before by an Istio without native sidecars, and its golden is a
 * re-injection that carried that old proxy and its probe record over (see fixed-point.test.ts):
 * neither direction is an inverse there, so only "it uninjects without error" is checked.
 */
const NOT_INVERSES = new Set(["merge-probers.yaml.injected"]);

function typed(doc: unknown): unknown {
  if (!isRecord(doc) || !isInjectable(doc)) return doc;
  if (doc.kind !== "List") return marshalTyped(doc, String(doc.kind));
  const items = Array.isArray(doc.items) ? doc.items.map(typed) : doc.items;
  return marshalTyped({ ...doc, items }, "List");
}

/**
 * Every probe and lifecycle handler's named port as its number (`http` → 8080), in place: the
 * injection records a rewritten probe by its port number (istioctl's DumpAppProbers), so uninject
 * gives a name back as the number, the same port to the kubelet.
 */
function namedPortsResolved(value: unknown): unknown {
  if (Array.isArray(value)) value.forEach(namedPortsResolved);
  if (!isRecord(value)) return value;
  for (const child of Object.values(value)) namedPortsResolved(child);
  if (typeof value.name !== "string" || !Array.isArray(value.ports)) return value;
  const byName = new Map<unknown, unknown>();
  for (const p of value.ports) if (isRecord(p) && typeof p.name === "string") byName.set(p.name, p.containerPort);
  const lifecycle = isRecord(value.lifecycle) ? value.lifecycle : {};
  for (const handler of [
    value.readinessProbe,
    value.livenessProbe,
    value.startupProbe,
    lifecycle.preStop,
    lifecycle.postStart,
  ]) {
    if (!isRecord(handler)) continue;
    for (const action of [handler.httpGet, handler.tcpSocket]) {
      if (isRecord(action) && typeof action.port === "string" && byName.has(action.port))
        action.port = byName.get(action.port);
    }
  }
  return value;
}

function documents(text: string): unknown[] {
  return splitYamlStream(text)
    .map((raw) => readYaml(raw))
    .filter((d) => d !== null && d !== undefined)
    .map(typed)
    .map(namedPortsResolved);
}

function firstDifference(want: unknown, got: unknown, path = ""): string {
  if (isDeepStrictEqual(want, got)) return "";
  if (isRecord(want) || Array.isArray(want)) {
    if (isRecord(got) || Array.isArray(got)) {
      const w = want as Record<string, unknown>;
      const g = got as Record<string, unknown>;
      for (const k of new Set([...Object.keys(w), ...Object.keys(g)])) {
        const d = firstDifference(w[k], g[k], `${path}/${k}`);
        if (d) return d;
      }
    }
  }
  return `${path || "/"}: want ${JSON.stringify(want)?.slice(0, 200)}, got ${JSON.stringify(got)?.slice(0, 200)}`;
}

if (!existsSync(CORPUS)) {
  it("uninjection of the corpus", {
    skip: `the conformance corpus ${CORPUS} is absent: it is generated from Istio's sources and placed beside the clone as ../shared/conformance (README, "Conformance")`,
  }, () => {});
} else {
  describe("uninjecting Istio's golden cases", () => {
    const cases = readdirSync(CORPUS, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => ({ name: e.name, dir: join(CORPUS, e.name), meta: readCase(join(CORPUS, e.name)) }))
      .filter((c) => c.meta.kubeInject && c.meta.expectedError === null)
      .sort((a, b) => a.name.localeCompare(b.name));

    it("finds the corpus cases", () => assert.ok(cases.length >= 90, `only ${cases.length} cases`));

    for (const c of cases) {
      it(c.name, () => {
        const options = caseKubeInjectOptions(c.dir, c.meta);
        const input = readFileSync(join(c.dir, "input.yaml"), "utf8");
        const injected = kubeInject(input, options);
        const uninjected = kubeUninject(injected, options);
        if (NOT_INVERSES.has(c.name)) return;
        // An input that was injected before comes back as its own uninjected form.
        const preInjected = input.includes(STATUS_ANNOTATION);
        const want = preInjected ? documents(kubeUninject(input, options)) : documents(input);
        assert.equal(firstDifference(want, documents(uninjected)), "");
        assert.equal(firstDifference(documents(injected), documents(kubeInject(uninjected, options))), "");
      });
    }
  });
}
