// The webhook server over real HTTPS: answers, limits and bad input, health, metrics, logs.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { Writable } from "node:stream";
import { after, before, describe, test } from "node:test";
import { connect } from "node:tls";
import { applyJsonPatch } from "../kube/json-patch.js";
import { call, metricValue, postReview, scrapeMetrics } from "./https-client.js";
import { createLogger } from "./logging.js";
import { type RunningServer, startServer } from "./server.js";

interface ExampleReview {
  apiVersion: string;
  request: {
    uid: string;
    kind: { group: string; version: string; kind: string };
    object: { kind: string; metadata: { annotations?: Record<string, string> } };
  };
}
interface Answer {
  apiVersion: string;
  kind: string;
  response: { uid: string; allowed: boolean; patchType?: string; patch?: string; status?: { message: string } };
}
interface PatchedPod {
  metadata: { labels: Record<string, string> };
  spec: { containers: { name: string; env?: { name: string; value?: string }[] }[] };
}

const EXAMPLE: ExampleReview = JSON.parse(
  readFileSync(new URL("../../examples/admission-review.json", import.meta.url), "utf8"),
);

async function review(port: number, ca: string, body: unknown, path?: string): Promise<Answer> {
  // JSON-encoded here: postReview sends strings as they are.
  const text = JSON.stringify(body);
  return (await postReview({ port, ca, review: text, ...(path ? { path } : {}) })) as unknown as Answer;
}

/** The example pod with an answer's patch applied. */
function patched(answer: Answer): PatchedPod {
  const patch = JSON.parse(Buffer.from(answer.response.patch ?? "", "base64").toString("utf8"));
  return applyJsonPatch(structuredClone(EXAMPLE.request.object), patch) as PatchedPod;
}

function exampleWith(edit: (review: ExampleReview) => void): ExampleReview {
  const review = structuredClone(EXAMPLE);
  edit(review);
  return review;
}

const scrape = scrapeMetrics;
const sample = metricValue;

