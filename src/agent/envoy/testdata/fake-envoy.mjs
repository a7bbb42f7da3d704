#!/usr/bin/env node
/**
 * A fake Envoy for the agent's tests (Envoy itself cannot be installed here). It is started the way
 * the agent starts Envoy: it reads its command line (`-c <bootstrap>` and the rest), reads the
 * bootstrap file for the admin address, and serves Envoy's admin API on it:
 *   GET  /ready                 200 LIVE once ready, else 503 PRE_INITIALIZING (DRAINING after a drain)
 *   GET  /stats                 `name: value` lines (server.state, workers, CDS/LDS updates,
 *                               listener downstream_cx_active), `filter=` applied as a regexp
 *   GET  /stats?format=json     the same as {"stats":[{name,value}]}
 *   GET  /stats/prometheus      Prometheus text (envoy_server_state, envoy_listener_manager_workers_started)
 *   POST /drain_listeners       records the drain, answers OK
 *   POST /quitquitquit          answers OK and exits 0
 * plus test controls: POST /fake/ready?value=true|false, POST /fake/connections?value=N.
 * With FAKE_ENVOY_STATIC_LISTENERS=true it also serves the bootstrap's static listeners (15021's
 * /healthz/ready, 15090's /stats/prometheus): each request whose path starts with a route's prefix
 * goes to the first endpoint of the route's static cluster, as Envoy's router sends it; no route
 * is a 404. Off by default, as those ports are fixed: only a test in a network namespace of its own
 * turns it on.
 * Environment: FAKE_ENVOY_READY=true starts ready; FAKE_ENVOY_EXIT_AFTER_MS / FAKE_ENVOY_EXIT_CODE
 * make it exit by itself; FAKE_ENVOY_CONNECTIONS sets the active connections (the drain does not
 * close them: the test does, through /fake/connections). FAKE_ENVOY_PROBE lists endpoints
 * (comma-separated: a Unix socket path, relative to the working directory as Envoy's bootstrap
 * paths are, or `tcp:host:port`) that it tries to connect to at start, when a drain begins and just
 * before it exits, printing `probe <when> <endpoint> accepts|refuses`; FAKE_ENVOY_EXIT_AFTER_DRAIN_MS
 * makes it exit 0 that long after a drain began (as Envoy does once its listeners are drained).
 * It prints one line per event on stdout (`fake-envoy: ...`) and its argv as JSON on stderr, which
 * the agent passes through.
 */
import { readFileSync } from "node:fs";
import { createServer, request } from "node:http";
import { connect } from "node:net";

const argv = process.argv.slice(2);
process.stderr.write(`fake-envoy argv ${JSON.stringify(argv)}\n`);
const say = (line) => process.stdout.write(`fake-envoy: ${line}\n`);

