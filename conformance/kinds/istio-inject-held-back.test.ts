/**
 * Cases of Istio's TestInjection (pkg/kube/inject/inject_test.go at the corpus commit) that the
 * istio-inject corpus holds back, judged like its cases: Istio's own input and golden, read from the
 * Istio repository on disk, with the settings of a corpus case that the Go test gives the same
 * settings (the same IstioOperator overlay), or those plus the one `--set` or mesh mutation the Go
 * test adds. kube-inject output must be Istio's golden byte for byte. Skipped with a reason when the
 * Istio repository or the corpus is not on disk.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { parseValues } from "../../src/inject/config.js";
import { kubeInject } from "../../src/inject/kube-inject.js";
import type { MeshConfig } from "../../src/mesh/index.js";
import { caseKubeInjectOptions, readCase } from "./istio-inject-case.js";

const ISTIO_GIT = "/work/.mirror/istio+istio/repo";
const COMMIT = "86c9f01fd735fb01d8192f5bcaf0d424afb7f14c";
const CORPUS = fileURLToPath(new URL("../../../shared/conformance/istio-inject/", import.meta.url));

function testdata(name: string): string {
  return execFileSync("git", [`--git-dir=${ISTIO_GIT}`, "show", `${COMMIT}:pkg/kube/inject/testdata/inject/${name}`], {
    encoding: "utf8",
    maxBuffer: 16 << 20,
  });
}

interface HeldBack {
  /** The golden, as inject_test.go names it. */
  want: string;
  input: string;
  /** The corpus case with the same settings. */
  sibling: string;
  /** `--set values.<path>=<value>` the Go test adds (or undoes) over the sibling's. */
  values?: Record<string, string>;
  /** The Go test's mesh mutation, as extension providers appended. */
  extensionProviders?: unknown[];
}

const DEFAULTS = "hello.yaml.proxyImageName.injected"; // default settings but values.global.proxy.image
const CASES: HeldBack[] = [
  // -f spire-template.iop.yaml, as gateway-spire: the spire template adds containers: [istio-proxy]
  // beside the native proxy; Istio keeps both.
  { want: "sidecar-spire.yaml.injected", input: "sidecar-spire.yaml", sibling: "gateway-spire.yaml.injected" },
  {
    want: "proxy-resources-null-no-init.yaml.injected",
    input: "proxy-resources-null-no-init.yaml",
    sibling: "proxy-resources-null.yaml.injected",
  },
  {
    want: "hello-otel-semconv.yaml.injected",
    input: "hello-otel-semconv.yaml",
    sibling: DEFAULTS,
    values: { "global.proxy.image": "proxyv2" },
    extensionProviders: [
      {
        name: "otel",
        opentelemetry: {
          service: "otel-collector.observability.svc.cluster.local",
          port: 4317,
          serviceAttributeEnrichment: "OTEL_SEMANTIC_CONVENTIONS",
        },
      },
    ],
  },
  {
    want: "hello.yaml.proxyInitImageName.injected",
    input: "hello.yaml",
    sibling: DEFAULTS,
    values: { "global.proxy.image": "proxyv2", "global.proxy_init.image": "proxyInitTest" },
  },
  {
    want: "hello-always.yaml.injected",
    input: "hello.yaml",
    sibling: DEFAULTS,
    values: { "global.proxy.image": "proxyv2", "global.imagePullPolicy": "Always" },
  },
  {
    want: "hello-never.yaml.injected",
    input: "hello.yaml",
    sibling: DEFAULTS,
    values: { "global.proxy.image": "proxyv2", "global.imagePullPolicy": "Never" },
  },
];

function setAt(values: Record<string, unknown>, path: string, value: string): void {
  const keys = path.split(".");
  let cur = values;
  for (const k of keys.slice(0, -1)) {
    if (typeof cur[k] !== "object" || cur[k] === null) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[keys.at(-1) as string] = value;
}

const skip = !existsSync(ISTIO_GIT)
  ? `the Istio repository is not at ${ISTIO_GIT}`
  : !existsSync(CORPUS)
    ? `the corpus folder ${CORPUS} is absent`
    : false;

describe("held-back cases of Istio's TestInjection", { skip }, () => {
  for (const c of CASES) {
    it(c.want, () => {
      const dir = join(CORPUS, c.sibling);
      const options = caseKubeInjectOptions(dir, readCase(dir));
      if (c.values !== undefined) {
        const values = JSON.parse(readFileSync(join(dir, "values.json"), "utf8")) as Record<string, unknown>;
        for (const [path, value] of Object.entries(c.values)) setAt(values, path, value);
        options.settings = { ...options.settings, values: parseValues(JSON.stringify(values)) };
      }
      if (c.extensionProviders !== undefined) {
        const mesh: MeshConfig = options.meshConfig;
        options.meshConfig = {
          ...mesh,
          extensionProviders: [...(mesh.extensionProviders ?? []), ...c.extensionProviders],
        } as MeshConfig;
      }
      const got = kubeInject(testdata(c.input), options);
      assert.equal(got, testdata(c.want));
    });
  }
});
