// A pod the webhook has just injected is up to date. For every webhook case of Istio's golden corpus
// (../shared/conformance/istio-inject, read at test time), each workload of the input becomes the Pod
// its controller would create (FORMAT.md §6.2, the webhook runner's podOfPart), is sent through the
// webhook's review with the case's configuration, the JSONPatch answered is applied by fast-json-patch
// (not our patch code), and drift, re-injecting as the webhook does, must find it up to date (or, when
// the webhook skipped it, not injected).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import jsonpatch from "fast-json-patch";
import { caseInjector, ISTIO_NOT_FIXED_POINTS } from "../../conformance/kinds/istio-inject-case.js";
import { podOfPart, webhookParts } from "../../conformance/kinds/istio-inject-webhook.js";
import { corpusAbsent, corpusCases } from "../../test/istio-inject-corpus.js";
import type { Json } from "../inject/pod.js";
import { reviewBody } from "../webhook/admission.js";
import { podCreationReview } from "../webhook/admission-request.js";
import { DriftChecker } from "./drift.js";

if (corpusAbsent !== undefined) {
  it("drift of webhook-injected corpus pods", { skip: corpusAbsent }, () => {});
} else {
  describe("pods the webhook has just injected are up to date", () => {
    const cases = corpusCases((meta) => meta.webhook && meta.expectedError === null);

    it("finds the corpus cases", () => assert.ok(cases.length >= 90, `only ${cases.length} cases`));

    for (const c of cases) {
      // OpenShift takes the proxy's UID from the namespace's annotations, which a running pod does not carry.
      const skip =
        c.meta.platform === "openshift"
          ? "the proxy UID comes from the OpenShift namespace"
          : c.name === "merge-probers.yaml.injected"
            ? `not a fixed point in Istio either: ${ISTIO_NOT_FIXED_POINTS[c.name]}`
            : undefined;
      it(c.name, skip === undefined ? {} : { skip }, () => {
        const injector = caseInjector(c.dir, c.meta);
        const flag = c.meta.environment.ENABLE_NATIVE_SIDECARS;
        const nativeSidecars = flag === "true" ? "on" : "off";
        const checker = new DriftChecker({
          style: "webhook",
          namespace: "default",
          defaultRevision: "",
          current: { injectorFor: (r) => (r === "" ? { revision: c.meta.revision, injector } : undefined) },
        });
        const input = readFileSync(join(c.dir, "input.yaml"), "utf8");
        const bad: string[] = [];
        for (const [i, part] of webhookParts(input).entries()) {
          const meta = (part.metadata ?? {}) as Json;
          const namespace = typeof meta.namespace === "string" && meta.namespace !== "" ? meta.namespace : "default";
          const pod = JSON.parse(JSON.stringify(podOfPart(part))) as Json;
          const result = reviewBody(podCreationReview(`uid-${i}`, namespace, pod), "", {
            injector,
            revision: c.meta.revision,
            nativeSidecars,
          });
          const response = result.response.response as { allowed: boolean; patch?: string };
          if (!response.allowed) continue; // refused by the webhook: nothing runs
          let running = pod;
          if (response.patch !== undefined) {
            const patch = JSON.parse(Buffer.from(response.patch, "base64").toString("utf8"));
            running = jsonpatch.applyPatch(structuredClone(pod), patch).newDocument as Json;
          }
          // The API server names a pod with a generated name after admission; a Pod part has its own.
          const ran = running.metadata as Json;
          const name = typeof ran.name === "string" && ran.name !== "" ? ran.name : `${String(ran.generateName)}x7k2p`;
          const named = { ...running, apiVersion: "v1", kind: "Pod", metadata: { ...ran, namespace, name } };
          const drift = checker.check(named);
          const want = response.patch === undefined ? "not-injected" : "up-to-date";
          if (drift.status !== want)
            bad.push(`part ${i + 1}: ${drift.status} ${drift.reason} ${drift.changes.join("; ")}`);
        }
        assert.deepEqual(bad, []);
      });
    }
  });
}
