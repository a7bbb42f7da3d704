// `meshinject proxy-config`, run in-process on manifests injected with the library.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import type { Command } from "commander";
import { assertFailed, type Run, recordingIo, runManifestCommand } from "../../test/manifest-command-run.js";
import { readYaml } from "../go/yaml/read.js";
import { injectYaml, loadInjectorConfig } from "../index.js";
import { splitYamlStream } from "../kube/stream.js";
import { proxyConfigCommand } from "./proxy-config.js";

const CURL = readFileSync(new URL("../../examples/curl.yaml", import.meta.url), "utf8");
const INJECTED = injectYaml(loadInjectorConfig(), CURL);

/** A Pod kube-inject leaves as it is (hostNetwork), without a namespace. */
const HOST_POD = `apiVersion: v1
kind: Pod
metadata:
  name: h
spec:
  hostNetwork: true
  containers:
  - name: app
    image: app
`;

/** What `--help` prints: commander's usage and options, and the text added after them. */
function fullHelp(command: Command): string {
  let text = "";
  command.configureOutput({ writeOut: (s) => (text += s) }).outputHelp();
  return text;
}

/** Runs the command's action on `files[name]` for `-f name`. */
function run(files: Record<string, string>, args: string[]): Promise<Run> {
  return runManifestCommand(proxyConfigCommand, files, args);
}

describe("meshinject proxy-config", () => {
  it("prints the start of each injected pod as YAML", async () => {
    const r = await run({ "app.yaml": INJECTED }, ["-f", "app.yaml"]);
    assert.equal(r.failed, false, r.stderr);
    assert.match(r.stdout, /^# Deployment default\/curl\n/);
    const doc = readYaml(r.stdout) as Record<string, unknown>;
    assert.equal(doc.identity, "spiffe://cluster.local/ns/default/sa/curl");
    assert.equal(doc.domain, "default.svc.cluster.local");
    assert.equal(doc.statusPort, 15020);
    assert.equal(doc.concurrency, 2);
    const pc = doc.proxyConfig as Record<string, unknown>;
    assert.equal(pc.discoveryAddress, "istiod.istio-system.svc:15012");
    assert.equal(pc.drainDuration, "45s");
    assert.equal(pc.serviceCluster, "istio-proxy");
  });

  it("takes the trust domain from --meshConfigFile, a whole ConfigMap too, and -n for objects without a namespace", async () => {
    const cm = [
      "apiVersion: v1",
      "kind: ConfigMap",
      "metadata: {name: istio, namespace: istio-system}",
      "data:",
      "  mesh: |",
      "    trustDomain: corp.example",
      "",
    ].join("\n");
    const r = await run({ "app.yaml": INJECTED, "cm.yaml": cm }, [
      "-f",
      "app.yaml",
      "--meshConfigFile",
      "cm.yaml",
      "-n",
      "shop",
    ]);
    assert.equal(r.failed, false, r.stderr);
    assert.match(r.stdout, /identity: spiffe:\/\/corp\.example\/ns\/shop\/sa\/curl\n/);
    assert.match(r.stdout, /domain: shop\.svc\.cluster\.local\n/);
  });

  it("separates pods with ---, List items included", async () => {
    const pods = splitYamlStream(INJECTED).map((d) => readYaml(d));
    const list = { apiVersion: "v1", kind: "List", items: pods };
    const r = await run({ "a.yaml": `${INJECTED}---\n${JSON.stringify(list)}\n` }, ["-f", "a.yaml"]);
    assert.equal(r.failed, false, r.stderr);
    assert.equal(r.stdout.split("---\n").length, 2);
  });

  it("lists a workload that is not injected in a section of comments only, as capture-rules does", async () => {
    const input = injectYaml(loadInjectorConfig(), `${CURL}---\n${HOST_POD}`);
    assert.match(input, /hostNetwork: true/);
    const r = await run({ "app.yaml": input }, ["-f", "app.yaml", "-n", "shop"]);
    assert.equal(r.failed, false, r.stderr);
    const sections = r.stdout.split(/^---\n/m);
    assert.equal(sections.length, 2, r.stdout);
    assert.match(sections[0] ?? "", /^# Deployment shop\/curl\n/);
    assert.equal(sections[1], "# Pod shop/h\n# not injected: no istio-proxy container\n");
    // Still valid YAML: the comments-only section is an empty document.
    const docs = splitYamlStream(r.stdout).map((d) => readYaml(d));
    assert.equal((docs[0] as Record<string, unknown>).identity, "spiffe://cluster.local/ns/shop/sa/curl");
    assert.ok(
      docs.slice(1).every((d) => d === null || d === undefined),
      JSON.stringify(docs),
    );
  });

  it("the help lists each option once", () => {
    const text = fullHelp(proxyConfigCommand(recordingIo().io));
    assert.equal(text.match(/^Options:/gm)?.length, 1, text);
    for (const flag of ["-f, --filename", "--meshConfigFile", "-n, --namespace"]) {
      assert.equal(text.match(new RegExp(`^ +${flag}\\b`, "gm"))?.length, 1, `${flag} not listed once:\n${text}`);
    }
    assert.match(
      text.replace(/\s+/g, " "),
      /-n, --namespace <namespace> namespace of objects that name none \(.*downward API.*\) \(default: "default"\)/,
    );
  });

  it("fails with a pointer to kube-inject when nothing is injected", async () => {
    assertFailed(await run({ "app.yaml": CURL }, ["-f", "app.yaml"]), /no injected pods.*meshinject kube-inject/);
  });

  it("names the document and the cause on one line", async () => {
    // A drain duration pilot-agent's validation refuses, added after injection.
    const text = INJECTED.replace(
      "        sidecar.istio.io/status:",
      "        proxy.istio.io/config: 'drainDuration: 0s'\n        sidecar.istio.io/status:",
    );
    assert.notEqual(text, INJECTED);
    assertFailed(
      await run({ "app.yaml": text }, ["-f", "app.yaml"]),
      /^meshinject: app\.yaml: document 3 \(Deployment "curl"\): pilot-agent rejects the proxy config: invalid drain duration/,
    );
    assertFailed(await run({ "app.yaml": "a: [" }, ["-f", "app.yaml"]), /^meshinject: app\.yaml: document 1: /);
    assertFailed(
      await run({ "app.yaml": INJECTED, "m.yaml": "trustDomain: [x]" }, [
        "-f",
        "app.yaml",
        "--meshConfigFile",
        "m.yaml",
      ]),
      /^meshinject: m\.yaml: /,
    );
  });
});
