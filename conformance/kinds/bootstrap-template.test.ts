/**
 * The built-in bootstrap template against Istio's: for every golden vector of the bootstrap corpus,
 * both templates are rendered with the same parameters and must give the same bootstrap
 * (objects unordered, arrays ordered); and the default case through the built-in template must pass
 * the corpus's golden comparison. Skipped with a reason when the corpus is not present.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { describe, it } from "node:test";
import { DEFAULT_BOOTSTRAP_TEMPLATE } from "../../src/agent/bootstrap/default-template.js";
import { getNodeMetaData } from "../../src/agent/bootstrap/node-metadata.js";
import { renderBootstrap } from "../../src/agent/bootstrap/render.js";
import { templateParams } from "../../src/agent/bootstrap/template-params.js";
import { judgeGolden, metadataOptionsOf } from "./bootstrap-golden.js";

const CORPUS = new URL("../../../shared/conformance/bootstrap/", import.meta.url);
const present = existsSync(new URL("bootstrap-golden.json", CORPUS));

describe("built-in bootstrap template", {
  skip: present
    ? false
    : 'the bootstrap conformance corpus is absent: it is generated from Istio\'s sources and placed beside the clone as ../shared/conformance (README, "Conformance")',
}, () => {
  it("renders what Istio's template renders, for every golden's parameters", async () => {
    const golden = JSON.parse(await readFile(new URL("bootstrap-golden.json", CORPUS), "utf8"));
    const istio = await readFile(new URL(golden.template.file, CORPUS), "utf8");
    assert.ok(golden.vectors.length > 10);
    for (const v of golden.vectors) {
      const node = getNodeMetaData(metadataOptionsOf(v, "/tmp/x"));
      const params = templateParams({
        node,
        compliancePolicy: v.inputs.compliancePolicy,
        lightstepTokenPath: "/tmp/x/token",
      });
      const ours = JSON.parse(renderBootstrap(DEFAULT_BOOTSTRAP_TEMPLATE, params, "built-in"));
      const theirs = JSON.parse(renderBootstrap(istio, params, "istio"));
      assert.deepStrictEqual(ours, theirs, v.base);
    }
  });

  it("gives Istio's golden for the default case", async () => {
    const dir = new URL(".", CORPUS).pathname;
    const golden = JSON.parse(await readFile(new URL("bootstrap-golden.json", CORPUS), "utf8"));
    const v = golden.vectors.find((x: { base: string }) => x.base === "default");
    const verdict = await judgeGolden(dir, golden, v, DEFAULT_BOOTSTRAP_TEMPLATE);
    assert.equal(verdict.failure, undefined, JSON.stringify(verdict.failure));
  });

  it("covers the parameters the goldens leave out (dual stack, secure metrics, self discovery, proxy protocol)", async () => {
    const golden = JSON.parse(await readFile(new URL("bootstrap-golden.json", CORPUS), "utf8"));
    const istio = await readFile(new URL(golden.template.file, CORPUS), "utf8");
    const v = golden.vectors.find((x: { base: string }) => x.base === "all");
    const options = metadataOptionsOf(v, "/tmp/x");
    const node = getNodeMetaData({
      ...options,
      instanceIPs: ["10.0.0.1", "fd00::1"],
      envoySecureMetricsPort: 15091,
      envoySecureMergedMetricsPort: 15092,
      envs: [...options.envs, "ISTIO_META_ENABLE_SELF_DISCOVERY=true", "ISTIO_META_ENABLE_HBONE=true"],
      customCredentialsFileExists: true,
      proxyConfig: { ...options.proxyConfig, proxyMetadata: { METRICS_LOCALHOST_ACCESS_ONLY: "true" } },
      labelsFile: 'topology.istio.io/locality="r1.z1.s1"',
    });
    for (const features of [
      { deltaXds: true, dualStack: true, statusPortProxyProtocol: true, stripFragment: false },
      { deltaXds: false, dualStack: false, statusPortProxyProtocol: false, stripFragment: true },
    ]) {
      const params = templateParams({ node, features, logAsJSON: features.dualStack });
      const ours = JSON.parse(renderBootstrap(DEFAULT_BOOTSTRAP_TEMPLATE, params, "built-in"));
      // Istio's template has a trailing comma in the proxy protocol filter: compare after dropping it.
      const theirs = JSON.parse(renderBootstrap(istio, params, "istio").replace(/true,(\s*})/, "true$1"));
      assert.deepStrictEqual(ours, theirs);
    }
  });
});
