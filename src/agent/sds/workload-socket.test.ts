/**
 * A workload-identity SDS server already on the socket (SPIRE's, here a bare gRPC server): the agent
 * serves only file certificates, on credential-uds/files-socket, and never asks the CA. A dead socket
 * is cleared and the agent serves as usual; WORKLOAD_IDENTITY_SOCKET_FILE must be a name with a live
 * socket behind it.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { join } from "node:path";
import { describe, test } from "node:test";
import { Server, ServerCredentials } from "@grpc/grpc-js";
import { SDS_SOCKET, startSdsServer } from "./server.js";
import { sdsBed } from "./testing/bed.js";
import { testPod } from "./testing/pod.js";
import { sdsClient } from "./testing/sds-client.js";
import { FILE_CREDENTIAL_NAME_SOCKET_PATH } from "./workload-socket.js";

describe("the workload identity socket", () => {
  const bed = sdsBed(600_000);
  const { pods, servers } = bed;

  test("someone else's live socket: only file certificates, on files-socket, and no CA call", async () => {
    const pod = testPod(bed.ca.pki.rootPem, bed.ca.address);
    pods.push(pod);
    const spire = new Server();
    const socket = join(pod.root, SDS_SOCKET);
    mkdirSync(join(pod.root, "var/run/secrets/workload-spiffe-uds"), { recursive: true });
    await new Promise<void>((resolve, reject) =>
      spire.bindAsync(`unix:${socket}`, ServerCredentials.createInsecure(), (e) => (e ? reject(e) : resolve())),
    );
    try {
      const calls = bed.ca.calls.length;
      const sds = await startSdsServer({ security: pod.security(), warmInitialMs: 50 });
      servers.push(sds);
      assert.equal(sds.socketPath, join(pod.root, FILE_CREDENTIAL_NAME_SOCKET_PATH));
      const chain = pod.write("gw/chain.pem", bed.other.serving.certPem);
      const key = pod.write("gw/key.pem", bed.other.serving.keyPem);
      const client = sdsClient(sds.socketPath, [`file-cert:${chain}~${key}`]);
      await client.waitFor(1);
      assert.equal(client.responses[0]?.secrets[0]?.certChainPem, bed.other.serving.certPem);
      const workload = sdsClient(sds.socketPath, ["default"]);
      assert.match((await workload.waitForEnd()).details, /ca client is nil/);
      assert.equal(bed.ca.calls.length, calls, "the CA is never asked");
      client.close();
    } finally {
      spire.forceShutdown();
    }
  });

  test("a dead socket is removed and the agent serves there; a path or a missing custom socket is refused", async () => {
    const pod = testPod(bed.ca.pki.rootPem, bed.ca.address);
    pods.push(pod);
    const socket = join(pod.root, SDS_SOCKET);
    mkdirSync(join(pod.root, "var/run/secrets/workload-spiffe-uds"), { recursive: true });
    // A socket whose owner never speaks gRPC: the health check fails within its second.
    const conns: Socket[] = [];
    const dead = createServer((c) => {
      c.on("error", () => {});
      c.unref();
      conns.push(c);
    });
    await new Promise<void>((resolve) => dead.listen(socket, resolve));
    dead.unref(); // nothing of this listener may keep the test process alive
    try {
      const sds = await startSdsServer({ security: pod.security(), warmInitialMs: 50 });
      servers.push(sds);
      assert.equal(sds.socketPath, socket);
      const client = sdsClient(sds.socketPath, ["ROOTCA"]);
      await client.waitFor(1);
      client.close();
      await assert.rejects(
        startSdsServer({ security: pod.security({ WORKLOAD_IDENTITY_SOCKET_FILE: "../socket" }) }),
        /must be a filename, not a path/,
      );
      await assert.rejects(
        startSdsServer({ security: pod.security({ WORKLOAD_IDENTITY_SOCKET_FILE: "spire.sock" }) }),
        /non-default SDS socket path: .*spire.sock but no socket found/,
      );
      assert.ok(existsSync(socket));
    } finally {
      for (const c of conns) c.destroy();
      dead.close();
    }
  });
});
