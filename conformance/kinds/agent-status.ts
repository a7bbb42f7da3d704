/**
 * The `agent-status` kind: pilot-agent's status server (see the corpus's FORMAT.md). Live vectors start
 * the real status server (src/agent/status/server.ts) on a loopback port with the fake upstreams the
 * vector describes, send the request with Node's HTTP client and judge the answer; startup vectors start
 * (or fail to start) the server; unit vectors call the function the vector names.
 */
import { readdir, readFile } from "node:fs/promises";
import * as http from "node:http";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { zstdDecompress } from "../../src/agent/status/compression.js";
import { EnvoyReadinessProbe } from "../../src/agent/status/envoy-probe.js";
import { FMT_TEXT, negotiateMetricsFormat, parseMediaType } from "../../src/agent/status/metrics-format.js";
import {
  istioReservedPortReason,
  normalizeScrapeConfig,
  parseScrapeTargets,
} from "../../src/agent/status/scrape-config.js";
import { type StatusServer, type StatusServerOptions, startStatusServer } from "../../src/agent/status/server.js";
import type { Failure, KindOptions, KindResult } from "../result.js";
import { shown } from "../result.js";
import { type Fake, startEnvoyAdmin, startGrpcHealth, startHttpFake } from "./agent-status-fakes.js";
import { judgeHealthChecker, type Verdict } from "./agent-status-health.js";
import { parseOpenMetrics, parsePrometheusText } from "./exposition-parse.js";

type Json = Record<string, unknown>;

const ok: Verdict = { pass: true };
const fail = (reason: string, expected: unknown, got: unknown): Verdict => ({
  pass: false,
  reason,
  expected: shown(typeof expected === "string" ? expected : JSON.stringify(expected)),
  got: shown(typeof got === "string" ? got : JSON.stringify(got)),
});

/** Replaces `{{name}}` placeholders in every string of a value. */
function substitute<T>(value: T, vars: Record<string, string>): T {
  const text = JSON.stringify(value);
  if (text === undefined) return value;
  // A whole-string numeric placeholder in an object ("{{app.port}}") becomes a number.
  const numeric = text.replace(/"\{\{([^}]+)\}\}"/g, (m, name: string) => {
    const v = vars[name];
    return v !== undefined && /^\d+$/.test(v) ? v : m;
  });
  const replaced = numeric.replace(/\{\{([^}]+)\}\}/g, (m, name: string) => vars[name] ?? m);
  return JSON.parse(replaced) as T;
}

interface Started {
  fakes: Fake[];
  vars: Record<string, string>;
  app?: Fake;
  envoyAdminBody: { text: string };
}

async function startUpstreams(v: Json, fixtures: Json): Promise<Started> {
  const up = (v.upstreams ?? {}) as Json;
  const started: Started = { fakes: [], vars: {}, envoyAdminBody: { text: "" } };
  const track = (f: Fake) => {
    started.fakes.push(f);
    return f;
  };
  if (up.app !== undefined) {
    const spec = up.app as Json | string;
    const fixture = typeof spec === "string" ? spec : spec.fixture;
    const app =
      fixture === "grpcHealthApp"
        ? track(await startGrpcHealth(((spec as Json).servingStatus ?? {}) as Record<string, string>))
        : track(await startHttpFake(spec, fixtures, fixtures.testCert as Json | undefined));
    started.app = app;
    started.vars["app.port"] = String(app.port);
    started.vars["app.listenIP"] = "::";
    started.vars["app.host"] = "127.0.0.1";
  }
  if (up.envoy !== undefined) {
    const envoy = track(await startHttpFake(up.envoy, fixtures));
    started.vars["envoy.statsPort"] = String(envoy.port);
  }
  if (up.envoyAdmin !== undefined) {
    started.envoyAdminBody.text = String((up.envoyAdmin as Json).statsBody ?? "");
    const admin = track(await startEnvoyAdmin(() => started.envoyAdminBody.text));
    started.vars["envoy.adminPort"] = String(admin.port);
  }
  const targets = (up.targets ?? []) as Json[];
  for (let i = 0; i < targets.length; i++) {
    const t = track(await startHttpFake({ ...targets[i], port: undefined }, fixtures));
    started.vars[`targets[${i}].port`] = String(t.port);
  }
  return started;
}

