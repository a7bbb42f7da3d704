import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseAllDocuments } from "yaml";
import { workloadOf } from "../src/kube/workloads.js";
import type { Drawing } from "./drawing.js";
import { EXAMPLES } from "./examples.js";
import { INITIAL_STATE, type PlaygroundState, runPlayground } from "./playground.js";
import { podLayout } from "./pod-layout.js";
import { podModel } from "./pod-model.js";
import { NATIVE_POD } from "./test-workloads.js";
import { trafficLayout } from "./traffic-layout.js";

const example = (id: string) => EXAMPLES.find((e) => e.id === id)?.yaml ?? assert.fail(`no ${id} example`);
const run = (workload: string, over: Partial<PlaygroundState> = {}) => {
  const r = runPlayground({ ...INITIAL_STATE, workload, ...over });
  assert.deepEqual(r.errors, []);
  return r;
};

/** The pod spec of the first workload of an injected YAML text, read with the yaml library alone. */
function injectedSpec(text: string): Record<string, unknown> {
  const obj = parseAllDocuments(text)[0]?.toJS() as { kind: string; spec: Record<string, unknown> };
  return (obj.kind === "Pod" ? obj.spec : (obj.spec.template as { spec: Record<string, unknown> }).spec) as Record<
    string,
    unknown
  >;
}

type Named = { name: string; ports?: { containerPort: number }[] };

/** Every name the spec gives: containers, init containers, volumes, declared ports. */
function specNames(spec: Record<string, unknown>): { containers: string[]; volumes: string[]; ports: string[] } {
  const containers = [...((spec.initContainers as Named[]) ?? []), ...((spec.containers as Named[]) ?? [])];
  return {
    containers: containers.map((c) => c.name),
    volumes: ((spec.volumes as Named[]) ?? []).map((v) => v.name),
    ports: containers.flatMap((c) => (c.ports ?? []).map((p) => `:${p.containerPort}`)),
  };
}

/** The drawing's texts, a line each (or joined by `sep`: a phrase wrapped over lines reads whole). */
const texts = (d: Drawing, sep = "\n") => d.nodes.flatMap((n) => n.texts.map((t) => t.text)).join(sep);

/** Layout checks that hold at every width: inside the picture, texts inside their boxes, boxes apart. */
function checkLayout(d: Drawing): void {
  for (const n of d.nodes) {
    assert.ok(n.x >= 0 && n.x + n.w <= d.width + 0.5, `${n.cls} ${n.texts[0]?.text} inside the width`);
    assert.ok(n.y >= 0 && n.y + n.h <= d.height + 0.5, `${n.cls} ${n.texts[0]?.text} inside the height`);
    for (const t of n.texts) {
      assert.ok(t.text.length * 7.3 <= n.w + 1, `"${t.text}" fits in its ${n.w}px box`);
    }
  }
  const boxes = d.nodes.filter((n) => n.cls.startsWith("box") && !n.cls.includes("pod"));
  for (const [i, a] of boxes.entries()) {
    for (const b of boxes.slice(i + 1)) {
      const apart = a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;
      assert.ok(apart, `${a.texts[0]?.text} and ${b.texts[0]?.text} do not overlap`);
    }
  }
}

