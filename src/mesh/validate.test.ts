import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { defaultProxyConfig } from "./defaults.js";
import { validateProxyConfig } from "./validate.js";
import { validateProxyAddress } from "./validate-net.js";

describe("validateProxyConfig", () => {
  it("accepts the defaults and reports Istio's messages", () => {
    assert.deepEqual(validateProxyConfig(defaultProxyConfig()), { errors: [], warnings: [] });
    const { errors } = validateProxyConfig({ ...defaultProxyConfig(), drainDuration: "1.500s", statusPort: 70000 });
    assert.deepEqual(errors, [
      "drain time only supports durations to seconds precision",
      "invalid status port: port number 70000 must be in the range 1..65535",
    ]);
  });

  it("checks tracers and private key providers", () => {
    const zipkin = validateProxyConfig({
      ...defaultProxyConfig(),
      tracing: { zipkin: { address: "$(HOST_IP):9411" } },
    });
    assert.deepEqual(zipkin.errors, []);
    const ls = validateProxyConfig({ ...defaultProxyConfig(), tracing: { lightstep: {} } });
    assert.equal(ls.errors.length, 3);
    const pkp = validateProxyConfig({ ...defaultProxyConfig(), privateKeyProvider: { qat: { pollDelay: "0s" } } });
    assert.deepEqual(pkp.errors, ["invalid private key provider configuration: pollDelay must be non zero"]);
  });

  it("warns about ISTIO_META_DNS_AUTO_ALLOCATE", () => {
    const v = validateProxyConfig({ ...defaultProxyConfig(), proxyMetadata: { ISTIO_META_DNS_AUTO_ALLOCATE: "true" } });
    assert.equal(v.errors.length, 0);
    assert.equal(v.warnings.length, 1);
  });

  it("splits addresses as Go does", () => {
    assert.equal(validateProxyAddress("istiod.istio-system.svc:15012"), undefined);
    assert.equal(validateProxyAddress("[::1]:80"), undefined);
    assert.equal(validateProxyAddress("a:b:c"), 'unable to split "a:b:c": address a:b:c: too many colons in address');
    assert.equal(validateProxyAddress("host:x"), 'port (x) is not a number: strconv.Atoi: parsing "x": invalid syntax');
    assert.equal(validateProxyAddress("Bad_Host:80"), '"Bad_Host" is not a valid hostname or an IP address');
    assert.equal(validateProxyAddress(""), 'unable to split "": missing port in address');
    assert.equal(validateProxyAddress("host:+80"), undefined);
  });

  it("reads ports and numeric top-level domains as Go's 64-bit int", () => {
    assert.equal(
      validateProxyAddress("host:99999999999999999"),
      "port number 99999999999999999 must be in the range 1..65535",
    );
    assert.equal(
      validateProxyAddress("host:9223372036854775808"),
      'port (9223372036854775808) is not a number: strconv.Atoi: parsing "9223372036854775808": value out of range',
    );
    assert.equal(
      validateProxyAddress("a.9007199254740993:80"),
      '"a.9007199254740993" is not a valid hostname or an IP address',
    );
    assert.equal(validateProxyAddress("a.99999999999999999999:80"), undefined);
  });
});

describe("validateProxyConfigAnnotation", () => {
  it("applies over the defaults, then validates", async () => {
    const { validateProxyConfigAnnotation } = await import("./validate-annotation.js");
    assert.equal(validateProxyConfigAnnotation('{ "holdApplicationUntilProxyStarts": true }'), undefined);
    assert.equal(
      validateProxyConfigAnnotation("statusPort: 0"),
      "1 error occurred:\n\t* invalid status port: port number 0 must be in the range 1..65535\n\n",
    );
    assert.match(
      validateProxyConfigAnnotation("drainDuration: soon") ?? "",
      /^failed to convert to apply proxy config: /,
    );
  });
});
