/**
 * The SDS server's settings from the agent's environment, as pilot-agent reads them: `CA_ADDR`
 * (default: the proxy config's discoveryAddress), `TRUST_DOMAIN` (cluster.local), `POD_NAMESPACE`
 * and `SERVICE_ACCOUNT`, `ISTIO_META_CLUSTER_ID` (Kubernetes), `SECRET_TTL` (a Go duration, 24h),
 * `SECRET_GRACE_PERIOD_RATIO` (0.5), `ECC_SIGNATURE_ALGORITHM` (`ECDSA` → P-256; empty → RSA, as in
 * Istio) with `WORKLOAD_RSA_KEY_SIZE` (2048), and `OUTPUT_CERTS` as the directory of file-mounted
 * certificates (else `<root>/etc/certs`). Values that do not parse fall back to the default, as
 * Istio's env package does.
 */
import { join } from "node:path";
import { parseDuration } from "../../go/time/duration.js";
import { FILE_CERTS_DIR, type SdsServerOptions } from "./server.js";

type Env = Record<string, string | undefined>;

function number(env: Env, name: string, fallback: number, ok: (n: number) => boolean): number {
  const text = env[name];
  if (text === undefined || text.trim() === "") return fallback;
  const n = Number(text);
  return Number.isFinite(n) && ok(n) ? n : fallback;
}

function ttlSeconds(env: Env): number {
  const text = env.SECRET_TTL;
  if (!text) return 86_400;
  try {
    const ns = parseDuration(text);
    return ns > 0n ? Math.max(1, Number(ns / 1_000_000_000n)) : 86_400;
  } catch {
    return 86_400;
  }
}

export function sdsOptionsFromEnv(env: Env, agent: { root?: string; discoveryAddress: string }): SdsServerOptions {
  const root = agent.root ?? "/";
  return {
    root,
    ca: { address: env.CA_ADDR || agent.discoveryAddress, clusterId: env.ISTIO_META_CLUSTER_ID || "Kubernetes" },
    trustDomain: env.TRUST_DOMAIN || "cluster.local",
    namespace: env.POD_NAMESPACE || "default",
    serviceAccount: env.SERVICE_ACCOUNT || "default",
    keyType: env.ECC_SIGNATURE_ALGORITHM === "ECDSA" ? "ECDSA" : "RSA",
    rsaBits: number(env, "WORKLOAD_RSA_KEY_SIZE", 2048, (n) => Number.isInteger(n) && n >= 2048),
    ttlSeconds: ttlSeconds(env),
    graceRatio: number(env, "SECRET_GRACE_PERIOD_RATIO", 0.5, (n) => n >= 0 && n <= 1),
    fileCertsDir: env.OUTPUT_CERTS || join(root, FILE_CERTS_DIR),
  };
}
