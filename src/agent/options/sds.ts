/**
 * The SDS server's slice of the agent's options, as pilot-agent reads them (options.go,
 * security.go): `CA_ADDR` (default: the proxy config's discoveryAddress), `TRUST_DOMAIN`
 * (cluster.local), `SERVICE_ACCOUNT`, the pod's namespace and cluster ID (read once by the agent),
 * `SECRET_TTL` (a Go duration, 24h), `SECRET_GRACE_PERIOD_RATIO` (0.5), `ECC_SIGNATURE_ALGORITHM`
 * (`ECDSA` → P-256; empty → RSA, as in Istio) with `WORKLOAD_RSA_KEY_SIZE` (2048), and
 * `OUTPUT_CERTS` as the directory of file-mounted certificates (else `<root>/etc/certs`). Values that
 * do not parse are warned about and the default is used (./env.ts, Istio's pkg/env); a TTL that is
 * not positive, a ratio outside [0, 1] and an RSA size under 2048 are taken as the default too.
 */
import { join } from "node:path";
import { FILE_CERTS_DIR, type SdsServerOptions } from "../sds/server.js";
import { type EnvVars, envReader } from "./env.js";

const DAY_NS = 86_400n * 1_000_000_000n;

export function sdsOptionsFromEnv(
  env: EnvVars,
  agent: {
    root?: string;
    discoveryAddress: string;
    /** POD_NAMESPACE and ISTIO_META_CLUSTER_ID, as the agent read them. */
    namespace?: string;
    clusterId?: string;
    warn?: (line: string) => void;
  },
): SdsServerOptions {
  const root = agent.root ?? "/";
  const read = envReader(env, agent.warn);
  const rsaBits = read.int("WORKLOAD_RSA_KEY_SIZE", 2048);
  const ttl = read.duration("SECRET_TTL", DAY_NS);
  const graceRatio = read.float("SECRET_GRACE_PERIOD_RATIO", 0.5);
  return {
    root,
    ca: { address: read.string("CA_ADDR") || agent.discoveryAddress, clusterId: agent.clusterId || "Kubernetes" },
    trustDomain: read.string("TRUST_DOMAIN") || "cluster.local",
    namespace: agent.namespace || "default",
    serviceAccount: read.string("SERVICE_ACCOUNT") || "default",
    keyType: read.string("ECC_SIGNATURE_ALGORITHM") === "ECDSA" ? "ECDSA" : "RSA",
    rsaBits: Math.max(rsaBits, 2048),
    ttlSeconds: ttl > 0n ? Math.max(1, Number(ttl / 1_000_000_000n)) : 86_400,
    graceRatio: graceRatio >= 0 && graceRatio <= 1 ? graceRatio : 0.5,
    fileCertsDir: read.string("OUTPUT_CERTS") || join(root, FILE_CERTS_DIR),
  };
}