describe("webhook server", () => {
  let server: RunningServer;
  let ca: string;
  const logLines: Record<string, unknown>[] = [];

  before(async () => {
    const destination = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split("\n")) if (line) logLines.push(JSON.parse(line));
        done();
      },
    });
    server = await startServer({
      port: 0,
      host: "127.0.0.1",
      metricsPort: 0,
      metricsHost: "127.0.0.1",
      logger: createLogger({ level: "debug", destination }),
      defaultMetrics: true,
      limits: { headersTimeoutMs: 300, requestTimeoutMs: 600 },
      timeoutCheckIntervalMs: 100,
    });
    ca = server.generatedCertificate?.cert ?? "";
  });
  after(() => server.close());

  test("injects the example pod: uid echoed, JSONPatch that adds the proxy", async () => {
    const answer = await review(server.port, ca, EXAMPLE);
    assert.equal(answer.apiVersion, "admission.k8s.io/v1");
    assert.equal(answer.kind, "AdmissionReview");
    assert.equal(answer.response.uid, EXAMPLE.request.uid);
    assert.equal(answer.response.allowed, true);
    assert.equal(answer.response.patchType, "JSONPatch");
    assert.ok(patched(answer).spec.containers.some((c) => c.name === "istio-proxy"));
    const patch = JSON.parse(Buffer.from(answer.response.patch ?? "", "base64").toString("utf8"));
    assert.ok(!patch.some((op: { path: string }) => op.path.includes("managedFields")), "managedFields left alone");
  });

  test("Istio's path forms pass cluster, network and other variables to the proxy", async () => {
    for (const path of [
      "/inject/cluster/east/net/network-1/istio_meta_extra/yes",
      "/inject/:ENV:cluster=east:ENV:net=network-1:ENV:ISTIO_META_EXTRA=yes",
    ]) {
      const pod = patched(await review(server.port, ca, EXAMPLE, path));
      assert.equal(pod.metadata.labels["topology.istio.io/network"], "network-1", path);
      const proxy = pod.spec.containers.find((c) => c.name === "istio-proxy");
      const env = new Map((proxy?.env ?? []).map((e) => [e.name, e.value]));
      assert.equal(env.get("ISTIO_META_CLUSTER_ID"), "east", path);
      assert.equal(env.get("ISTIO_META_EXTRA"), "yes", path);
    }
  });

  test("path values are percent-decoded, as the webhook-config command encodes them", async () => {
    const pod = patched(await review(server.port, ca, EXAMPLE, "/inject/cluster/Kubernetes%3Aeast/net/net%201"));
    const proxy = pod.spec.containers.find((c) => c.name === "istio-proxy");
    const env = new Map((proxy?.env ?? []).map((e) => [e.name, e.value]));
    assert.equal(env.get("ISTIO_META_CLUSTER_ID"), "Kubernetes:east");
    assert.equal(env.get("ISTIO_META_NETWORK"), "net 1");
  });

  test("admission.k8s.io/v1beta1 is answered in v1beta1", async () => {
    const answer = await review(
      server.port,
      ca,
      exampleWith((r) => {
        r.apiVersion = "admission.k8s.io/v1beta1";
      }),
    );
    assert.equal(answer.apiVersion, "admission.k8s.io/v1beta1");
    assert.equal(answer.response.allowed, true);
  });

  test("skip by policy: allowed, no patch, counted as skip", async () => {
    const before = sample(await scrape(server.metricsPort), "sidecar_injection_skip_total");
    const answer = await review(
      server.port,
      ca,
      exampleWith((r) => {
        r.request.object.metadata.annotations = { "sidecar.istio.io/inject": "false" };
      }),
    );
    assert.deepEqual(answer.response, { uid: EXAMPLE.request.uid, allowed: true });
    assert.equal(sample(await scrape(server.metricsPort), "sidecar_injection_skip_total"), before + 1);
  });

  test("an invalid sidecar.istio.io/inject value is logged as Istio logs it, and the default applies", async () => {
    const answer = await review(
      server.port,
      ca,
      exampleWith((r) => {
        r.request.object.metadata.annotations = { "sidecar.istio.io/inject": "maybe" };
      }),
    );
    assert.equal(answer.response.allowed, true);
    assert.ok(answer.response.patch, "injected: the default policy of the built-in config is enabled");
    const line = logLines.find((l) => String(l.msg).startsWith("Invalid value for sidecar.istio.io/inject"));
    assert.ok(line, "the warning was logged");
    assert.equal(line.level, "warn");
    assert.equal(
      line.msg,
      `Invalid value for sidecar.istio.io/inject: "maybe". Only 'true' and 'false' are accepted. Falling back to default injection policy.`,
    );
    assert.match(String(line.pod), /^default\/curl-/);
  });

  test("injection error: allowed false with the message, counted as failure", async () => {
    const answer = await review(
      server.port,
      ca,
      exampleWith((r) => {
        r.request.object.metadata.annotations = { "sidecar.istio.io/proxyCPU": "lots" };
      }),
    );
    assert.equal(answer.response.uid, EXAMPLE.request.uid);
    assert.equal(answer.response.allowed, false);
    assert.match(answer.response.status?.message ?? "", /sidecar\.istio\.io\/proxyCPU/);
    const metrics = await scrape(server.metricsPort);
    assert.ok(sample(metrics, 'sidecar_injection_failure_total{reason="injection_error"}') >= 1);
  });

  test("wrong kind, missing request, not a Pod: well-formed AdmissionReview errors", async () => {
    for (const body of [
      { apiVersion: "v1", kind: "ConfigMap" },
      { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" },
      exampleWith((r) => {
        r.request.kind = { group: "apps", version: "v1", kind: "Deployment" };
        r.request.object.kind = "Deployment";
      }),
      [1, 2, 3],
      "a string",
      null,
    ]) {
      const answer = await review(server.port, ca, body);
      assert.equal(answer.kind, "AdmissionReview", JSON.stringify(body));
      assert.equal(answer.response.allowed, false);
      assert.equal(typeof answer.response.status?.message, "string");
    }
  });

  test("malformed JSON: 200 with an AdmissionReview that denies and says why", async () => {
    const res = await call({ port: server.port, ca, body: '{"apiVersion": "admission.k8s.io/v1", "kind":' });
    assert.equal(res.status, 200);
    assert.match(String(res.headers["content-type"]), /^application\/json/);
    const answer = JSON.parse(res.body);
    assert.equal(answer.kind, "AdmissionReview");
    assert.equal(answer.response.allowed, false);
    assert.match(answer.response.status.message, /could not decode/);
    const metrics = await scrape(server.metricsPort);
    assert.ok(sample(metrics, 'sidecar_injection_failure_total{reason="malformed_json"}') >= 1);
  });

  test("content-type other than JSON: 415; charset parameter accepted", async () => {
    const body = JSON.stringify(EXAMPLE);
    const res = await call({ port: server.port, ca, body, headers: { "content-type": "text/plain" } });
    assert.equal(res.status, 415);
    const missing = await call({ port: server.port, ca, body, headers: { "content-type": "" } });
    assert.equal(missing.status, 415);
    const ok = await call({
      port: server.port,
      ca,
      body,
      headers: { "content-type": "Application/JSON; charset=utf-8" },
    });
    assert.equal(ok.status, 200);
  });

  test("empty body: 400; GET /inject: 405; unknown path: 404", async () => {
    assert.equal((await call({ port: server.port, ca, body: "" })).status, 400);
    assert.equal((await call({ port: server.port, ca, method: "GET" })).status, 405);
    assert.equal((await call({ port: server.port, ca, method: "GET", path: "/nope" })).status, 404);
  });

  test("declared body over 6 MiB: 413 before the body is sent", async () => {
    // Announce 7 MiB, send 64 KiB, and wait: the answer must come without the rest.
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpsRequest(
        {
          host: "127.0.0.1",
          port: server.port,
          method: "POST",
          path: "/inject",
          ca,
          servername: "localhost",
          agent: false,
          headers: { "content-type": "application/json", "content-length": 7 * 1024 * 1024 },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.write(Buffer.alloc(64 * 1024, 0x20));
    });
    assert.equal(status, 413);
  });

  test("streamed (chunked) body over 6 MiB: 413 while streaming, the rest never read", async () => {
    const total = 7 * 1024 * 1024;
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    const { status, sent } = await new Promise<{ status: number; sent: number }>((resolve, reject) => {
      let sent = 0;
      let answered = false;
      const req = httpsRequest(
        {
          host: "127.0.0.1",
          port: server.port,
          method: "POST",
          path: "/inject",
          ca,
          servername: "localhost",
          agent: false,
          headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
        },
        (res) => {
          answered = true;
          res.resume();
          resolve({ status: res.statusCode ?? 0, sent });
        },
      );
      req.on("error", (e) => (answered ? undefined : reject(e)));
      const pump = () => {
        while (!answered && sent < total) {
          sent += chunk.length;
          if (!req.write(chunk)) {
            req.once("drain", pump);
            return;
          }
        }
        // Everything written and still no answer: the test fails on `sent` below, not by hanging.
        if (!answered) req.end();
      };
      pump();
    });
    assert.equal(status, 413);
    assert.ok(sent < total, `the client had to send only part of the body (sent ${sent} of ${total})`);
    const metrics = await scrape(server.metricsPort);
    assert.ok(sample(metrics, 'sidecar_injection_failure_total{reason="body_too_large"}') >= 2);
  });

  test("slow client: the header timeout closes the connection", async () => {
    const started = Date.now();
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: "127.0.0.1", port: server.port, ca, servername: "localhost" }, () => {
        socket.write("POST /inject HTTP/1.1\r\nHost: localhost\r\n"); // and never finishes the headers
      });
      let text = "";
      socket.setEncoding("utf8");
      socket.on("data", (d: string) => {
        text += d;
      });
      socket.on("close", () => resolve(text));
      socket.on("error", reject);
    });
    assert.match(answer, /^HTTP\/1\.1 408/);
    assert.ok(Date.now() - started < 3000);
  });

  test("TLS below 1.2 is refused", async () => {
    await assert.rejects(
      new Promise((resolve, reject) => {
        const socket = connect(
          {
            host: "127.0.0.1",
            port: server.port,
            rejectUnauthorized: false,
            maxVersion: "TLSv1.1",
            minVersion: "TLSv1",
          },
          () => resolve(socket.getProtocol()),
        );
        socket.on("error", reject);
      }),
    );
  });

  test("garbage bodies are always answered, and the server stays up", async () => {
    const bodies = [
      "{",
      "}",
      "[",
      "nul",
      "\u0000\u0001",
      '{"request": {"object": 5}}',
      "1e999",
      '"\\ud800"',
      "x".repeat(10_000),
    ];
    for (const body of bodies) {
      const res = await call({ port: server.port, ca, body });
      assert.equal(res.status, 200, body);
      assert.equal(JSON.parse(res.body).kind, "AdmissionReview");
    }
    assert.equal((await call({ port: server.port, ca, method: "GET", path: "/healthz" })).status, 200);
  });

  test("/healthz and /readyz on the HTTPS port", async () => {
    const health = await call({ port: server.port, ca, method: "GET", path: "/healthz" });
    assert.equal(health.status, 200);
    const ready = await call({ port: server.port, ca, method: "GET", path: "/readyz" });
    assert.equal(ready.status, 200);
    assert.equal(ready.body, "ok\n");
  });

  test("/metrics on the plain-HTTP port: Istio's names, histogram, reload counters, node metrics", async () => {
    const metrics = await scrape(server.metricsPort);
    for (const name of [
      "sidecar_injection_requests_total",
      "sidecar_injection_success_total",
      "sidecar_injection_skip_total",
      "sidecar_injection_failure_total",
      "sidecar_injection_duration_seconds_bucket",
      "sidecar_injection_config_reload_errors_total",
      "sidecar_injection_cert_reload_errors_total",
      "sidecar_injection_cert_expiry_timestamp_seconds",
      "process_cpu_seconds_total",
      "nodejs_eventloop_lag_seconds",
    ]) {
      assert.match(metrics, new RegExp(`^${name}`, "m"), name);
    }
    assert.ok(sample(metrics, "sidecar_injection_requests_total") >= 10);
    assert.ok(sample(metrics, "sidecar_injection_success_total") >= 3);
    assert.ok(sample(metrics, 'sidecar_injection_duration_seconds_count{outcome="injected"}') >= 3);
    // Not on the HTTPS port.
    assert.equal((await call({ port: server.port, ca, method: "GET", path: "/metrics" })).status, 404);
  });

  test("logs: JSON lines, one info line per injection with pod, namespace and outcome", () => {
    const injected = logLines.find((l) => l.msg === "pod injected");
    assert.ok(injected, "an injection was logged");
    assert.equal(injected.level, "info");
    assert.equal(injected.namespace, "default");
    assert.match(String(injected.pod), /^default\/curl-7b8f6d9c5-/);
    assert.equal(injected.uid, EXAMPLE.request.uid);
    assert.ok(logLines.some((l) => l.msg === "pod skipped" && l.level === "info"));
    assert.ok(logLines.some((l) => l.msg === "injection failed" && l.level === "warn"));
    assert.ok(logLines.some((l) => l.msg === "request" && l.level === "debug"));
    assert.ok(logLines.some((l) => l.status === 415 && l.level === "warn"));
  });
});
