// `meshinject serve --workers 2` as a process over real HTTPS on loopback: both workers serve, the
// metrics port reports their aggregate, certificate and config reloads reach both, a killed worker is
// replaced, and SIGTERM drains requests in flight on every worker before the primary exits 0.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { once } from "node:events";
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import type { ClientRequest, IncomingMessage } from "node:http";
import { request } from "node:https";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { type LogLine, Logs } from "../../test/json-logs.js";
import { defaultConfigFiles } from "../inject/defaults.js";
import { call, metricValue, postReview, scrapeMetrics } from "../webhook/https-client.js";
import { selfSignedCertificate } from "../webhook/tls-self-signed.js";
import { listenErrorMessage, workerCount } from "./serve.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const EXAMPLE_TEXT = readFileSync(new URL("../../examples/admission-review.json", import.meta.url));
const EXAMPLE = JSON.parse(EXAMPLE_TEXT.toString("utf8"));
const dir = mkdtempSync(join(tmpdir(), "meshinject-workers-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Writes a file the way an editor or `kubectl cp` would not leave half-written: temp, then rename. */
function replaceFile(path: string, text: string): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

/**
 * A POST of the example whose body is held back until `finish()`; `reading` resolves when the server
 * has the request and waits for the body (its `100 Continue`).
 */
function heldRequest(port: number) {
  let req!: ClientRequest;
  let reading!: Promise<void>;
  const answered = new Promise<{ res: IncomingMessage; body: string }>((resolve, reject) => {
    req = request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/inject",
        rejectUnauthorized: false,
        agent: false,
        headers: {
          "content-type": "application/json",
          "content-length": EXAMPLE_TEXT.length,
          expect: "100-continue",
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ res, body: Buffer.concat(chunks).toString("utf8") }));
      },
    );
    req.on("error", reject);
    reading = new Promise<void>((resolve) => req.once("continue", resolve));
  });
  req.flushHeaders();
  return { reading, answered, finish: () => req.end(EXAMPLE_TEXT) };
}

/** Injected, skipped or denied: what the server made of the example pod (a fresh connection each time). */
async function outcome(port: number): Promise<string> {
  const answer = await postReview({ port, review: EXAMPLE });
  const response = answer.response as { allowed: boolean; patch?: string };
  return !response.allowed ? "denied" : response.patch ? "injected" : "skipped";
}

const workerLine = (msg: string, worker?: number) => (l: LogLine) =>
  l.msg === msg && l.worker !== undefined && (worker === undefined || l.worker === worker);

