/**
 * OUTPUT_CERTS (Istio's security/pkg/nodeagent/util `OutputKeyCertToDir`): after each `default` or
 * `ROOTCA` secret is generated, its key, chain and root go to `key.pem`, `cert-chain.pem` and
 * `root-cert.pem` in that directory — each only when present in the secret and different from what
 * the file holds, written atomically (a temporary file renamed over it, `pkg/file.AtomicWrite`).
 * Mode 0600, or 0644 on Kubernetes (KUBERNETES_SERVICE_HOST set), so other containers of the pod can
 * read them. Proxyless gRPC and the grpc-agent template read their mTLS material from there.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";

export interface OutputMaterial {
  privateKey?: string;
  certificateChain?: string;
  rootCert?: string;
}

function atomicWrite(path: string, data: string, mode: number): void {
  const tmp = join(dirname(path), `${basename(path)}.tmp.${randomBytes(6).toString("hex")}`);
  try {
    writeFileSync(tmp, data, { mode, flag: "wx" });
    chmodSync(tmp, mode);
    renameSync(tmp, path);
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** Writes what `material` has into `dir`; nothing when `dir` is "". Throws a one-line error. */
export function outputKeyCertToDir(dir: string, material: OutputMaterial, onKubernetes: boolean): void {
  if (dir === "") return;
  const mode = onKubernetes ? 0o644 : 0o600;
  const { privateKey, certificateChain, rootCert } = material;
  if (privateKey === undefined && certificateChain === undefined && rootCert === undefined)
    throw new Error("the input private key, cert chain, and root cert are nil");
  for (const [name, data] of [
    ["key.pem", privateKey],
    ["cert-chain.pem", certificateChain],
    ["root-cert.pem", rootCert],
  ] as const) {
    if (data === undefined) continue;
    const path = join(dir, name);
    let old: string | undefined;
    try {
      old = readFileSync(path, "utf8");
    } catch {
      old = undefined;
    }
    if (old === data) continue;
    try {
      atomicWrite(path, data, mode);
    } catch (error) {
      throw new Error(`failed to write data to file ${name}: ${(error as Error).message}`);
    }
  }
}