/** Whether `endpoint` accepts a connection (within 5 s). */
function accepts(endpoint) {
  return new Promise((resolve) => {
    const tcp = endpoint.startsWith("tcp:") ? endpoint.slice(4) : undefined;
    const colon = tcp?.lastIndexOf(":") ?? -1;
    const socket =
      tcp === undefined
        ? connect({ path: endpoint })
        : connect({ host: tcp.slice(0, colon), port: Number(tcp.slice(colon + 1)) });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(5000, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/** Tries every FAKE_ENVOY_PROBE endpoint, one line each. */
async function probe(when) {
  for (const endpoint of (process.env.FAKE_ENVOY_PROBE ?? "").split(",").filter((e) => e !== "")) {
    say(`probe ${when} ${endpoint} ${(await accepts(endpoint)) ? "accepts" : "refuses"}`);
  }
}

const configIndex = argv.indexOf("-c");
if (configIndex < 0 || argv[configIndex + 1] === undefined) {
  process.stderr.write("fake-envoy: no -c <bootstrap> given\n");
  process.exit(1);
}
let bootstrap;
try {
  bootstrap = JSON.parse(readFileSync(argv[configIndex + 1], "utf8"));
} catch (e) {
  process.stderr.write(`fake-envoy: cannot read the bootstrap: ${e.message}\n`);
  process.exit(1);
}
const admin = bootstrap?.admin?.address?.socket_address ?? {};
const host = admin.address ?? "127.0.0.1";
const port = Number(admin.port_value);

let ready = process.env.FAKE_ENVOY_READY === "true";
let draining = false;
let connections = Number(process.env.FAKE_ENVOY_CONNECTIONS ?? "0");
const drains = [];

function stats() {
  // server.state: 0 LIVE, 1 DRAINING, 2 PRE_INITIALIZING, 3 INITIALIZING.
  const state = draining ? 1 : ready ? 0 : 2;
  return [
    ["cluster_manager.cds.update_rejected", 0],
    ["cluster_manager.cds.update_success", ready ? 1 : 0],
    ["listener.0.0.0.0_15006.downstream_cx_active", connections],
    ["listener.0.0.0.0_15021.downstream_cx_active", 1],
    ["listener.admin.downstream_cx_active", 1],
    ["listener_manager.lds.update_rejected", 0],
    ["listener_manager.lds.update_success", ready ? 1 : 0],
    ["listener_manager.workers_started", ready ? 1 : 0],
    ["server.state", state],
  ];
}

function filtered(url) {
  const filter = url.searchParams.get("filter");
  if (filter === null) return stats();
  let re;
  try {
    re = new RegExp(filter);
  } catch {
    return stats();
  }
  return stats().filter(([name]) => re.test(name));
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://fake");
  const send = (status, body, type = "text/plain; charset=UTF-8") => {
    res.writeHead(status, { "content-type": type });
    res.end(body);
  };
  const route = `${req.method} ${url.pathname}`;
  switch (route) {
    case "GET /ready":
      return draining ? send(503, "DRAINING\n") : ready ? send(200, "LIVE\n") : send(503, "PRE_INITIALIZING\n");
    case "GET /stats":
      if (url.searchParams.get("format") === "json") {
        return send(
          200,
          JSON.stringify({ stats: filtered(url).map(([name, value]) => ({ name, value })) }),
          "application/json",
        );
      }
      if (url.searchParams.get("format") === "prometheus") return send(200, prometheus());
      return send(
        200,
        filtered(url)
          .map(([n, v]) => `${n}: ${v}`)
          .join("\n"),
      );
    case "GET /stats/prometheus":
      return send(200, prometheus());
    case "POST /drain_listeners":
      drains.push(url.search);
      draining = true;
      say(`drain_listeners ${url.search}`);
      send(200, "OK\n");
      return void probe("drain").then(() => {
        const after = process.env.FAKE_ENVOY_EXIT_AFTER_DRAIN_MS;
        if (after !== undefined) {
          setTimeout(
            () =>
              void probe("exit").then(() => {
                say("drained, exiting with 0");
                process.exit(0);
              }),
            Number(after),
          );
        }
      });
    case "POST /quitquitquit":
      say("quitquitquit");
      send(200, "OK\n");
      return setTimeout(() => process.exit(0), 10);
    case "POST /fake/ready":
      ready = url.searchParams.get("value") === "true";
      say(`ready=${ready}`);
      return send(200, "OK\n");
    case "POST /fake/connections":
      connections = Number(url.searchParams.get("value") ?? "0");
      say(`connections=${connections}`);
      return send(200, "OK\n");
    case "GET /fake/drains":
      return send(200, JSON.stringify(drains), "application/json");
    default:
      return send(404, `fake-envoy: no ${route}\n`);
  }
});

function prometheus() {
  const state = draining ? 1 : ready ? 0 : 2;
  return [
    "# TYPE envoy_server_state gauge",
    `envoy_server_state{} ${state}`,
    "# TYPE envoy_listener_manager_workers_started gauge",
    `envoy_listener_manager_workers_started{} ${ready ? 1 : 0}`,
    "",
  ].join("\n");
}

server.on("error", (e) => {
  process.stderr.write(`fake-envoy: admin listener ${host}:${port}: ${e.message}\n`);
  process.exit(1);
});
void probe("start").then(() => server.listen(port, host, () => say(`admin listening on ${host}:${port}`)));

/** The bootstrap's static HTTP listeners, proxied to their routes' static clusters. */
function serveStaticListeners() {
  const endpointOf = (name) => {
    const cluster = (bootstrap?.static_resources?.clusters ?? []).find((c) => c.name === name);
    return cluster?.load_assignment?.endpoints?.[0]?.lb_endpoints?.[0]?.endpoint?.address?.socket_address;
  };
  for (const listener of bootstrap?.static_resources?.listeners ?? []) {
    const at = listener.address?.socket_address;
    const hcm = listener.filter_chains?.[0]?.filters?.find(
      (f) => f.name === "envoy.filters.network.http_connection_manager",
    );
    const routes = (hcm?.typed_config?.route_config?.virtual_hosts ?? []).flatMap((vh) => vh.routes ?? []);
    if (at === undefined || routes.length === 0) continue;
    const proxy = createServer((req, res) => {
      const route = routes.find((r) => (req.url ?? "/").startsWith(r.match?.prefix ?? "\0"));
      const to = route === undefined ? undefined : endpointOf(route.route?.cluster);
      if (to === undefined) {
        res.writeHead(404).end();
        return;
      }
      const upstream = request(
        { host: to.address, port: to.port_value, path: req.url, method: req.method, headers: req.headers },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      upstream.on("error", () => res.writeHead(503).end("upstream connect error or disconnect/reset before headers"));
      req.pipe(upstream);
    });
    proxy.on("error", (e) => process.stderr.write(`fake-envoy: listener ${listener.name}: ${e.message}\n`));
    proxy.listen(at.port_value, at.address, () => say(`listener ${listener.name} on ${at.address}:${at.port_value}`));
  }
}
if (process.env.FAKE_ENVOY_STATIC_LISTENERS === "true") serveStaticListeners();

process.on("SIGTERM", () => {
  say("SIGTERM");
  process.exit(0);
});

const exitAfter = process.env.FAKE_ENVOY_EXIT_AFTER_MS;
if (exitAfter !== undefined) {
  setTimeout(() => {
    say(`exiting with ${process.env.FAKE_ENVOY_EXIT_CODE ?? "0"}`);
    process.exit(Number(process.env.FAKE_ENVOY_EXIT_CODE ?? "0"));
  }, Number(exitAfter));
}
