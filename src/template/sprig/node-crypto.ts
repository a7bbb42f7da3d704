/**
 * Node's crypto module as a capability of the host, not an import. Sprig's key, certificate and
 * cipher functions (genPrivateKey, genCA, genSignedCert, encryptAES, derivePassword, ...) need
 * synchronous RSA/EC key generation, signing, AES-CBC and scrypt, which neither Web Crypto (all
 * asynchronous) nor a small pure library offers as one well-kept package. Under Node (the CLI, the
 * webhook, the library) the module is fetched at run time with `process.getBuiltinModule` (Node
 * 20.16 and later, hence package.json's engines); in a
 * browser there is none, and those functions fail with a template error saying so, while the rest
 * of the engine (and every built-in template) runs unchanged. Nothing here is bundled for the web.
 */
import { GoError } from "../../go/value.js";

export type NodeCrypto = typeof import("node:crypto");
export type KeyObject = import("node:crypto").KeyObject;

interface ProcessWithBuiltins {
  getBuiltinModule?: (id: string) => unknown;
}

let cached: NodeCrypto | undefined;

/** Node's crypto module, or a Go error naming `what` when the host (a browser) has none. */
export function nodeCrypto(what = "crypto"): NodeCrypto {
  if (cached !== undefined) return cached;
  const proc = (globalThis as { process?: ProcessWithBuiltins }).process;
  const mod = proc?.getBuiltinModule?.("node:crypto") as NodeCrypto | undefined;
  if (mod === undefined) throw new GoError(`${what}: needs Node's crypto module, which this host does not offer`);
  cached = mod;
  return mod;
}
