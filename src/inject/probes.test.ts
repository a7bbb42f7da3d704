import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PodLike as Pod } from "./pod.js";
import {
  APP_PROBERS_ENV,
  type ProbeContainer as Container,
  dumpAppProbers,
  findSidecar,
  mergeOrAppendProbers,
  patchRewriteProbe,
  probeStatusPort,
  rewriteAppProbes,
  shouldRewriteAppHTTPProbers,
  withRewrittenAppProbes,
} from "./probes.js";

const proxy: Container = { name: "istio-proxy", env: [{ name: "A", value: "1" }] };

function podWith(containers: Container[], annotations: Record<string, string> = {}): Pod {
  return { metadata: { annotations }, spec: { containers } };
}

const containersOf = (pod: Pod) => (pod.spec?.containers ?? []) as Container[];

describe("shouldRewriteAppHTTPProbers", () => {
  it("a Go boolean in the annotation wins; anything else falls back to the setting", () => {
    assert.equal(shouldRewriteAppHTTPProbers({ "sidecar.istio.io/rewriteAppHTTPProbers": "F" }, true), false);
    assert.equal(shouldRewriteAppHTTPProbers({ "sidecar.istio.io/rewriteAppHTTPProbers": "1" }, false), true);
    assert.equal(shouldRewriteAppHTTPProbers({ "sidecar.istio.io/rewriteAppHTTPProbers": "no" }, true), true);
    assert.equal(shouldRewriteAppHTTPProbers(null, false), false);
  });
});

describe("findSidecar", () => {
  it("prefers regular containers over init containers", () => {
    const pod: Pod = {
      spec: {
        initContainers: [{ name: "istio-proxy", image: "init" }],
        containers: [{ name: "istio-proxy", image: "main" }],
      },
    };
    assert.equal(findSidecar(pod)?.image, "main");
    assert.equal(findSidecar({ spec: {} }), undefined);
  });
});

describe("dumpAppProbers", () => {
  it("encodes like Go: keys sorted, struct field order, zero timeout omitted, named ports resolved", () => {
    const pod = podWith([
      {
        name: "web",
        ports: [{ name: "admin", containerPort: 9000 }],
        readinessProbe: { httpGet: { scheme: "HTTPS", port: "admin", path: "/ready?a&b" }, timeoutSeconds: 0 },
        livenessProbe: { tcpSocket: { port: 8080 }, timeoutSeconds: 3 },
        startupProbe: { exec: { command: ["true"] } },
        lifecycle: { preStop: { httpGet: { port: 80, httpHeaders: [{ name: "X", value: "y" }] } } },
      },
      proxy,
    ]);
    assert.equal(
      dumpAppProbers(pod, 15020),
      '{"/app-health/web/livez":{"tcpSocket":{"port":8080},"timeoutSeconds":3},' +
        '"/app-health/web/readyz":{"httpGet":{"path":"/ready?a\\u0026b","port":9000,"scheme":"HTTPS"}},' +
        '"/app-lifecycle/web/prestopz":{"httpGet":{"port":80,"httpHeaders":[{"name":"X","value":"y"}]}}}',
    );
  });

  it("drops unknown named ports and probes already aimed at the status port; keeps gRPC as is", () => {
    const pod = podWith([
      {
        name: "a",
        readinessProbe: { httpGet: { port: "missing" } },
        livenessProbe: { httpGet: { path: "/app-health/a/livez", port: 15020 } },
        startupProbe: { grpc: { port: 15020 } },
      },
    ]);
    assert.equal(dumpAppProbers(pod, 15020), '{"/app-health/a/startupz":{"grpc":{"port":15020,"service":null}}}');
    assert.equal(dumpAppProbers(podWith([{ name: "x" }]), 15020), undefined);
  });

  it("lists init containers first", () => {
    const pod: Pod = {
      spec: {
        initContainers: [{ name: "z-init", readinessProbe: { tcpSocket: { port: 1 } } }],
        containers: [{ name: "a-main", readinessProbe: { tcpSocket: { port: 2 } } }],
      },
    };
    assert.deepEqual(Object.keys(JSON.parse(dumpAppProbers(pod, 15020) ?? "{}")), [
      "/app-health/a-main/readyz",
      "/app-health/z-init/readyz",
    ]);
  });
});

