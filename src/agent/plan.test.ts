import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { parseAgentArgs } from "./bootstrap/agent-args.js";
import { envoyEnvironment, pilotSAN, planAgent } from "./plan.js";
import { Logger, logTime, parseOutputLevels } from "./process/log.js";
import { AGENT_ISTIO_VERSION } from "./version.js";

const POD = { POD_NAME: "web-1", POD_NAMESPACE: "shop" };

function plan(env: Record<string, string>, args: string[] = ["proxy", "sidecar"], files = {}) {
  return planAgent({
    args: parseAgentArgs([], args),
    env: { ...POD, ...env },
    files,
    hostIPs: ["192.0.2.1"],
    binaryVersion: "v",
  });
}

describe("planAgent", () => {
  it("names the proxy as pilot-agent does", () => {
    const p = plan({ INSTANCE_IP: "10.0.0.5" });
    assert.equal(p.id, "web-1.shop");
    assert.equal(p.domain, "shop.svc.cluster.local");
    assert.equal(p.serviceNode, "sidecar~10.0.0.5~web-1.shop~shop.svc.cluster.local");
    assert.equal(
      plan({}, ["proxy", "router", "--domain", "x.local"]).serviceNode,
      "router~192.0.2.1~web-1.shop~x.local",
    );
  });

  it("takes pilot-agent's flags and defaults for Envoy", () => {
    const p = plan({}, ["proxy", "--proxyLogLevel=debug,misc:info", "--concurrency", "3"]);
    assert.equal(p.envoy.logLevel, "debug,misc:info");
    assert.equal(p.envoy.componentLogLevel, "misc:error");
    assert.equal(p.envoy.concurrency, 3);
    assert.equal(p.logOutputLevel, "default:info");
  });

  it("reads ISTIO_CPU_LIMIT as an int environment variable (strconv.Atoi), 0 when it does not parse", () => {
    const unset = '{"concurrency": null}';
    assert.equal(plan({ PROXY_CONFIG: unset, ISTIO_CPU_LIMIT: "+3" }).proxyConfig.concurrency, 3);
    for (const bad of ["0x10", "1_000", "2.5", "9223372036854775808", ""]) {
      const p = plan({ PROXY_CONFIG: unset, ISTIO_CPU_LIMIT: bad });
      assert.ok(
        p.warnings.includes(
          `env ISTIO_CPU_LIMIT: invalid environment variable value ${JSON.stringify(bad)}, expecting an integer, defaulting to 0`,
        ),
        bad,
      );
    }
  });

  it("reads Envoy's status, Prometheus and mTLS metrics ports and ENVOY_SKIP_DEPRECATED_LOGS (default true)", () => {
    const d = plan({});
    assert.equal(d.metadataOptions.envoyStatusPort, 15021);
    assert.equal(d.metadataOptions.envoyPrometheusPort, 15090);
    assert.equal(d.metadataOptions.envoySecureMetricsPort, 0);
    assert.equal(d.envoy.skipDeprecatedLogs, true);
    const p = plan({
      ENVOY_STATUS_PORT: "16021",
      ENVOY_PROMETHEUS_PORT: "16090",
      ENVOY_SECURE_METRICS_PORT: "15091",
      ENVOY_SECURE_MERGED_METRICS_PORT: "15092",
      ENVOY_SKIP_DEPRECATED_LOGS: "false",
    });
    assert.equal(p.metadataOptions.envoyStatusPort, 16021);
    assert.equal(p.metadataOptions.envoyPrometheusPort, 16090);
    assert.equal(p.metadataOptions.envoySecureMetricsPort, 15091);
    assert.equal(p.metadataOptions.envoySecureMergedMetricsPort, 15092);
    assert.equal(p.envoy.skipDeprecatedLogs, false);
  });

  it("drains for terminationDrainDuration only: TERMINATION_DRAIN_DURATION_SECONDS is not Istio's", () => {
    assert.equal(plan({ TERMINATION_DRAIN_DURATION_SECONDS: "30" }).drain.terminationDrainMs, 5000);
    assert.equal(plan({ PROXY_CONFIG: '{"terminationDrainDuration": "9s"}' }).drain.terminationDrainMs, 9000);
  });

  it("starts without POD_NAME and POD_NAMESPACE (a VM), named '.' as pilot-agent names it", () => {
    const p = planAgent({ args: parseAgentArgs([], ["proxy"]), env: {}, files: {}, hostIPs: [], binaryVersion: "v" });
    assert.equal(p.id, ".");
    assert.equal(p.serviceNode, "sidecar~127.0.0.1~.~.svc.cluster.local");
  });

  it("lists INSTANCE_IP, then the host's private addresses of both families (initProxy)", () => {
    const host = ["10.0.0.5", "fd00::5", "fe80::1", "::ffff:10.0.0.7", "169.254.1.1", "192.168.9.9"];
    const p = planAgent({
      args: parseAgentArgs([], ["proxy"]),
      env: { ...POD, INSTANCE_IP: "10.0.0.5" },
      files: { annotations: 'traffic.sidecar.istio.io/excludeInterfaces="eth9"' },
      hostIPs: host,
      interfaceAddresses: { eth9: ["192.168.9.9"] },
      binaryVersion: "v",
    });
    assert.deepEqual(p.instanceIPs, ["10.0.0.5", "fd00::5", "10.0.0.7"]);
    assert.deepEqual(p.envoy.nodeIPs, p.instanceIPs);
    assert.deepEqual(p.metadataOptions.instanceIPs, p.instanceIPs);
    // Without host addresses, both loopbacks follow the pod IP; an INSTANCE_IP that does not parse is left out.
    assert.deepEqual(plan({ INSTANCE_IP: "fd00::9" }, ["proxy"]).instanceIPs.slice(0, 1), ["fd00::9"]);
    const bare = planAgent({
      args: parseAgentArgs([], ["proxy"]),
      env: { ...POD, INSTANCE_IP: "10.0.0.5,10.0.0.6" },
      files: {},
      hostIPs: [],
      binaryVersion: "v",
    });
    assert.deepEqual(bare.instanceIPs, ["127.0.0.1", "::1"]);
  });

  it("applies PROXY_CONFIG, then the annotations file", () => {
    const annotations = 'proxy.istio.io/config="{\\"drainDuration\\": \\"7s\\"}"';
    const p = plan({ PROXY_CONFIG: '{"drainDuration": "3s", "statusPort": 16020}' }, ["proxy"], { annotations });
    assert.equal(p.proxyConfig.drainDuration, "7s");
    assert.equal(p.proxyConfig.statusPort, 16020);
  });

  it("picks the bootstrap template as pilot-agent does", () => {
    assert.equal(plan({}).templatePath, "./var/lib/istio/envoy/envoy_bootstrap_tmpl.json");
    assert.equal(plan({ PROXY_CONFIG: '{"proxyBootstrapTemplatePath": "/t.json"}' }).templatePath, "/t.json");
    assert.equal(
      plan({ PROXY_CONFIG: '{"customConfigFile": "/c.json", "proxyBootstrapTemplatePath": "/t.json"}' }).templatePath,
      "/c.json",
    );
    assert.equal(plan({ ISTIO_BOOTSTRAP: "/b.json" }, ["proxy", "--templateFile", "/f.json"]).templatePath, "/b.json");
    assert.equal(plan({}, ["proxy", "--templateFile", "/f.json"]).templatePath, "/f.json");
  });

  it("reads the drain settings and the pilot SAN", () => {
    const p = plan({ EXIT_ON_ZERO_ACTIVE_CONNECTIONS: "true", MINIMUM_DRAIN_DURATION: "2s" }, ["proxy", "router"]);
    assert.deepEqual(p.drain, {
      inboundOnly: false,
      terminationDrainMs: 5000,
      minDrainMs: 2000,
      exitOnZeroActiveConnections: true,
    });
    assert.deepEqual(p.metadataOptions.pilotSubjectAltName, ["istiod.istio-system.svc"]);
    assert.equal(pilotSAN("localhost:15012", {}), "istiod.istio-system.svc");
    assert.equal(pilotSAN("istiod.x.svc:15012", { ISTIOD_SAN: "s" }), "s");
  });

  it("runs without Envoy for proxyless gRPC", () => {
    assert.equal(plan({ ISTIO_META_GENERATOR: "grpc", GRPC_XDS_BOOTSTRAP: "/b.json" }).grpcBootstrapPath, "/b.json");
    assert.equal(plan({ DISABLE_ENVOY: "true" }).disableEnvoy, true);
    assert.equal(plan({}).disableEnvoy, false);
  });

  it("warns of a variable that does not parse and uses its default, as Istio's pkg/env", () => {
    const p = plan({ EXIT_ON_ZERO_ACTIVE_CONNECTIONS: "yes please", MINIMUM_DRAIN_DURATION: "soon" });
    assert.equal(p.drain.exitOnZeroActiveConnections, false);
    assert.equal(p.drain.minDrainMs, 5000);
    assert.deepEqual(
      p.warnings.filter((w) => w.startsWith("env ")),
      [
        'env EXIT_ON_ZERO_ACTIVE_CONNECTIONS: invalid environment variable value "yes please", expecting true/false, defaulting to false',
        'env MINIMUM_DRAIN_DURATION: invalid environment variable value "soon", expecting a duration, defaulting to 5s',
      ],
    );
  });

  it("refuses bad input with the variable's name", () => {
    assert.throws(() => plan({ PROXY_CONFIG: "{" }), /PROXY_CONFIG/);
  });

  it("adds the FIPS cipher suites for Envoy under a FIPS policy only", () => {
    assert.equal(envoyEnvironment({ A: "1" }, "").GRPC_SSL_CIPHER_SUITES, undefined);
    assert.match(envoyEnvironment({}, "fips-140-3").GRPC_SSL_CIPHER_SUITES ?? "", /^ECDHE-ECDSA-AES128-GCM-SHA256:/);
  });
});

describe("agent log lines", () => {
  it("are pilot-agent's: time, level, scope unless default, message", () => {
    const lines: string[] = [];
    const now = () => new Date("2026-01-02T03:04:05.678Z");
    const log = new Logger({ levels: parseOutputLevels("default:info,envoy:warn"), write: (l) => lines.push(l), now });
    log.info("hello\nworld");
    log.debug("hidden");
    log.withScope("envoy").info("hidden too");
    log.withScope("envoy").warn("drain");
    assert.deepEqual(lines, [
      "2026-01-02T03:04:05.678000Z\tinfo\thello world\n",
      "2026-01-02T03:04:05.678000Z\twarn\tenvoy\tdrain\n",
    ]);
    const json: string[] = [];
    new Logger({ json: true, write: (l) => json.push(l), now }).error("x");
    assert.deepEqual(JSON.parse(json[0] as string), {
      level: "error",
      time: logTime(now()),
      scope: "default",
      msg: "x",
    });
  });
});

it("reports the Istio version of the built-in injection values", () => {
  const values = JSON.parse(readFileSync(new URL("../inject/defaults/values.json", import.meta.url), "utf8"));
  assert.equal(AGENT_ISTIO_VERSION, values.global.tag);
});
