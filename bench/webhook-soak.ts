/**
 * Webhook soak with hot reloads (issue 4 §7b): steady load for --duration seconds (default 120) while
 * the serving certificate and the injector configuration are each replaced twice, at 20% / 60% (cert)
 * and 40% / 80% (config) of the run. Usage:
 *
 *   npm run bench:webhook-soak [-- --duration 120 --concurrency 8 --keep]
 *
 * The server runs in a child process (bench/webhook-child.ts) with files laid out as Kubernetes
 * mounts them: a Secret volume (tls.crt, tls.key) and a ConfigMap volume (config, values, mesh), each
 * replaced by the kubelet's atomic `..data` symlink swap. The server finds the changes itself (fs.watch
 * plus its default 2 s polling); this script only watches the reload counters on /metrics.
 *
 * Every answer must be a well-formed admission.k8s.io/v1 AdmissionReview echoing its uid, allowed,
 * with a JSONPatch. Each config version sets values `global.proxy.logLevel` (warning → info → error),
 * which shows in the patch (`--proxyLogLevel=`): a request sent after a reload was seen on /metrics
 * must get the new value. Besides the keep-alive load, a probe opens a NEW connection every 250 ms:
 * after a certificate reload it must present the new certificate, while the load's keep-alive
 * connections stay open on the old one (not dropped).
 * Exit 1 on any failed request, stale config or certificate after a reload, a reload not seen within
 * 20 s, a reload error, or a lost keep-alive connection.
 */

import { X509Certificate } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultConfigFiles } from "../src/inject/defaults.js";
import { call, metricValue, scrapeMetrics } from "../src/webhook/https-client.js";
import { selfSignedCertificate } from "../src/webhook/tls-self-signed.js";
import { printTable } from "./timing.js";
import {
  keepAliveAgent,
  ms,
  numberFlag,
  parseFlags,
  percentile,
  printHeader,
  runLoad,
  type SendResult,
  send,
  sleep,
  startChild,
  waitUntil,
} from "./webhook-harness.js";
import { checkInjected, postHeaders, reviewBody } from "./webhook-review.js";

const USAGE = "usage: node --import tsx bench/webhook-soak.ts [--duration S] [--concurrency N] [--keep]";
const flags = parseFlags({ duration: "120", concurrency: "8", keep: "false" }, USAGE, ["keep"]);
const keep = flags.keep === "true";
const durationMs = numberFlag(flags, "duration") * 1000;
const concurrency = Math.round(numberFlag(flags, "concurrency"));
const RELOAD_TIMEOUT_MS = 20_000;
const PROBE_EVERY_MS = 250;

// --- files, the way the kubelet writes mounted volumes ---

let volumeVersion = 0;
/** Writes a new version of a volume: a fresh timestamped folder, `..data` swapped atomically, old folder removed. */
function writeVolume(dir: string, files: Record<string, string>): void {
  const stamp = `..2025_01_01_00_00_00.${++volumeVersion}`;
  mkdirSync(join(dir, stamp));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, stamp, name), text);
  let old: string | undefined;
  try {
    old = join(dir, readFileSync(join(dir, "..data_link"), "utf8"));
  } catch {
    old = undefined;
  }
  symlinkSync(stamp, join(dir, "..data_tmp"));
  renameSync(join(dir, "..data_tmp"), join(dir, "..data"));
  writeFileSync(join(dir, "..data_link"), stamp); // our note of the current folder, to remove it next time
  for (const name of Object.keys(files)) {
    try {
      symlinkSync(join("..data", name), join(dir, name));
    } catch {
      // the link exists from the first version
    }
  }
  if (old !== undefined) rmSync(old, { recursive: true, force: true });
}

const builtin = defaultConfigFiles();
function configVersion(logLevel: string): Record<string, string> {
  const values = JSON.parse(builtin.values) as { global: { proxy: { logLevel: string } } };
  values.global.proxy.logLevel = logLevel;
  return { config: builtin.config, values: JSON.stringify(values, null, 2), mesh: builtin.mesh };
}
const baseLogLevel = (JSON.parse(builtin.values) as { global: { proxy: { logLevel: string } } }).global.proxy.logLevel;

const certs = [0, 1, 2].map(() => selfSignedCertificate({ hosts: ["localhost", "127.0.0.1"] }));
const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint256;
const short = (fp: string) => fp.replaceAll(":", "").slice(0, 8).toLowerCase();

// --- the run's phases ---

interface Phase {
  name: string;
  fromMs: number;
  fingerprint: string;
  logLevel: string;
  reloadMs?: number;
  requests: number;
  failed: number;
  /** Keep-alive answers per certificate fingerprint. */
  keptFingerprints: Map<string, number>;
  probes: number;
  probesNewCert: number;
}

function newPhase(name: string, fromMs: number, fp: string, logLevel: string): Phase {
  return {
    name,
    fromMs,
    fingerprint: fp,
    logLevel,
    requests: 0,
    failed: 0,
    keptFingerprints: new Map(),
    probes: 0,
    probesNewCert: 0,
  };
}

