// What operators see: the review's log line (operation, dryRun), the namespace-lookup failure counter,
// and the warning for a configuration made for another revision than the one served.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { after, describe, test } from "node:test";
import { defaultConfigFiles } from "../inject/defaults.js";
import { buildState, revisionMismatch } from "./config-watch.js";
import { metricValue, postReview, scrapeMetrics } from "./https-client.js";
import { createLogger } from "./logging.js";
import type { NamespaceSource } from "./namespaces.js";
import { type RunningServer, type ServerOptions, startServer } from "./server.js";

type Json = Record<string, unknown>;
const EXAMPLE = JSON.parse(readFileSync(new URL("../../examples/admission-review.json", import.meta.url), "utf8")) as {
  request: Json;
};
const MISMATCH = /values\.revision .* but --revision/;

const servers: RunningServer[] = [];
const dirs: string[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A server whose JSON log lines are collected. */
async function start(options: ServerOptions): Promise<{ server: RunningServer; lines: Json[] }> {
  const lines: Json[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split("\n")) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  const server = await startServer({
    port: 0,
    host: "127.0.0.1",
    metricsPort: null,
    defaultMetrics: false,
    logger: createLogger({ level: "info", destination }),
    ...options,
  });
  servers.push(server);
  return { server, lines };
}

function configDir(files: { config: string; values: string; mesh: string }): string {
  const dir = mkdtempSync(join(tmpdir(), "meshinject-ops-"));
  dirs.push(dir);
  writeConfig(dir, files);
  return dir;
}

function writeConfig(dir: string, files: { config: string; values: string; mesh: string }): void {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
}

describe("the review's log line", () => {
  test("names the operation and whether it is a dry run", async () => {
    const { server, lines } = await start({});
    const review = structuredClone(EXAMPLE);
    review.request.dryRun = true;
    await postReview({ port: server.port, ca: server.generatedCertificate?.cert ?? "", review });
    const line = lines.find((l) => l.msg === "pod injected");
    assert.equal(line?.operation, "CREATE");
    assert.equal(line?.dryRun, true);
    assert.equal(line?.uid, EXAMPLE.request.uid);
  });
});

describe("meshinject_namespace_lookup_failures_total", () => {
  test("counts failed and rejected lookups on OpenShift, exported on /metrics", async () => {
    let answer: "missing" | "throw" = "missing";
    const source: NamespaceSource = {
      get: (name) =>
        answer === "throw" ? Promise.reject(new Error("boom")) : Promise.resolve({ reason: `no ${name}` }),
    };
    const { server } = await start({ platform: "openshift", namespaces: source, metricsPort: 0 });
    const failures = async () =>
      metricValue(await scrapeMetrics(server.metricsPort), "meshinject_namespace_lookup_failures_total");
    assert.equal(await failures(), 0);
    const ca = server.generatedCertificate?.cert ?? "";
    await postReview({ port: server.port, ca, review: EXAMPLE });
    assert.equal(await failures(), 1);
    answer = "throw";
    await postReview({ port: server.port, ca, review: EXAMPLE });
    assert.equal(await failures(), 2);
  });

  test("a found namespace is not a failure", async () => {
    const source: NamespaceSource = {
      get: async (name) => ({ namespace: { apiVersion: "v1", kind: "Namespace", metadata: { name } } }),
    };
    const { server } = await start({ platform: "openshift", namespaces: source });
    await postReview({ port: server.port, ca: server.generatedCertificate?.cert ?? "", review: EXAMPLE });
    assert.equal((await server.metrics.namespaceLookupFailures.get()).values[0]?.value, 0);
  });
});

describe("a configuration for another revision", () => {
  const warnings = (lines: Json[]) => lines.filter((l) => MISMATCH.test(String(l.msg)));

  test("is warned about at start-up, naming both revisions, and still served", async () => {
    const { server, lines } = await start({
      revision: "canary",
      config: { configDir: configDir(defaultConfigFiles()) },
    });
    const found = warnings(lines);
    assert.equal(found.length, 1);
    assert.equal(found[0]?.level, "warn");
    assert.equal(found[0]?.revision, "canary");
    assert.equal(found[0]?.valuesRevision, "");
    assert.equal(found[0]?.discoveryAddress, "istiod.istio-system.svc:15012");
    assert.match(String(found[0]?.msg), /"canary"/);
    const answer = await postReview({
      port: server.port,
      ca: server.generatedCertificate?.cert ?? "",
      review: EXAMPLE,
    });
    assert.equal((answer.response as { allowed: boolean }).allowed, true);
  });

  test("is not warned about when the revisions agree ('' and 'default' are one)", async () => {
    for (const [revision, files] of [
      ["canary", defaultConfigFiles("canary")],
      ["default", defaultConfigFiles()],
      ["", defaultConfigFiles()],
    ] as const) {
      const { lines } = await start({ revision, config: { configDir: configDir(files) } });
      assert.deepEqual(warnings(lines), [], revision);
    }
    const values = JSON.stringify({ ...JSON.parse(defaultConfigFiles().values), revision: "default" });
    const { lines } = await start({ config: { configDir: configDir({ ...defaultConfigFiles(), values }) } });
    assert.deepEqual(warnings(lines), []);
  });

  test("is warned about once per reloaded configuration", async () => {
    const dir = configDir(defaultConfigFiles("canary"));
    const { server, lines } = await start({ revision: "canary", config: { configDir: dir }, watchIntervalMs: 60_000 });
    assert.equal(warnings(lines).length, 0);
    writeConfig(dir, defaultConfigFiles("prod"));
    await server.checkFiles();
    assert.equal(lines.filter((l) => l.msg === "injector configuration reloaded").length, 1);
    assert.equal(warnings(lines).length, 1);
    assert.equal(warnings(lines)[0]?.valuesRevision, "prod");
    await server.checkFiles(); // nothing changed: no new configuration, no new warning
    assert.equal(warnings(lines).length, 1);
    writeConfig(dir, defaultConfigFiles("canary"));
    await server.checkFiles();
    assert.equal(lines.filter((l) => l.msg === "injector configuration reloaded").length, 2);
    assert.equal(warnings(lines).length, 1);
  });

  test("revisionMismatch compares the values' revision with the served one", () => {
    const state = buildState(defaultConfigFiles("canary"), { revision: "canary", nativeSidecars: "auto" });
    assert.equal(revisionMismatch(state, "canary"), undefined);
    assert.deepEqual(revisionMismatch(state, ""), {
      revision: "",
      valuesRevision: "canary",
      discoveryAddress: "istiod-canary.istio-system.svc:15012",
    });
    assert.equal(revisionMismatch(state, "default")?.valuesRevision, "canary");
  });
});
