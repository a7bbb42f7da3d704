import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { workerOptions } from "./cluster-worker.js";
import { createLogger } from "./logging.js";
import { selfSignedCertificate } from "./tls-self-signed.js";

describe("a worker's server options", () => {
  const logger = createLogger({ level: "silent" });

  test("the process-wide limits are shared out; no metrics listener; the primary's certificate", () => {
    const generatedCertificate = selfSignedCertificate({ hosts: ["localhost"] });
    const options = workerOptions(
      {
        port: 15017,
        metricsPort: 15014,
        selfSignedHosts: ["localhost"],
        limits: { maxConnections: 1001, maxBufferedBytes: 32 * 1024 * 1024, shutdownTimeoutMs: 7, drainDelayMs: 3 },
      },
      { slot: 1, workers: 2, port: 15017, generatedCertificate },
      logger,
    );
    assert.equal(options.metricsPort, null);
    assert.equal(options.port, 15017);
    assert.deepEqual(options.tls, generatedCertificate);
    assert.deepEqual(options.limits, {
      maxConnections: 501,
      maxBufferedBytes: 16 * 1024 * 1024,
      shutdownTimeoutMs: 7,
      drainDelayMs: 3,
    });
    assert.equal(options.logger?.bindings().worker, 1);
  });

  test("no cap stays no cap; certificate files stay files", () => {
    const tls = { certFile: "/c", keyFile: "/k" };
    const options = workerOptions({ tls, limits: { maxConnections: 0 } }, { slot: 0, workers: 4, port: 0 }, logger);
    assert.equal(options.limits?.maxConnections, 0);
    assert.equal(options.limits?.maxBufferedBytes, undefined);
    assert.deepEqual(options.tls, tls);
  });
});