describe("pictures: the Pod model and layout", () => {
  it("curl: every container, volume and port of the injected pod is drawn, at 1,400 and 400 px", () => {
    const r = run(example("curl"));
    const names = specNames(injectedSpec(r.injected));
    const w = r.pictures[0] ?? assert.fail("no picture");
    for (const width of [1400, 400]) {
      const d = podLayout(w.pod, width);
      checkLayout(d);
      const t = texts(d);
      for (const name of [...names.containers, ...names.volumes, ...names.ports]) {
        assert.match(t, new RegExp(`(^|\\s)${name.replace(/[.]/g, "\\.")}(\\s|$)`, "m"), `${name} at ${width}px`);
      }
      // The sidecar's ports, declared or used.
      for (const port of [15000, 15001, 15006, 15020, 15021, 15090]) assert.match(t, new RegExp(`^:${port} `, "m"));
      assert.doesNotMatch(t, /^:15053 /m, "no DNS capture, no DNS proxy port");
    }
  });

  it("curl: what injection added is marked against the input, nothing without an input", () => {
    const r = run(example("curl"));
    const pod = r.pictures[0]?.pod ?? assert.fail("no pod");
    assert.deepEqual(
      pod.inits.map((c) => [c.name, c.added]),
      [["istio-init", true]],
    );
    assert.deepEqual(
      pod.containers.map((c) => [c.name, c.added]),
      [
        ["curl", false],
        ["istio-proxy", true],
      ],
    );
    assert.ok(pod.volumes.length > 0 && pod.volumes.every((v) => v.added));
    assert.ok(pod.addedMetadata.includes("annotation sidecar.istio.io/status"));
    const d = podLayout(pod, 1400);
    assert.ok(d.nodes.some((n) => n.part?.id === "container:istio-proxy" && n.added));
    assert.ok(d.nodes.some((n) => n.part?.id === "container:curl" && !n.added));

    // Without the input to compare with, nothing is marked.
    const obj = parseAllDocuments(r.injected)[0]?.toJS() as Record<string, unknown>;
    const alone = podModel("Deployment default/curl", workloadOf(obj)?.pod ?? assert.fail("no pod"), undefined, {});
    assert.ok([...alone.inits, ...alone.containers, ...alone.volumes].every((p) => !p.added));
    assert.deepEqual(alone.addedMetadata, []);
  });

  it("an istio-proxy override: the container is changed, the ports injection gave it are marked added", () => {
    const pod = run(example("override")).pictures[0]?.pod ?? assert.fail("no pod");
    const proxy = pod.containers.find((c) => c.name === "istio-proxy") ?? assert.fail("no istio-proxy");
    assert.equal(proxy.added, false);
    assert.ok(proxy.changed.includes("image"), proxy.changed.join(" "));
    assert.deepEqual(
      proxy.ports.filter((p) => !p.added).map((p) => p.port),
      [],
    );
    assert.deepEqual(
      proxy.ports.map((p) => p.port),
      [15000, 15001, 15006, 15020, 15021, 15090],
    );
  });

  it("probes: re-pointed at :15020, followed to the app port the agent checks", () => {
    const r = run(example("probes"));
    const pod = r.pictures[0]?.pod ?? assert.fail("no pod");
    const web = pod.containers.find((c) => c.name === "web") ?? assert.fail("no web");
    assert.deepEqual(
      web.probes.map((p) => [p.kind, p.port, p.rewritten?.port, p.rewritten?.check]),
      [
        ["liveness", 15020, 8080, "httpGet :8080 /healthz"],
        ["readiness", 15020, 8080, "tcpSocket :8080"],
        ["startup", 15020, 9090, "grpc :9090"],
      ],
    );
    for (const probe of ["livenessProbe", "readinessProbe", "startupProbe"])
      assert.ok(web.changed.includes(probe), probe);
    const d = podLayout(pod, 1400);
    // Two arrows per probe: to the agent's port, and from it to the app's.
    assert.equal(d.edges.filter((e) => e.parts.includes("container:web/probe:liveness")).length, 2);
    assert.equal(d.edges.filter((e) => e.cls === "probe real").length, 3);
  });

  it("native sidecars and excluded ports: istio-proxy is init container 2, marked; every name drawn", () => {
    const r = run(NATIVE_POD, { nativeSidecars: true });
    const w = r.pictures[0] ?? assert.fail("no picture");
    assert.deepEqual(
      w.pod.inits.map((c) => [c.name, c.order, c.nativeSidecar]),
      [
        ["istio-init", 1, false],
        ["istio-proxy", 2, true],
      ],
    );
    const names = specNames(injectedSpec(r.injected));
    for (const width of [1400, 400]) {
      const d = podLayout(w.pod, width);
      checkLayout(d);
      const t = texts(d);
      for (const name of [...names.containers, ...names.volumes, ...names.ports]) assert.ok(t.includes(name), name);
      assert.match(t, /native sidecar/);
      assert.ok(w.pod.volumes.find((v) => v.name === "cache")?.added === false);
    }
    assert.deepEqual(w.traffic.inbound.excluded, ["15008", "15090", "15021", "9000", "15020"]);
    assert.deepEqual(w.traffic.outbound.excludedPorts, ["5432"]);
    const t = texts(trafficLayout(w.traffic, 1400, w.rules), " ");
    assert.match(t, /:9000/);
    assert.match(t, /ports :5432/);
  });
});

