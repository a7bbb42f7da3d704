/**
 * @peculiar/x509, loaded on first use (so commands that need no certificate do not pay for it),
 * once, with the Reflect metadata it needs and Node's Web Crypto as its provider. Shared by the
 * webhook's certificates (src/webhook/certs.ts) and the agent's workload keys (src/agent/sds).
 */
import { webcrypto } from "node:crypto";
import type * as X509 from "@peculiar/x509";
import { installReflectMetadata } from "./reflect-metadata.js";

let library: Promise<typeof X509> | undefined;

/** @peculiar/x509, loaded once with the Reflect metadata it needs and Web Crypto as its provider. */
export function loadX509(): Promise<typeof X509> {
  library ??= (async () => {
    installReflectMetadata();
    const lib = await import("@peculiar/x509");
    lib.cryptoProvider.set(webcrypto as unknown as Crypto);
    return lib;
  })();
  return library;
}
