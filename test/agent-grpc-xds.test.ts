// Proxyless gRPC end to end in plaintext: `meshinject agent` as the grpc-agent template runs it,
// a fake istiod serving LDS, RDS, CDS and EDS for one `xds:///` service whose cluster carries no
// transport socket, and a @grpc/grpc-js-xds client, bootstrapped from the file the agent wrote,
// reaching an echo server through the agent's XDS proxy (the bed: test/grpc-xds-bed.ts). The mTLS
// variant is test/agent-grpc-xds-mtls.test.ts.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createTestCa } from "../src/agent/testing/pki.js";
import { until } from "../src/agent/testing/until.js";
import { type Bed, call, type Echo, HOST, PORT, serviceResources, startBed, startEcho } from "./grpc-xds-bed.js";

describe("proxyless gRPC through the agent's bootstrap and XDS proxy", () => {
  let bed: Bed;
  let echo: Echo;

  before(async () => {
    const pki = await createTestCa();
    echo = await startEcho();
    bed = await startBed(
      pki,
      serviceResources({ host: HOST, port: PORT, endpoint: { address: "127.0.0.1", port: echo.port } }),
      {},
    );
  });

  after(async () => {
    await bed?.close();
    echo?.server.forceShutdown();
  });

  it("a @grpc/grpc-js-xds client calls the echo server of an xds:/// target", async () => {
    const { value: bootstrap, clientPath } = bed.bootstrap();
    const reply = await call(clientPath, `xds:///${HOST}:${PORT}`, "hello");
    assert.equal(reply, "REPLY echo:hello", `client: ${reply}\nagent:\n${bed.output()}`);

    // What istiod saw, decoded by its own protobuf stack: one stream, the bootstrap's node, each
    // type asked for and ACKed.
    assert.equal(bed.istiod.streams.length, 1);
    const s = bed.istiod.streams[0];
    assert.ok(s);
    assert.equal(s.authorization, "Bearer test-token");
    assert.equal(s.clusterId, "Kubernetes");
    assert.equal((s.requests[0]?.node as { id?: string } | undefined)?.id, bootstrap.node.id);
    assert.match(bootstrap.node.id, /^sidecar~127\.0\.0\.1~echo-client-1\.shop~shop\.svc\.cluster\.local$/);
    const types = ["Listener", "RouteConfiguration", "Cluster", "ClusterLoadAssignment"];
    await until(
      () =>
        types.every((t) =>
          s.requests.some((r) => String(r.typeUrl).endsWith(`.${t}`) && r.responseNonce && !r.errorDetail),
        ),
      "an ACK for each of LDS, RDS, CDS, EDS",
    );
  });
});