/** The status server options a vector's `agent` block describes. */
function serverOptions(agent: Json, extra: Partial<StatusServerOptions>): StatusServerOptions {
  const env = (agent.env ?? {}) as Record<string, string>;
  const o = (agent.options ?? {}) as Json;
  const overrides = (agent.overrides ?? {}) as Json;
  const probes = ((o.probes ?? []) as { checkError: string | null }[]).map((p) => () => p.checkError ?? undefined);
  return {
    host: "127.0.0.1",
    port: typeof o.statusPort === "number" ? o.statusPort : 0,
    adminPort: Number(o.adminPort ?? 1),
    envoyPrometheusPort: o.envoyPrometheusPort === undefined ? undefined : Number(o.envoyPrometheusPort),
    podIP: typeof o.podIP === "string" ? o.podIP : "",
    ipv6: o.ipv6 === true,
    nodeType: typeof o.nodeType === "string" ? o.nodeType : undefined,
    enableProfiling: o.enableProfiling === true,
    kubeAppProbers: env.ISTIO_KUBE_APP_PROBERS ?? "",
    prometheusAnnotations: env.ISTIO_PROMETHEUS_ANNOTATIONS,
    probes,
    upstreamLocalAddress:
      typeof overrides.upstreamLocalAddress === "string" ? overrides.upstreamLocalAddress : undefined,
    maxAppBodyBytes: typeof overrides.maxAppBodyBytes === "number" ? overrides.maxAppBodyBytes : undefined,
    ...extra,
  };
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function send(
  host: string,
  port: number,
  method: string,
  path: string,
  headers: [string, string][],
  hostHeader: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const raw: string[] = ["Host", hostHeader];
    for (const [k, val] of headers) raw.push(k, val);
    const req = http.request({ host, port, method, path, headers: raw, setHost: false, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", reject);
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.setTimeout(30000, () => req.destroy(new Error("no answer in 30 s")));
    req.on("error", reject);
    req.end();
  });
}

async function request(server: StatusServer, r: Json, listenHost: string): Promise<Answer> {
  const headers = (r.headers ?? []) as [string, string][];
  const hostHeader = typeof r.host === "string" ? r.host : `localhost:${server.port}`;
  let path = String(r.path);
  for (let hops = 0; ; hops++) {
    const a = await send(listenHost, server.port, String(r.method ?? "GET"), path, headers, hostHeader);
    if (r.followRedirects === true && a.status >= 301 && a.status <= 308 && a.headers.location && hops < 10) {
      path = a.headers.location;
      continue;
    }
    return a;
  }
}

async function decodedBody(a: Answer): Promise<string> {
  const enc = a.headers["content-encoding"];
  if (enc === "gzip") return gunzipSync(a.body).toString("utf8");
  if (enc === "zstd") return (await zstdDecompress(a.body)).toString("utf8");
  return a.body.toString("utf8");
}

function countOf(text: string, needle: string): number {
  let n = 0;
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length)) n++;
  return n;
}

/** The value of one sample (`name{labels}`) in the page, 0 when absent. */
function sampleValue(body: string, sample: string): number {
  for (const line of body.split("\n")) {
    if (line.startsWith(`${sample} `)) return Number(line.slice(sample.length + 1).trim());
  }
  return 0;
}