describe("pictures: the Traffic model and layout", () => {
  const annotated = (annotations: string) =>
    `apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n${annotations}\nspec:\n  containers:\n  - name: app\n    image: x\n    ports:\n    - containerPort: 8080\n`;

  it("curl: all inbound to 15006, all outbound to 15001, Envoy's uid/gid 1337 left alone; DNS off", () => {
    const w = run(example("curl")).pictures[0] ?? assert.fail("no picture");
    assert.equal(w.traffic.by, "istio-init");
    assert.equal(w.traffic.inbound.captured, "all");
    assert.equal(w.traffic.inbound.capturePort, "15006");
    assert.equal(w.traffic.outbound.proxyPort, "15001");
    assert.deepEqual(w.traffic.outbound.uids, ["1337"]);
    assert.deepEqual(w.traffic.outbound.gids, ["1337"]);
    assert.equal(w.traffic.dns, undefined);
    for (const width of [1400, 700, 400]) {
      const d = trafficLayout(w.traffic, width, w.rules);
      checkLayout(d);
      const t = texts(d, " ");
      assert.match(t, /Envoy :15006/);
      assert.match(t, /Envoy :15001/);
      assert.match(t, /uid 1337, gid 1337/);
      assert.match(t, /PREROUTING/);
    }
    // A stage quotes its rules.
    const d = trafficLayout(w.traffic, 1400, w.rules);
    const envoy = d.nodes.find((n) => n.part?.id === "outbound:out-envoy")?.part?.yaml() ?? "";
    assert.match(envoy, /-A ISTIO_REDIRECT -p tcp -j REDIRECT --to-ports 15001/);
  });

  it("the traffic.sidecar.istio.io annotations change the picture", () => {
    const base = trafficLayout((run(annotated('    a: "b"')).pictures[0] ?? assert.fail()).traffic, 1000, "");
    const w = run(
      annotated(
        '    traffic.sidecar.istio.io/includeInboundPorts: "8080"\n    traffic.sidecar.istio.io/excludeOutboundIPRanges: "10.96.0.0/12"\n    traffic.sidecar.istio.io/excludeInterfaces: "eth1"',
      ),
    ).pictures[0];
    assert.ok(w);
    assert.equal(w.traffic.inbound.captured, "some");
    assert.deepEqual(w.traffic.inbound.ports, ["8080"]);
    const t = texts(trafficLayout(w.traffic, 1000, w.rules), " ");
    assert.doesNotMatch(texts(base), /10\.96\.0\.0\/12/);
    assert.match(t, /CIDRs 10\.96\.0\.0\/12/);
    assert.match(t, /only :8080/);
    assert.match(t, /interfaces eth1/);
  });

  it("TPROXY: inbound marked in the mangle table, the app reached from the client's address", () => {
    const w = run(annotated("    sidecar.istio.io/interceptionMode: TPROXY")).pictures[0];
    assert.ok(w);
    assert.equal(w.traffic.mode, "TPROXY");
    const t = texts(trafficLayout(w.traffic, 1000, w.rules), " ");
    assert.match(t, /Inbound \(TPROXY\)/);
    assert.match(t, /PREROUTING \(iptables mangle\)/);
    assert.match(t, /from the client's address/);
    assert.match(t, /OUTPUT \(iptables nat\)/);
  });

  it("DNS capture on (ISTIO_META_DNS_CAPTURE): 53 → the agent's 15053, and the sidecar has :15053", () => {
    const w = run(
      annotated('    proxy.istio.io/config: |\n      proxyMetadata:\n        ISTIO_META_DNS_CAPTURE: "true"'),
    ).pictures[0];
    assert.ok(w);
    assert.deepEqual(w.traffic.dns, { all: false, servers: [], port: "15053" });
    const t = texts(trafficLayout(w.traffic, 1000, w.rules), " ");
    assert.match(t, /UDP\/TCP :53/);
    assert.match(t, /agent :15053/);
    assert.match(texts(podLayout(w.pod, 1000)), /^:15053 {2}agent DNS proxy/m);
  });
});
