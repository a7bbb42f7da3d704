/**
 * The webhook conformance transport over real HTTPS: for each case, `meshinject serve`'s server is
 * started on a free loopback port with the case's ConfigMap files, and AdmissionReviews are POSTed
 * to it as the API server would. One certificate is made for the whole run (key generation is slow).
 */

import { readFile } from "node:fs/promises";
import { Agent } from "node:https";
import { join } from "node:path";
import { call } from "../../src/webhook/https-client.js";
import { createLogger } from "../../src/webhook/logging.js";
import type { NamespaceLike } from "../../src/webhook/openshift.js";
import { startServer } from "../../src/webhook/server.js";
import { selfSignedCertificate } from "../../src/webhook/tls-self-signed.js";
import type { TransportFactory } from "./istio-inject-webhook.js";

let certificate: { cert: string; key: string } | undefined;

export const httpsTransport: TransportFactory = async (state, caseDir) => {
  certificate ??= selfSignedCertificate({ hosts: ["localhost", "127.0.0.1"] });
  // The Namespaces the API server would have (FORMAT.md §4.3), as a fixed list.
  const { namespaces } = JSON.parse(await readFile(join(caseDir, "case.json"), "utf8")) as {
    namespaces?: NamespaceLike[];
  };
  const server = await startServer({
    host: "127.0.0.1",
    port: 0,
    metricsPort: null,
    tls: certificate,
    config: {
      injectConfigFile: join(caseDir, "injector-config.yaml"),
      valuesFile: join(caseDir, "values.json"),
      // The effective MeshConfig: applied over Istio's defaults it gives itself again.
      meshConfigFile: join(caseDir, "mesh.yaml"),
    },
    revision: state.revision,
    nativeSidecars: state.nativeSidecars,
    ...(state.kubeletMinorVersion !== undefined ? { kubeletMinorVersion: state.kubeletMinorVersion } : {}),
    compliancePolicy: state.injector.settings.compliancePolicy,
    ...(state.platform === undefined ? {} : { platform: state.platform }),
    namespaces: namespaces ?? [],
    defaultMetrics: false,
    // The case's files do not change during the run; no need to poll them.
    watchIntervalMs: 3_600_000,
    logger: createLogger({ level: "silent" }),
  });
  const agent = new Agent({ keepAlive: true, ca: certificate.cert });
  return {
    send: async (json) => {
      const res = await call({
        port: server.port,
        host: "127.0.0.1",
        method: "POST",
        path: "/inject",
        headers: { "content-type": "application/json" },
        body: json,
        ca: certificate?.cert,
        agent,
      });
      if (res.status !== 200) throw new Error(`webhook answered HTTP ${res.status}: ${res.body}`);
      return res.body;
    },
    close: async () => {
      agent.destroy();
      await server.close();
    },
  };
};
