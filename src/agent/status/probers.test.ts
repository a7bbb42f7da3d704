import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseKubeAppProbers, proberPort } from "./probers.js";

describe("parseKubeAppProbers", () => {
  it("decodes as Go's encoding/json: field names in any case, unknown fields ignored, null service", () => {
    const p = parseKubeAppProbers(
      '{"/app-health/a/livez":{"gRPC":{"port":8080,"service":null},"TimeoutSeconds":3,"periodSeconds":9},' +
        '"/app-lifecycle/a/prestopz":{"httpGet":{"path":"x","port":80,"httpHeaders":[{"name":"H","value":"v"}]}}}',
    );
    assert.deepEqual(p.get("/app-health/a/livez"), {
      httpGet: undefined,
      tcpSocket: undefined,
      grpc: { port: 8080, service: undefined },
      timeoutSeconds: 3,
    });
    const h = p.get("/app-lifecycle/a/prestopz");
    assert.equal(h?.httpGet?.path, "x");
    assert.deepEqual(h?.httpGet?.httpHeaders, [{ name: "H", value: "v" }]);
    assert.equal(h && proberPort(h), 80);
  });

  it("treats an empty text as no probers and {} as valid", () => {
    assert.equal(parseKubeAppProbers("").size, 0);
    assert.equal(parseKubeAppProbers("{}").size, 0);
  });

  it("rejects what pilot-agent rejects, with its messages", () => {
    assert.throws(
      () => parseKubeAppProbers('{"abc":{"tcpSocket":{"port":1}}}'),
      /^Error: invalid path, must be in form/,
    );
    assert.throws(() => parseKubeAppProbers('{"/app-health/a/readyz":{"exec":{}}}'), /invalid prober type/);
    assert.throws(
      () => parseKubeAppProbers('{"/app-health/a/readyz":{"tcpSocket":{"port":1},"grpc":{"port":2}}}'),
      /must be one of type httpGet, tcpSocket or gRPC/,
    );
    assert.throws(
      () => parseKubeAppProbers('{"/app-health/a/readyz":{"httpGet":{"port":"http"}}}'),
      /invalid prober config for \/app-health\/a\/readyz, the port must be int type/,
    );
    assert.throws(() => parseKubeAppProbers("{"), /^Error: failed to decode app prober err = /);
    assert.throws(() => parseKubeAppProbers('{"/app-health/a/readyz":{"timeoutSeconds":"1"}}'), /failed to decode/);
    assert.throws(() => parseKubeAppProbers('{"/app-health/a/readyz":{"grpc":{"port":1.5}}}'), /failed to decode/);
  });
});
