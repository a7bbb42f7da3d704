import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  AnnotationValidationError,
  annotationAppliesTo,
  annotationInfo,
  goTrimSpace,
  validateAnnotation,
  validateAnnotations,
} from "./annotations.js";

describe("validateAnnotations", () => {
  it("ignores annotations without a validator", () => {
    validateAnnotations({ "sidecar.istio.io/proxyImage": "anything at all\n", "app.example/x": "" });
    validateAnnotations(undefined);
  });

  it("lists every refused annotation, in name order, the way go-multierror prints", () => {
    const bad = {
      "traffic.sidecar.istio.io/excludeOutboundPorts": "1,x",
      "sidecar.istio.io/interceptionMode": "MAGIC",
    };
    assert.throws(
      () => validateAnnotations(bad),
      (e: unknown) => {
        assert.ok(e instanceof AnnotationValidationError);
        assert.equal(
          e.message,
          "2 errors occurred:\n" +
            "\t* invalid value 'MAGIC' for annotation 'sidecar.istio.io/interceptionMode': " +
            "interceptionMode invalid, use REDIRECT,TPROXY,NONE: MAGIC\n" +
            "\t* invalid value '1,x' for annotation 'traffic.sidecar.istio.io/excludeOutboundPorts': " +
            "excludeOutboundPorts invalid: failed parsing port 'x': failed parsing port 'x': " +
            'strconv.ParseUint: parsing "x": invalid syntax\n\n',
        );
        assert.equal(e.failures.length, 2);
        return true;
      },
    );
  });

  it("formats a single error like go-multierror", () => {
    assert.throws(
      () => validateAnnotations({ "sidecar.istio.io/interceptionMode": "MAGIC", "app.example/x": "" }),
      (e: unknown) => {
        assert.ok(e instanceof AnnotationValidationError);
        assert.equal(
          e.message,
          "1 error occurred:\n" +
            "\t* invalid value 'MAGIC' for annotation 'sidecar.istio.io/interceptionMode': " +
            "interceptionMode invalid, use REDIRECT,TPROXY,NONE: MAGIC\n\n",
        );
        assert.equal(e.failures.length, 1);
        return true;
      },
    );
  });

  it("lets the mesh layer supply the proxy config validator", () => {
    const reason = validateAnnotation("proxy.istio.io/config", "concurrency: -1", {
      proxyConfig: (v) => (v.includes("-1") ? "concurrency must be positive" : undefined),
    });
    assert.equal(reason, "concurrency must be positive");
    assert.equal(validateAnnotation("proxy.istio.io/config", "concurrency: 2"), undefined);
    assert.match(validateAnnotation("proxy.istio.io/config", "[1, 2]") ?? "", /failed to convert/);
  });
});