describe("meshinject serve --workers 2", () => {
  test("both workers serve; aggregated metrics; reloads reach both; a killed worker is replaced; SIGTERM drains", {
    timeout: 180_000,
  }, async () => {
    const first = selfSignedCertificate({ hosts: ["localhost", "127.0.0.1"] });
    const certFile = join(dir, "tls.crt");
    const keyFile = join(dir, "tls.key");
    const configFile = join(dir, "config");
    writeFileSync(certFile, first.cert);
    writeFileSync(keyFile, first.key);
    const builtin = defaultConfigFiles().config;
    writeFileSync(configFile, builtin);
    const child = spawn(
      process.execPath,
      [
        ...["--import", "tsx", "src/cli/main.ts", "serve", "--workers=2", "--port=0", "--metrics-port=0"],
        ...["--host=127.0.0.1", "--metrics-host=127.0.0.1", "--watch-interval=100", "--no-istiod-check"],
        ...[`--tls-cert-file=${certFile}`, `--tls-key-file=${keyFile}`, `--injectConfigFile=${configFile}`],
        ...["--shutdown-delay=1500", "--shutdown-timeout=10000"],
      ],
      { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] },
    );
    const exited = once(child, "exit");
    const logs = new Logs(child);
    try {
      const [listening] = await logs.wait("the primary's listening line", (l) => l.workers === 2);
      const port = Number(listening?.port);
      const metricsPort = Number(listening?.metricsPort);
      const started = await logs.wait("worker listening", (l) => l.msg === "worker listening", 2);
      const pids = new Set(started.map((l) => l.pid));
      assert.equal(pids.size, 2, "two worker processes");
      assert.ok(!pids.has(child.pid), "the primary does not serve");

      // --- both serve, one aggregate ---
      const sent = 20;
      for (let i = 0; i < sent; i++) assert.equal(await outcome(port), "injected");
      let metrics = await scrapeMetrics(metricsPort);
      assert.equal(metricValue(metrics, "sidecar_injection_requests_total"), sent);
      assert.equal(metricValue(metrics, "sidecar_injection_success_total"), sent);
      assert.equal(metricValue(metrics, "meshinject_workers"), 2);
      const perWorker = [0, 1].map((w) => metricValue(metrics, `meshinject_worker_requests_total{worker="${w}"}`));
      assert.equal((perWorker[0] ?? 0) + (perWorker[1] ?? 0), sent, metrics);
      assert.ok(
        perWorker.every((n) => n > 0),
        `both workers answered: ${perWorker.join(" + ")}`,
      );
      const durations = metrics
        .split("\n")
        .filter((l) => l.startsWith("sidecar_injection_duration_seconds_count"))
        .reduce((sum, l) => sum + Number(l.split(" ")[1]), 0);
      assert.equal(durations, sent, "histogram counts are the sum of the workers'");

      // --- a new certificate reaches both workers ---
      const second = selfSignedCertificate({ hosts: ["localhost", "127.0.0.1"] });
      replaceFile(keyFile, second.key);
      replaceFile(certFile, second.cert);
      await logs.wait("a certificate reload in each worker", workerLine("serving certificate reloaded"), 2);
      const reloadedBy = new Set(logs.lines.filter(workerLine("serving certificate reloaded")).map((l) => l.worker));
      assert.deepEqual([...reloadedBy].sort(), [0, 1]);
      const secondPrint = new X509Certificate(second.cert).fingerprint256;
      for (let i = 0; i < 6; i++) {
        // Fresh connections, handed to the workers in turn: every one shows the new certificate.
        assert.equal((await call({ port, method: "GET", path: "/healthz" })).fingerprint, secondPrint);
      }

      // --- a new configuration reaches both workers ---
      replaceFile(configFile, builtin.replace(/^policy: enabled$/m, "policy: disabled"));
      await logs.wait("a config reload in each worker", workerLine("injector configuration reloaded"), 2);
      for (let i = 0; i < 6; i++) assert.equal(await outcome(port), "skipped");
      metrics = await scrapeMetrics(metricsPort);
      assert.equal(metricValue(metrics, "sidecar_injection_config_reloads_total"), 1, "one reload, not one per worker");
      assert.equal(metricValue(metrics, "sidecar_injection_cert_reloads_total"), 1);

      // --- a killed worker is replaced; the other serves meanwhile ---
      const [victim] = started;
      process.kill(Number(victim?.pid), "SIGKILL");
      await logs.wait("the primary noticing", (l) => l.msg === "worker exited unexpectedly: replacing it");
      const [replacement] = await logs.wait(
        "a replacement",
        (l) => l.msg === "worker listening" && l.worker === victim?.worker && l.pid !== victim?.pid,
      );
      assert.ok(replacement);
      for (let i = 0; i < 4; i++) assert.equal(await outcome(port), "skipped", "the replacement has the new config");
      metrics = await scrapeMetrics(metricsPort);
      assert.equal(metricValue(metrics, "meshinject_worker_restarts_total"), 1);
      assert.equal(metricValue(metrics, "meshinject_workers"), 2);

      // --- SIGTERM: requests in flight on both workers finish, then everything exits 0 ---
      const held = [heldRequest(port), heldRequest(port)];
      const answers = Promise.allSettled(held.map((h) => h.answered));
      await Promise.all(held.map((h) => h.reading)); // each worker has one, reading its body
      child.kill("SIGTERM");
      // Lame duck (--shutdown-delay): both workers still answer, and /readyz says to go elsewhere.
      await logs.wait(
        "each worker in its drain delay",
        workerLine("shutting down: draining kept-alive connections"),
        2,
      );
      for (let i = 0; i < 2; i++) {
        const ready = await call({ port, method: "GET", path: "/readyz" });
        assert.equal(ready.status, 503);
        assert.equal(ready.body, "not ready: shutting down\n");
      }
      const draining = await logs.wait(
        "each worker draining",
        workerLine("shutting down: no new connections, finishing requests in flight"),
        2,
      );
      assert.deepEqual(
        draining.map((l) => l.inFlight),
        [1, 1],
        "each worker has one request in flight",
      );
      // Once every worker has closed the port, new connections are refused. (A connection that
      // arrives in the very instant the last worker closes can be left waiting by node:cluster's
      // primary until it exits, hence the pause.)
      await new Promise((r) => setTimeout(r, 300));
      await assert.rejects(call({ port, method: "GET", path: "/healthz" }), /ECONNREFUSED/);
      for (const h of held) h.finish();
      for (const answer of await answers) {
        assert.equal(answer.status, "fulfilled", `${(answer as PromiseRejectedResult).reason}; log:\n${logs.tail()}`);
        const { res, body } = (answer as PromiseFulfilledResult<{ res: IncomingMessage; body: string }>).value;
        assert.equal(res.statusCode, 200);
        assert.equal((JSON.parse(body) as { response: { allowed: boolean } }).response.allowed, true);
      }
      const [code] = await exited;
      assert.equal(code, 0, logs.tail());
      const workersStopped = logs.lines.filter(workerLine("stopped")).length;
      assert.equal(workersStopped, 2, "both workers drained and stopped");
      assert.ok(
        logs.lines.some((l) => l.msg === "stopped" && l.worker === undefined),
        "then the primary",
      );
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  });
});

describe("serve --workers: start-up", () => {
  test("a worker that cannot listen fails the start: exit 1, one line naming the port and the flag", {
    timeout: 90_000,
  }, async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const busy = String((blocker.address() as { port: number }).port);
    try {
      const child = spawn(
        process.execPath,
        ["--import", "tsx", "src/cli/main.ts", "serve", "--workers", "2", "--host", "127.0.0.1", "--port", busy],
        { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] },
      );
      let stderr = "";
      child.stderr?.setEncoding("utf8");
      child.stderr?.on("data", (c: string) => {
        stderr += c;
      });
      const [code] = await once(child, "exit");
      assert.equal(code, 1);
      assert.equal(
        stderr,
        `meshinject: HTTPS port ${busy} is already in use: choose another with --port (0 picks a free port)\n`,
      );
    } finally {
      blocker.close();
    }
  });

  test("--workers: a count from 1; not given, the container's CPU count", () => {
    assert.equal(
      workerCount("3", () => 8),
      3,
    );
    assert.equal(
      workerCount(undefined, () => 2),
      2,
    );
    for (const bad of ["0", "-1", "two", "1.5"]) assert.throws(() => workerCount(bad, () => 2), /--workers must be/);
  });

  test("a worker's listen error (syscall bind: the primary opens the shared port) in the user's words", () => {
    const err = Object.assign(new Error("bind EADDRINUSE"), { code: "EADDRINUSE", syscall: "bind", port: 9443 });
    assert.match(
      listenErrorMessage(err, { port: 9443, metricsPort: 9444 }) ?? "",
      /^HTTPS port 9443 is already in use/,
    );
  });
});