describe("mergeOrAppendProbers", () => {
  const fresh = '{"/app-health/b/livez":{"httpGet":{"port":2}},"/app-health/a/livez":{"httpGet":{"port":9}}}';
  const old = '{"/app-health/a/livez":{"httpGet":{"port":1}}}';

  it("appends on a first injection, even if the variable exists", () => {
    const env = [{ name: APP_PROBERS_ENV, value: old }];
    assert.deepEqual(mergeOrAppendProbers(false, env, fresh), [...env, { name: APP_PROBERS_ENV, value: fresh }]);
  });

  it("merges in place on re-injection, the existing entries winning", () => {
    const env = [
      { name: APP_PROBERS_ENV, value: old },
      { name: "B", value: "2" },
    ];
    assert.deepEqual(mergeOrAppendProbers(true, env, fresh), [
      {
        name: APP_PROBERS_ENV,
        value: '{"/app-health/a/livez":{"httpGet":{"port":1}},"/app-health/b/livez":{"httpGet":{"port":2}}}',
      },
      { name: "B", value: "2" },
    ]);
  });

  it("leaves the env alone when the existing value does not decode", () => {
    const env = [{ name: APP_PROBERS_ENV, value: "{not json" }];
    assert.deepEqual(mergeOrAppendProbers(true, env, fresh), env);
  });
});

describe("patchRewriteProbe", () => {
  it("points HTTP, TCP and gRPC probes and hooks at the agent, keeping thresholds; exec stays", () => {
    const c: Container = {
      name: "app",
      readinessProbe: { httpGet: { path: "/r", port: 8443, scheme: "HTTPS", host: "h" }, periodSeconds: 5 },
      livenessProbe: { tcpSocket: { port: 81 }, failureThreshold: 2 },
      startupProbe: { exec: { command: ["x"] } },
      lifecycle: { postStart: { tcpSocket: { port: 1 } }, preStop: { exec: { command: ["y"] } } },
    };
    const input = podWith([c, proxy]);
    const out = patchRewriteProbe({}, input, 15020);
    assert.deepEqual(containersOf(out)[0], {
      name: "app",
      readinessProbe: {
        httpGet: { path: "/app-health/app/readyz", port: 15020, scheme: "HTTP", host: "h" },
        periodSeconds: 5,
      },
      livenessProbe: { httpGet: { path: "/app-health/app/livez", port: 15020 }, failureThreshold: 2 },
      startupProbe: { exec: { command: ["x"] } },
      lifecycle: {
        postStart: { httpGet: { path: "/app-lifecycle/app/poststartz", port: 15020 } },
        preStop: { exec: { command: ["y"] } },
      },
    });
    assert.equal(containersOf(out)[1], proxy);
    assert.deepEqual(containersOf(input)[0], c, "the input is not modified");
  });

  it("takes the port from the status-port annotation, 0 when it does not parse", () => {
    assert.equal(probeStatusPort({ "status.sidecar.istio.io/port": "15021" }, 15020), 15021);
    assert.equal(probeStatusPort({ "status.sidecar.istio.io/port": "x" }, 15020), 0);
    assert.equal(probeStatusPort({}, 15020), 15020);
  });
});

describe("rewriteAppProbes", () => {
  const app: Container = { name: "app", readinessProbe: { httpGet: { port: 8080 } } };

  it("writes the variable and rewrites the probes when a proxy is present", () => {
    const pod = podWith([app, proxy]);
    rewriteAppProbes(pod, 15020, true);
    const [outApp, outProxy] = containersOf(pod);
    assert.deepEqual(outApp?.readinessProbe, { httpGet: { path: "/app-health/app/readyz", port: 15020 } });
    assert.deepEqual(outProxy?.env, [
      { name: "A", value: "1" },
      { name: APP_PROBERS_ENV, value: '{"/app-health/app/readyz":{"httpGet":{"port":8080}}}' },
    ]);
  });

  it("does nothing without a proxy or when rewriting is off", () => {
    const noProxy = podWith([app]);
    assert.equal(withRewrittenAppProbes(noProxy, 15020, true), noProxy);
    const off = podWith([app, proxy], { "sidecar.istio.io/rewriteAppHTTPProbers": "false" });
    assert.equal(withRewrittenAppProbes(off, 15020, true), off);
    const offBySetting = podWith([app, proxy]);
    assert.equal(withRewrittenAppProbes(offBySetting, 15020, false), offBySetting);
  });

  it("merges with the proxy's earlier variable on a re-injected pod", () => {
    const oldProxy: Container = {
      name: "istio-proxy",
      env: [{ name: APP_PROBERS_ENV, value: '{"/app-health/app/readyz":{"httpGet":{"port":7}}}' }],
    };
    const pod = podWith([app, oldProxy], { "sidecar.istio.io/status": "{}" });
    const out = withRewrittenAppProbes(pod, 15020, true);
    assert.deepEqual(containersOf(out)[1]?.env, [
      { name: APP_PROBERS_ENV, value: '{"/app-health/app/readyz":{"httpGet":{"port":7}}}' },
    ]);
  });

  it("finds a native-sidecar proxy among the init containers", () => {
    const pod: Pod = { metadata: {}, spec: { initContainers: [{ name: "istio-proxy" }], containers: [app] } };
    const out = withRewrittenAppProbes(pod, 15020, true);
    const init = (out.spec?.initContainers ?? []) as Container[];
    assert.equal(init[0]?.env?.[0]?.name, APP_PROBERS_ENV);
  });
});