const events = [
  { at: 0.2, what: "cert" as const, cert: certs[1] },
  { at: 0.4, what: "config" as const, logLevel: "info" },
  { at: 0.6, what: "cert" as const, cert: certs[2] },
  { at: 0.8, what: "config" as const, logLevel: "error" },
];

printHeader("webhook soak: steady load while the certificate and the config are each replaced twice");
console.log(
  `${durationMs / 1000} s at concurrency ${concurrency} (keep-alive) + a new-connection probe every ${PROBE_EVERY_MS} ms; ` +
    `cert replaced at ${events.filter((e) => e.what === "cert").map((e) => `${e.at * 100}%`)}, ` +
    `config at ${events.filter((e) => e.what === "config").map((e) => `${e.at * 100}%`)}`,
);

const dir = mkdtempSync(join(tmpdir(), "meshinject-soak-"));
const tlsDir = join(dir, "tls");
const configDir = join(dir, "config");
mkdirSync(tlsDir);
mkdirSync(configDir);
const first = certs[0] as { cert: string; key: string };
writeVolume(tlsDir, { "tls.crt": first.cert, "tls.key": first.key });
writeVolume(configDir, configVersion(baseLogLevel));
const logFile = join(dir, "server.log");
const server = await startChild(
  {
    op: "start",
    mode: "webhook",
    options: {
      tls: { certFile: join(tlsDir, "tls.crt"), keyFile: join(tlsDir, "tls.key") },
      config: { configDir },
    },
    logLevel: "info",
  },
  logFile,
);

const problems: string[] = [];
const problem = (p: string) => {
  if (problems.length < 20) problems.push(p);
  else if (problems.length === 20) problems.push("(more problems not shown)");
};
const phases: Phase[] = [newPhase("start", 0, fingerprint(first.cert), baseLogLevel)];
/** Set between a file write and its reload showing on /metrics: answers may be old or new. */
let transition: { fingerprint: string; logLevel: string } | undefined;
const current = () => phases[phases.length - 1] as Phase;
const t0 = performance.now();
let newConnections = 0;
let requestsSent = 0;

/** Checks one answer against the phase (and transition) it was sent in. */
function judge(uid: string, res: SendResult, phase: Phase, during: typeof transition, probe: boolean): void {
  phase.requests++;
  const verdict = checkInjected(uid, res);
  if ("problem" in verdict) {
    phase.failed++;
    problem(`${phase.name}: ${verdict.problem}`);
    return;
  }
  const level = /--proxyLogLevel=(\w+)/.exec(Buffer.from(verdict.patch, "base64").toString("utf8"))?.[1];
  if (level !== phase.logLevel && level !== during?.logLevel) {
    phase.failed++;
    problem(
      `${phase.name}: answer with proxyLogLevel ${level}, expected ${phase.logLevel} (config reload not atomic?)`,
    );
  }
  if (probe) {
    phase.probes++;
    if (res.fingerprint === phase.fingerprint || res.fingerprint === during?.fingerprint) phase.probesNewCert++;
    else {
      problem(
        `${phase.name}: a new connection got certificate ${short(res.fingerprint)}, not ${short(phase.fingerprint)}`,
      );
    }
  } else {
    phase.keptFingerprints.set(res.fingerprint, (phase.keptFingerprints.get(res.fingerprint) ?? 0) + 1);
  }
}

async function oneRequest(probe: boolean, agent: ReturnType<typeof keepAliveAgent> | false): Promise<number> {
  const uid = `soak-${requestsSent++}`;
  const phase = current();
  const during = transition;
  const body = reviewBody(uid);
  const started = performance.now();
  try {
    const res = await send({ port: server.port, agent, headers: postHeaders(body), body });
    if (!probe && !res.reusedSocket) newConnections++;
    judge(uid, res, phase, during, probe);
    return res.ms;
  } catch (e) {
    phase.requests++;
    phase.failed++;
    problem(`${phase.name}: ${(e as Error).message}`);
    return performance.now() - started;
  }
}

/** Replaces the files at the scheduled times and waits for each reload on /metrics. */
async function reloader(): Promise<void> {
  let certReloads = 0;
  let configReloads = 0;
  for (const event of events) {
    const wait = t0 + event.at * durationMs - performance.now();
    if (wait > 0) await sleep(wait);
    const before = current();
    const next = {
      fingerprint: event.what === "cert" && event.cert ? fingerprint(event.cert.cert) : before.fingerprint,
      logLevel: event.what === "config" && event.logLevel ? event.logLevel : before.logLevel,
    };
    transition = next;
    const written = performance.now();
    if (event.what === "cert" && event.cert)
      writeVolume(tlsDir, { "tls.crt": event.cert.cert, "tls.key": event.cert.key });
    else writeVolume(configDir, configVersion(next.logLevel));
    const series =
      event.what === "cert" ? "sidecar_injection_cert_reloads_total" : "sidecar_injection_config_reloads_total";
    const expected = event.what === "cert" ? ++certReloads : ++configReloads;
    const waited = await waitUntil(
      async () => metricValue(await scrapeMetrics(server.metricsPort), series) >= expected,
      RELOAD_TIMEOUT_MS,
      20,
    );
    const name = event.what === "cert" ? `cert ${certReloads}` : `config ${configReloads}`;
    if (waited < 0) problem(`${name}: no reload on /metrics within ${RELOAD_TIMEOUT_MS} ms`);
    const phase = newPhase(name, performance.now() - t0, next.fingerprint, next.logLevel);
    phase.reloadMs = performance.now() - written;
    phases.push(phase);
    transition = undefined;
  }
}

