// The webhook with an injection template that calls getHostByName: the review resolves the name
// (asynchronously, through the process's resolver) and answers with it in the patch; the reference
// pods the configuration is checked with do not ask DNS. Only "localhost" (/etc/hosts: no DNS traffic).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { hostNameConfig } from "../inject/testing/host-name-config.js";
import { applyJsonPatch } from "../kube/json-patch.js";
import { postReview } from "./https-client.js";
import { createLogger } from "./logging.js";
import { startServer } from "./server.js";

const EXAMPLE = JSON.parse(readFileSync(new URL("../../examples/admission-review.json", import.meta.url), "utf8"));

// The reference pods include a gateway pod: the config has that template too.
const CONFIG = hostNameConfig("localhost", ["sidecar", "gateway"]);

interface Pod {
  spec: { containers: { name: string; env?: { name: string; value?: string }[] }[] };
}

test("the webhook resolves the names an injection template asks getHostByName for", async () => {
  const dir = await mkdtemp(join(tmpdir(), "meshinject-host-names-"));
  await writeFile(join(dir, "config.yaml"), CONFIG);
  const server = await startServer({
    port: 0,
    host: "127.0.0.1",
    metricsPort: null,
    defaultMetrics: false,
    logger: createLogger({ level: "silent" }),
    config: { injectConfigFile: join(dir, "config.yaml") },
  });
  try {
    const answer = (await postReview({ port: server.port, review: JSON.stringify(EXAMPLE) })) as {
      response: { allowed: boolean; patch?: string; status?: { message: string } };
    };
    assert.equal(answer.response.allowed, true, answer.response.status?.message ?? "not allowed");
    const patch = JSON.parse(Buffer.from(answer.response.patch ?? "", "base64").toString("utf8")) as unknown[];
    const pod = applyJsonPatch(structuredClone(EXAMPLE.request.object), patch) as Pod;
    const proxy = pod.spec.containers.find((c) => c.name === "istio-proxy");
    const value = proxy?.env?.find((e) => e.name === "HOST_ADDR")?.value;
    assert.match(value ?? "", /^(127\.0\.0\.1|::1)$/);
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
});
