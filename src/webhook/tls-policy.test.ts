// TLS versions and cipher suites: flag names parsed as Kubernetes names them, and a real server that
// refuses what the policy leaves out (a client offering only a CBC-SHA1 suite, TLS 1.2 under a 1.3 minimum).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type ConnectionOptions, connect } from "node:tls";
import { createLogger } from "./logging.js";
import { startServer } from "./server.js";
import {
  DEFAULT_TLS_POLICY,
  opensslCiphers,
  parseCipherSuites,
  parseTlsMinVersion,
  type TlsPolicy,
} from "./tls-policy.js";

/** Connects with `options` and resolves with the negotiated protocol and cipher, or the error. */
function handshake(port: number, options: ConnectionOptions): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(
      { host: "127.0.0.1", port, rejectUnauthorized: false, servername: "localhost", ...options },
      () => {
        resolve(`${socket.getProtocol()} ${socket.getCipher().name}`);
        socket.destroy();
      },
    );
    socket.on("error", (e) => resolve(`refused: ${e.message}`));
  });
}

async function withServer(policy: TlsPolicy | undefined, run: (port: number) => Promise<void>): Promise<void> {
  const server = await startServer({
    port: 0,
    host: "127.0.0.1",
    metricsPort: null,
    logger: createLogger({ level: "silent" }),
    defaultMetrics: false,
    ...(policy === undefined ? {} : { tlsPolicy: policy }),
  });
  try {
    await run(server.port);
  } finally {
    await server.close();
  }
}

const CBC_SHA1 = "ECDHE-ECDSA-AES128-SHA:ECDHE-RSA-AES128-SHA";

describe("TLS policy", () => {
  test("flag names: Go's version names, IANA suite names mapped to OpenSSL's, unknown names refused", () => {
    assert.equal(parseTlsMinVersion("VersionTLS12"), "TLSv1.2");
    assert.equal(parseTlsMinVersion("VersionTLS13"), "TLSv1.3");
    assert.throws(() => parseTlsMinVersion("VersionTLS11"), /--tls-min-version must be VersionTLS12 or VersionTLS13/);
    const suites = parseCipherSuites(
      "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, TLS_AES_128_GCM_SHA256,TLS_RSA_WITH_AES_128_CBC_SHA",
    );
    assert.equal(
      opensslCiphers({ minVersion: "TLSv1.2", cipherSuites: suites }),
      "ECDHE-ECDSA-AES256-GCM-SHA384:AES128-SHA",
    );
    assert.throws(
      () => parseCipherSuites("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA265"),
      /unknown cipher suite "TLS_ECDHE/,
    );
    assert.throws(() => parseCipherSuites("TLS_ECDHE_RSA_WITH_RC4_128_SHA"), /RC4\) is not supported/);
    assert.throws(() => parseCipherSuites("TLS_AES_128_GCM_SHA256"), /names no TLS 1.2 cipher suite/);
    // The default: ECDHE with AES-GCM or ChaCha20-Poly1305 only.
    for (const name of opensslCiphers(DEFAULT_TLS_POLICY).split(":")) {
      assert.match(name, /^ECDHE-(ECDSA|RSA)-(AES(128|256)-GCM-SHA(256|384)|CHACHA20-POLY1305)$/);
    }
  });

  test("by default a TLS 1.2 client offering only CBC-SHA1 suites is refused; GCM and TLS 1.3 are served", async () => {
    await withServer(undefined, async (port) => {
      assert.match(
        await handshake(port, { maxVersion: "TLSv1.2", ciphers: CBC_SHA1 }),
        /^refused: .*handshake failure/,
      );
      assert.match(await handshake(port, { maxVersion: "TLSv1.2" }), /^TLSv1\.2 ECDHE-ECDSA-AES\d+-GCM-SHA\d+$/);
      assert.match(await handshake(port, {}), /^TLSv1\.3 /);
    });
  });

  test("configured: only the listed suites; a TLS 1.3 minimum refuses TLS 1.2", async () => {
    const only256 = { minVersion: "TLSv1.2", cipherSuites: ["TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"] } as const;
    await withServer(only256, async (port) => {
      assert.match(
        await handshake(port, { maxVersion: "TLSv1.2", ciphers: "ECDHE-ECDSA-AES128-GCM-SHA256" }),
        /^refused/,
      );
      assert.equal(await handshake(port, { maxVersion: "TLSv1.2" }), "TLSv1.2 ECDHE-ECDSA-AES256-GCM-SHA384");
    });
    await withServer({ ...DEFAULT_TLS_POLICY, minVersion: "TLSv1.3" }, async (port) => {
      assert.match(await handshake(port, { maxVersion: "TLSv1.2" }), /^refused/);
      assert.match(await handshake(port, {}), /^TLSv1\.3 /);
    });
  });
});
