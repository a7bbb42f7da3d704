import assert from "node:assert/strict";
import { test } from "node:test";
import { CniAnnotationError, cniSidecarCaptureConfig } from "./cni-sidecar.js";

test("defaults for a pod with no traffic annotations", () => {
  const c = cniSidecarCaptureConfig({ annotations: {} });
  assert.equal(c.InboundInterceptionMode, "REDIRECT");
  assert.equal(c.InboundPortsInclude, "*");
  assert.equal(c.InboundPortsExclude, "15020,15021,15090");
  assert.equal(c.OutboundIPRangesInclude, "*");
  assert.equal(c.OutboundPortsExclude, "15020");
  assert.equal(c.ProxyUID, "1337");
  assert.equal(c.ProxyGID, "1337");
  assert.equal(c.OwnerGroupsInclude, "*");
  assert.equal(c.HostFilesystemPodNetwork, true);
  assert.equal(c.EnableIPv6, false);
});

test("the proxy's ports are appended to the inbound exclusions without duplicates", () => {
  const c = cniSidecarCaptureConfig({
    annotations: { "traffic.sidecar.istio.io/excludeInboundPorts": " 8080,15021" },
  });
  assert.equal(c.InboundPortsExclude, "8080,15021,15020,15090");
});

test("runAsUser/runAsGroup set the proxy ids unless zero", () => {
  assert.equal(cniSidecarCaptureConfig({ annotations: {}, proxyRunAsUser: 1000, proxyRunAsGroup: 0 }).ProxyUID, "1000");
  assert.equal(cniSidecarCaptureConfig({ annotations: {}, proxyRunAsUser: 1000, proxyRunAsGroup: 0 }).ProxyGID, "1337");
});

test("proxy environment: DNS capture (all of it), invalid drop; a non-boolean warns", () => {
  const warnings: string[] = [];
  const c = cniSidecarCaptureConfig(
    { annotations: {}, proxyContainerEnv: { ISTIO_META_DNS_CAPTURE: "True", INVALID_DROP: "yes" } },
    {},
    (m) => warnings.push(m),
  );
  assert.equal(c.RedirectDNS, true);
  assert.equal(c.CaptureAllDNS, true);
  assert.equal(c.DropInvalid, false);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0] as string, /INVALID_DROP/);
});

test("the deprecated kubevirtInterfaces annotation counts only without reroute-virtual-interfaces", () => {
  const old = { "traffic.sidecar.istio.io/kubevirtInterfaces": "net1" };
  assert.equal(cniSidecarCaptureConfig({ annotations: old }).RerouteVirtualInterfaces, "net1");
  const both = { ...old, "istio.io/reroute-virtual-interfaces": "net2" };
  assert.equal(cniSidecarCaptureConfig({ annotations: both }).RerouteVirtualInterfaces, "net2");
});

test("invalid annotations are rejected, naming the annotation", () => {
  const bad: Record<string, string>[] = [
    { "sidecar.istio.io/interceptionMode": "NONE" },
    { "traffic.sidecar.istio.io/includeOutboundIPRanges": "10.0.0.0/33" },
    { "traffic.sidecar.istio.io/excludeOutboundPorts": "80,http" },
    { "traffic.sidecar.istio.io/excludeInterfaces": "eth0,this-name-is-too-long" },
  ];
  for (const annotations of bad) {
    const key = Object.keys(annotations)[0] as string;
    assert.throws(
      () => cniSidecarCaptureConfig({ annotations }),
      (e: Error) => e instanceof CniAnnotationError && e.message.includes(key),
    );
  }
});