async function judgeAnswer(want: Json, a: Answer, started: Started): Promise<Verdict> {
  if (want.status !== undefined && a.status !== want.status) return fail("status", want.status, a.status);
  if (want.appLastProtocol !== undefined && started.app?.lastProtocol !== want.appLastProtocol) {
    return fail("protocol the application served", want.appLastProtocol, started.app?.lastProtocol);
  }
  if (want.appReceivedHeaders !== undefined) {
    const got = started.app?.lastHeaders ?? {};
    const norm = (m: Json) => JSON.stringify(Object.entries(m).sort(([x], [y]) => (x < y ? -1 : 1)));
    if (norm(got) !== norm(want.appReceivedHeaders as Json)) {
      return fail("headers the application received", want.appReceivedHeaders, got);
    }
  }
  const wantHeaders = (want.headers ?? {}) as Record<string, string>;
  for (const [name, value] of Object.entries(wantHeaders)) {
    const got = a.headers[name.toLowerCase()] ?? "";
    if (got !== value) return fail(`header ${name}`, value, got);
  }
  const contentType = String(a.headers["content-type"] ?? "");
  if (want.contentType !== undefined && contentType !== want.contentType) {
    return fail("Content-Type", want.contentType, contentType);
  }
  if (want.contentMediaType !== undefined) {
    let media = "";
    try {
      media = parseMediaType(contentType).type;
    } catch {
      // stays ""
    }
    if (media !== want.contentMediaType) return fail("Content-Type media type", want.contentMediaType, contentType);
  }
  const needsBody = ["bodyContains", "bodyNotContains", "bodyOrdered", "count", "bodyEndsWith", "parse"].some(
    (k) => want[k] !== undefined,
  );
  if (!needsBody && want.agentCounterDelta === undefined) return ok;
  const body = await decodedBody(a);
  for (const s of (want.bodyContains ?? []) as string[]) {
    if (!body.includes(s)) return fail("body lacks a part", s, body);
  }
  for (const s of (want.bodyNotContains ?? []) as string[]) {
    if (body.includes(s)) return fail("body has a part it must not", `no ${s}`, body);
  }
  let at = -1;
  for (const s of (want.bodyOrdered ?? []) as string[]) {
    const i = body.indexOf(s);
    if (i < 0 || i < at) return fail("body order", want.bodyOrdered, body);
    at = i;
  }
  for (const [needle, n] of Object.entries((want.count ?? {}) as Record<string, number>)) {
    if (countOf(body, needle) !== n) return fail(`count of ${needle}`, n, countOf(body, needle));
  }
  if (typeof want.bodyEndsWith === "string" && !body.endsWith(want.bodyEndsWith)) {
    return fail("body end", want.bodyEndsWith, body.slice(-80));
  }
  const parses = want.parse === undefined ? [] : Array.isArray(want.parse) ? want.parse : [want.parse];
  for (const p of parses as { format: string; expectError: boolean }[]) {
    const format =
      p.format === "by-content-type"
        ? negotiateMetricsFormat(contentType) === FMT_TEXT
          ? "text"
          : "openmetrics"
        : p.format;
    let error: string | undefined;
    try {
      if (format === "text") parsePrometheusText(body);
      else parseOpenMetrics(body);
    } catch (e) {
      error = (e as Error).message;
    }
    if ((error !== undefined) !== p.expectError) {
      return fail(`parse as ${format}`, p.expectError ? "an error" : "no error", error ?? "parsed");
    }
  }
  for (const [sample, delta] of Object.entries((want.agentCounterDelta ?? {}) as Record<string, number>)) {
    const got = sampleValue(body, sample);
    if (got !== delta) return fail(`agent counter ${sample}`, delta, got);
  }
  return ok;
}

function judgeCheckError(want: unknown, got: string | undefined): Verdict {
  if (want === null) return got === undefined ? ok : fail("check error", null, got);
  if (want === "any") return got !== undefined ? ok : fail("check error", "an error", null);
  return got === want ? ok : fail("check error", want, got ?? null);
}

async function withServer<T>(
  v: Json,
  fixtures: Json,
  extra: (started: Started) => Partial<StatusServerOptions>,
  fn: (server: StatusServer, started: Started) => Promise<T>,
): Promise<T> {
  const started = await startUpstreams(v, fixtures);
  let server: StatusServer | undefined;
  try {
    const agent = substitute((v.agent ?? {}) as Json, started.vars);
    server = await startStatusServer(serverOptions(agent, extra(started)));
    started.vars["status.port"] = String(server.port);
    return await fn(server, started);
  } finally {
    await server?.close();
    await Promise.all(started.fakes.map((f) => f.close()));
  }
}