describe("annotation validators", () => {
  const reason = (name: string, value: string) => validateAnnotation(name, value);

  it("port lists: trimmed, 16-bit, '*' only where Istio allows it", () => {
    assert.equal(reason("traffic.sidecar.istio.io/includeInboundPorts", "*"), undefined);
    assert.equal(reason("traffic.sidecar.istio.io/includeInboundPorts", " 80 , 443 "), undefined);
    assert.equal(reason("traffic.sidecar.istio.io/excludeInboundPorts", ""), undefined);
    assert.match(reason("traffic.sidecar.istio.io/excludeInboundPorts", "*") ?? "", /^excludeInboundPorts invalid/);
    assert.match(reason("traffic.sidecar.istio.io/excludeOutboundPorts", "80,") ?? "", /invalid syntax/);
    assert.match(reason("traffic.sidecar.istio.io/excludeOutboundPorts", "65536") ?? "", /value out of range/);
    assert.match(reason("traffic.sidecar.istio.io/excludeOutboundPorts", "+80") ?? "", /invalid syntax/);
  });

  it("the status port repeats Istio's excludeInboundPorts wording", () => {
    assert.equal(reason("status.sidecar.istio.io/port", " 0 "), undefined);
    assert.equal(
      reason("status.sidecar.istio.io/port", "http"),
      `excludeInboundPorts invalid: failed parsing port 'http': strconv.ParseUint: parsing "http": invalid syntax`,
    );
  });

  it("CIDR lists", () => {
    assert.equal(reason("traffic.sidecar.istio.io/includeOutboundIPRanges", "*"), undefined);
    assert.equal(reason("traffic.sidecar.istio.io/includeOutboundIPRanges", ""), undefined);
    assert.equal(reason("traffic.sidecar.istio.io/excludeOutboundIPRanges", "10.0.0.0/8,fd00::/8"), undefined);
    assert.equal(
      reason("traffic.sidecar.istio.io/excludeOutboundIPRanges", "*"),
      `excludeIPRanges invalid: failed parsing cidr '*': netip.ParsePrefix("*"): no '/'`,
    );
    assert.match(
      reason("traffic.sidecar.istio.io/includeOutboundIPRanges", "10.0.0.0/8, 1.2.3.4/32") ?? "",
      /^includeIPRanges invalid/,
    );
  });

  it("uint32 and bool values", () => {
    assert.equal(reason("readiness.status.sidecar.istio.io/periodSeconds", "4294967295"), undefined);
    assert.equal(
      reason("readiness.status.sidecar.istio.io/periodSeconds", "4294967296"),
      'strconv.ParseUint: parsing "4294967296": value out of range',
    );
    assert.equal(reason("prometheus.istio.io/merge-metrics", "T"), undefined);
    assert.equal(
      reason("prometheus.istio.io/merge-metrics", "yes"),
      'strconv.ParseBool: parsing "yes": invalid syntax',
    );
  });

  it("resource quantities refuse control characters first", () => {
    assert.equal(reason("sidecar.istio.io/proxyCPU", "250m"), undefined);
    assert.equal(reason("sidecar.istio.io/proxyMemoryLimit", "1\t"), "value contains control characters");
    assert.equal(reason("sidecar.istio.io/proxyMemory", "\u0085"), "value contains control characters");
    assert.match(reason("sidecar.istio.io/proxyCPULimit", "2 cores") ?? "", /invalid resource quantity/);
  });

  it("interface names", () => {
    assert.equal(reason("traffic.sidecar.istio.io/excludeInterfaces", "net1, veth.2"), undefined);
    assert.match(reason("istio.io/reroute-virtual-interfaces", "a,") ?? "", /must not be empty/);
    assert.match(reason("traffic.sidecar.istio.io/kubevirtInterfaces", "abcdefghijklmnop") ?? "", /longer than 15/);
    assert.match(reason("traffic.sidecar.istio.io/kubevirtInterfaces", "-eth") ?? "", /must start with a letter/);
  });
});

describe("goTrimSpace", () => {
  it("goTrimSpace trims Go's spaces, not U+FEFF", () => {
    assert.equal(goTrimSpace("\u0085 x\u3000"), "x");
    assert.equal(goTrimSpace("\ufeffx"), "\ufeffx");
  });
});

describe("annotation table", () => {
  it("knows resources and deprecation", () => {
    assert.equal(annotationInfo("sidecar.istio.io/statsInclusionPrefixes")?.deprecated, true);
    assert.equal(annotationInfo("sidecar.istio.io/proxyCPU")?.deprecated, false);
    assert.equal(annotationAppliesTo("networking.istio.io/exportTo", "Service"), true);
    assert.equal(annotationAppliesTo("networking.istio.io/exportTo", "Pod"), false);
    assert.equal(annotationAppliesTo("galley.istio.io/analyze-suppress", "Pod"), true);
    assert.equal(annotationInfo("sidecar.istio.io/nope"), undefined);
  });
});

describe("validateAnnotations on values that are not strings", () => {
  it("refuses them with a validation error, never a TypeError", () => {
    const raw = { "sidecar.istio.io/proxyCPU": 1, "sidecar.istio.io/interceptionMode": { a: 1 } } as unknown as Record<
      string,
      string
    >;
    assert.throws(
      () => validateAnnotations(raw),
      (e: unknown) => {
        assert.ok(e instanceof AnnotationValidationError);
        assert.deepEqual(
          e.failures.map((f) => [f.name, f.value, f.reason]),
          [
            ["sidecar.istio.io/interceptionMode", '{"a":1}', "the value must be a string, got map"],
            ["sidecar.istio.io/proxyCPU", "1", "the value must be a string, got number"],
          ],
        );
        return true;
      },
    );
  });
});