const agent = keepAliveAgent(concurrency);
let latencies: Float64Array = new Float64Array(0);
try {
  const reloads = reloader();
  const probes = (async () => {
    while (performance.now() - t0 < durationMs) {
      await oneRequest(true, false);
      await sleep(PROBE_EVERY_MS);
    }
  })();
  const load = await runLoad({ concurrency, durationMs, one: () => oneRequest(false, agent) });
  latencies = load.latencies;
  await Promise.all([reloads, probes]);
} finally {
  agent.destroy();
}

const metrics = await scrapeMetrics(server.metricsPort);
const health = await call({ port: server.port, method: "GET", path: "/healthz" }).catch((e: Error) => ({
  status: `error ${e.message}`,
}));
await server.stop();

// --- report ---
const elapsed = (performance.now() - t0) / 1000;
const total = phases.reduce((n, p) => n + p.requests, 0);
const failed = phases.reduce((n, p) => n + p.failed, 0);
const rows: string[][] = [
  [
    "phase",
    "from s",
    "reload ms",
    "cert",
    "logLevel",
    "requests",
    "failed",
    "keep-alive conns saw",
    "new conns: expected cert",
  ],
];
for (const p of phases) {
  const kept = [...p.keptFingerprints].map(([fp, n]) => `${short(fp)}×${n}`).join(" ");
  rows.push([
    p.name,
    (p.fromMs / 1000).toFixed(1),
    p.reloadMs === undefined ? "-" : p.reloadMs.toFixed(0),
    short(p.fingerprint),
    p.logLevel,
    String(p.requests),
    String(p.failed),
    kept,
    `${p.probesNewCert}/${p.probes}`,
  ]);
  if (p.probesNewCert !== p.probes)
    problem(`${p.name}: ${p.probes - p.probesNewCert} new connections saw an old certificate`);
}
console.log("");
printTable(rows);
console.log(
  `\n${total} requests in ${elapsed.toFixed(1)} s (${(total / elapsed).toFixed(0)} req/s), ${failed} failed; ` +
    `latency p50 ${ms(percentile(latencies, 50))} ms, p99 ${ms(percentile(latencies, 99))} ms, max ${ms(percentile(latencies, 100))} ms; ` +
    `keep-alive connections opened after the first ${concurrency}: ${Math.max(0, newConnections - concurrency)}`,
);
const m = (s: string) => metricValue(metrics, s);
const counters = {
  cert_reloads: m("sidecar_injection_cert_reloads_total"),
  cert_reload_errors: m("sidecar_injection_cert_reload_errors_total"),
  config_reloads: m("sidecar_injection_config_reloads_total"),
  config_reload_errors: m("sidecar_injection_config_reload_errors_total"),
  requests: m("sidecar_injection_requests_total"),
  success: m("sidecar_injection_success_total"),
  skip: m("sidecar_injection_skip_total"),
  failures: metrics
    .split("\n")
    .filter((l) => l.startsWith("sidecar_injection_failure_total{"))
    .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(" ") + 1)), 0),
};
console.log(
  `/metrics: ${Object.entries(counters)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ")}`,
);
const logLines = readFileSync(logFile, "utf8").split("\n").filter(Boolean);
const byLevel = new Map<string, number>();
for (const line of logLines) {
  const level = /"level":"(\w+)"/.exec(line)?.[1] ?? "?";
  byLevel.set(level, (byLevel.get(level) ?? 0) + 1);
}
console.log(
  `server log lines by level: ${[...byLevel].map(([k, v]) => `${k} ${v}`).join(", ")}; /healthz ${health.status}`,
);

if (counters.cert_reloads !== 2 || counters.config_reloads !== 2)
  problem("expected exactly 2 cert and 2 config reloads");
if (counters.cert_reload_errors + counters.config_reload_errors > 0) problem("reload errors on /metrics");
if (counters.requests !== total || counters.success !== total) {
  problem(`server counted ${counters.requests} requests / ${counters.success} injected, client sent ${total}`);
}
if (newConnections > concurrency)
  problem(`${newConnections - concurrency} keep-alive connections were lost and reopened`);
if ((byLevel.get("error") ?? 0) > 0) problem("the server logged errors");
if (health.status !== 200) problem(`/healthz at the end: ${health.status}`);
if (keep) console.log(`files and server log kept in ${dir}`);
else rmSync(dir, { recursive: true, force: true });
console.log(
  "target: 0 failed requests, new connections see the new certificate, answers the new config, no reload errors",
);
if (failed > 0 || problems.length > 0) {
  console.log(`FAIL\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
console.log("PASS");