async function judgeLive(v: Json, fixtures: Json): Promise<Verdict> {
  const req = (v.request ?? {}) as Json;
  const listenHost = req.from === "::1" ? "::1" : "127.0.0.1";
  const sideEffects = { disableDrain: false, quitAt: 0 };
  const forged = typeof req.testRemoteAddr === "string" ? req.testRemoteAddr : undefined;
  return withServer(
    v,
    fixtures,
    () => ({
      host: listenHost,
      disableDrain: () => {
        sideEffects.disableDrain = true;
      },
      onQuit: () => {
        sideEffects.quitAt = Date.now();
      },
      // Istio's test forges RemoteAddr; the host part is what the server judges.
      remoteAddressOverride: forged === undefined ? undefined : forged.replace(/:[^:]*$/, "").replace(/^\[|\]$/g, ""),
    }),
    async (server, started) => {
      const want = (v.want ?? {}) as Json;
      const sent = Date.now();
      const a = await request(server, substitute(req, started.vars), listenHost);
      const verdict = await judgeAnswer(want, a, started);
      if (!verdict.pass) return verdict;
      if ("checkError" in want || "isReadyError" in want) {
        const probeError = "checkError" in want ? await server.envoyProbe?.check() : await server.isReady();
        const c = judgeCheckError("checkError" in want ? want.checkError : want.isReadyError, probeError);
        if (!c.pass) return c;
        if (want.statusDerived !== undefined && a.status !== want.statusDerived) {
          return fail("/healthz/ready status", want.statusDerived, a.status);
        }
      }
      const effects = want.sideEffects as Json | undefined;
      if (effects) {
        await new Promise((r) => setTimeout(r, 50));
        if (effects.disableDrainCalled === true && !sideEffects.disableDrain)
          return fail("drain disabled", true, false);
        if (typeof effects.shutdownWithinSeconds === "number") {
          if (sideEffects.quitAt === 0 || sideEffects.quitAt - sent > effects.shutdownWithinSeconds * 1000) {
            return fail(
              "shutdown requested",
              `within ${effects.shutdownWithinSeconds}s`,
              sideEffects.quitAt === 0 ? "no" : "late",
            );
          }
        }
        if (effects.shutdown === false && sideEffects.quitAt !== 0) return fail("shutdown requested", false, true);
      }
      return ok;
    },
  );
}

/** Readiness vectors not sent over HTTP: the draining probe and the readiness cache sequence. */
async function judgeReadinessUnit(v: Json, fixtures: Json): Promise<Verdict> {
  if (v.level === "unit") {
    const controller = new AbortController();
    controller.abort(new Error("agent terminating"));
    return withServer(
      v,
      fixtures,
      () => ({ signal: controller.signal }),
      async (server) => judgeCheckError("any", await server.envoyProbe?.checkEnvoyReady()),
    );
  }
  const steps = v.steps as { adminStats: string | null; adminDown?: boolean; newAdminServer?: boolean; want: Json }[];
  let admin: Fake | undefined;
  const body = { text: "" };
  const probe = new EnvoyReadinessProbe({ host: "127.0.0.1", adminPort: 1 });
  try {
    for (const [i, step] of steps.entries()) {
      if (step.adminDown) {
        await admin?.close();
        admin = undefined;
      } else if (!admin || step.newAdminServer) {
        await admin?.close();
        admin = await startEnvoyAdmin(() => body.text);
        probe.adminPort = admin.port;
      }
      body.text = step.adminStats ?? "";
      const c = judgeCheckError(step.want.checkError, await probe.check());
      if (!c.pass) return { ...c, reason: `step ${i + 1}: ${c.reason}` };
      if (probe.atleastOnceReady !== step.want.atleastOnceReady) {
        return fail(`step ${i + 1}: atleastOnceReady`, step.want.atleastOnceReady, probe.atleastOnceReady);
      }
    }
    return ok;
  } finally {
    await admin?.close();
  }
}

async function judgeStartup(v: Json): Promise<Verdict> {
  const want = v.want as Json;
  const agent = (v.agent ?? {}) as Json;
  const env = (agent.env ?? {}) as Record<string, string>;
  const o = (agent.options ?? {}) as Json;
  if (String(v.id).startsWith("normalize/")) {
    let config: ReturnType<typeof normalizeScrapeConfig>;
    try {
      config = normalizeScrapeConfig(env.ISTIO_PROMETHEUS_ANNOTATIONS, Number(o.statusPort ?? 15020));
    } catch (e) {
      return want.startError ? ok : fail("start", "started", (e as Error).message);
    }
    if (want.startError) return fail("start", "an error", config);
    if (want.port !== undefined && config?.port !== want.port) return fail("port", want.port, config?.port);
    if (want.targets !== undefined && JSON.stringify(config?.targets ?? null) !== JSON.stringify(want.targets)) {
      return fail("targets", want.targets, config?.targets ?? null);
    }
    return ok;
  }
  let server: StatusServer | undefined;
  try {
    server = await startStatusServer(serverOptions(agent, {}));
  } catch (e) {
    const message = (e as Error).message;
    if (!want.startError) return fail("start", "started", message);
    if (typeof want.errorContains === "string" && !message.includes(want.errorContains)) {
      return fail("error text", want.errorContains, message);
    }
    return ok;
  } finally {
    await server?.close();
  }
  return want.startError ? fail("start", "an error", "started") : ok;
}

function judgeUnit(v: Json): Verdict {
  const input = (v.input ?? {}) as Json;
  const want = v.want as Json;
  const id = String(v.id);
  if (id.startsWith("negotiate-format/")) {
    const got = negotiateMetricsFormat(String(input.contentType));
    return got === want.format ? ok : fail("format", want.format, got);
  }
  if (id.startsWith("parse-targets/")) {
    let targets: unknown;
    try {
      targets = parseScrapeTargets(String(input.raw)) ?? null;
    } catch (e) {
      return want.error ? ok : fail("parse", "targets", (e as Error).message);
    }
    if (want.error) return fail("parse", "an error", targets);
    return JSON.stringify(targets) === JSON.stringify(want.targets) ? ok : fail("targets", want.targets, targets);
  }
  if (id.startsWith("reserved-port/")) {
    const reason = istioReservedPortReason(String(input.port));
    if ((reason !== "") !== want.reserved) return fail("reserved", want.reserved, reason);
    if (want.reasonNonEmpty === true && reason === "") return fail("reason", "non-empty", reason);
    return ok;
  }
  return fail("unknown unit vector", "a known function", id);
}

async function judge(file: string, v: Json, fixtures: Json): Promise<Verdict> {
  if (file === "health-checkers.json") return judgeHealthChecker(v);
  if (file === "kube-app-probers-config.json" || v.level === "startup") return judgeStartup(v);
  if (v.level === "unit" && file !== "readiness.json") return judgeUnit(v);
  if (file === "readiness.json" && (v.level === "unit" || v.level === "sequence"))
    return judgeReadinessUnit(v, fixtures);
  return judgeLive(v, fixtures);
}

export async function runAgentStatus(dir: string, options: KindOptions): Promise<KindResult> {
  const files = (await readdir(dir)).filter((f) => f.endsWith(".json") && f !== "corpus.json").sort();
  const failures: Failure[] = [];
  let passed = 0;
  let total = 0;
  for (const file of files) {
    const doc = JSON.parse(await readFile(join(dir, file), "utf8")) as Json;
    const fixtures = (doc.fixtures ?? {}) as Json;
    for (const v of doc.vectors as Json[]) {
      total++;
      const vector = { level: doc.level, ...v };
      let verdict: Verdict;
      try {
        verdict = await Promise.race([
          judge(file, vector, fixtures),
          new Promise<Verdict>((resolve) =>
            setTimeout(() => resolve(fail("time budget", `${options.budgetMs} ms`, "more")), options.budgetMs).unref(),
          ),
        ]);
      } catch (e) {
        verdict = fail("error", "a verdict", (e as Error).message);
      }
      if (verdict.pass) passed++;
      else {
        failures.push({
          file,
          name: String(v.id),
          expected: verdict.expected ?? "",
          got: verdict.got ?? "",
          reason: verdict.reason ?? "failed",
        });
      }
    }
  }
  return { passed, total, failures };
}
