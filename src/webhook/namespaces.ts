/**
 * Where the webhook finds a pod's Namespace (on OpenShift the proxy UID/GID come from its
 * annotations, src/webhook/openshift.ts): a fixed list (tests, the conformance runner, a file), or
 * the Kubernetes API server the pod runs in.
 *
 * The in-cluster source is a deliberately small client: `GET /api/v1/namespaces/NAME` on
 * `https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT`, authenticated with the mounted
 * service-account token, verified with the mounted CA, within a short timeout. Answers are cached
 * (30 s by default; failures for 5 s, so an unreachable API server does not slow every admission
 * down by the timeout), and concurrent lookups of one name share one request. It never throws: a
 * failure is a lookup without a namespace and the reason, and the webhook then uses 1337.
 *
 * The service account needs `get` on `namespaces` (a ClusterRole) and its token mounted; see
 * deploy/README.md.
 */

import { readFile } from "node:fs/promises";
import { request } from "node:https";
import type { NamespaceLike } from "./openshift.js";

/** A Namespace, or why there is none. */
export type NamespaceLookup = { namespace: NamespaceLike } | { namespace?: undefined; reason: string };

export interface NamespaceSource {
  /** Never rejects. */
  get(name: string): Promise<NamespaceLookup>;
}

/** A source over a fixed list of Namespaces (matched by metadata.name). */
export function staticNamespaces(list: readonly NamespaceLike[]): NamespaceSource {
  const byName = new Map<string, NamespaceLike>();
  for (const ns of list) {
    const name = ns.metadata?.name;
    if (typeof name === "string" && !byName.has(name)) byName.set(name, ns);
  }
  return {
    get: async (name) => {
      const namespace = byName.get(name);
      return namespace === undefined
        ? { reason: `namespace ${JSON.stringify(name)} is not in the list` }
        : { namespace };
    },
  };
}

export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

export interface InClusterOptions {
  /** The API server; default $KUBERNETES_SERVICE_HOST and $KUBERNETES_SERVICE_PORT (443 when unset). */
  host?: string;
  port?: number;
  /** Default SERVICE_ACCOUNT_DIR/token (read again on every request: projected tokens rotate). */
  tokenFile?: string;
  /** Default SERVICE_ACCOUNT_DIR/ca.crt. */
  caFile?: string;
  /** How long an answer is reused (ms). Default 30 000. */
  ttlMs?: number;
  /** How long a failure is reused (ms). Default 5 000. */
  failureTtlMs?: number;
  /** Bound on one request (ms). Default 2 000. */
  timeoutMs?: number;
  /** Cached names at most (the oldest entry goes first). Default 1 000. */
  maxEntries?: number;
  /** Clock for the cache (tests). */
  now?: () => number;
  env?: Record<string, string | undefined>;
}

/** Largest Namespace answer read; a Namespace is a few KiB at most. */
const MAX_BODY_BYTES = 1 << 20;

interface Entry {
  expires: number;
  lookup: Promise<NamespaceLookup>;
}

/** A source reading Namespaces from the API server the webhook runs in, cached. */
export function inClusterNamespaces(options: InClusterOptions = {}): NamespaceSource {
  const env = options.env ?? process.env;
  const host = options.host ?? env.KUBERNETES_SERVICE_HOST;
  const port = options.port ?? Number(env.KUBERNETES_SERVICE_PORT ?? 443);
  const tokenFile = options.tokenFile ?? `${SERVICE_ACCOUNT_DIR}/token`;
  const caFile = options.caFile ?? `${SERVICE_ACCOUNT_DIR}/ca.crt`;
  const ttlMs = options.ttlMs ?? 30_000;
  const failureTtlMs = options.failureTtlMs ?? 5_000;
  const timeoutMs = options.timeoutMs ?? 2_000;
  const maxEntries = options.maxEntries ?? 1_000;
  const now = options.now ?? Date.now;
  const cache = new Map<string, Entry>();

  async function fetchNamespace(name: string): Promise<NamespaceLookup> {
    if (host === undefined || host === "") {
      return { reason: "not running in a cluster: KUBERNETES_SERVICE_HOST is not set" };
    }
    if (!Number.isInteger(port) || port <= 0 || port > 65535) {
      return { reason: `bad API server port ${JSON.stringify(env.KUBERNETES_SERVICE_PORT)}` };
    }
    let token: string;
    let ca: string;
    try {
      [token, ca] = await Promise.all([readFile(tokenFile, "utf8"), readFile(caFile, "utf8")]);
    } catch (e) {
      return { reason: `cannot read the service-account credentials: ${(e as Error).message}` };
    }
    const path = `/api/v1/namespaces/${encodeURIComponent(name)}`;
    try {
      const res = await get({ host, port, path, token: token.trim(), ca, timeoutMs });
      if (res.status === 200) {
        const body: unknown = JSON.parse(res.body);
        if (typeof body !== "object" || body === null || (body as { kind?: unknown }).kind !== "Namespace") {
          return { reason: `GET ${path}: the answer is not a Namespace` };
        }
        return { namespace: body as NamespaceLike };
      }
      const hint =
        res.status === 401 || res.status === 403
          ? " (the service account needs `get` on namespaces, token mounted)"
          : "";
      return { reason: `GET ${path}: HTTP ${res.status}${hint}: ${statusMessage(res.body)}` };
    } catch (e) {
      return { reason: `GET ${path}: ${(e as Error).message}` };
    }
  }

  return {
    get(name) {
      if (name === "") return Promise.resolve({ reason: "the pod has no namespace" });
      const t = now();
      const hit = cache.get(name);
      if (hit !== undefined && hit.expires > t) return hit.lookup;
      cache.delete(name);
      // Entered before it resolves, so concurrent lookups of the name share the request; its
      // lifetime is set once the answer is known.
      const entry: Entry = { expires: Number.POSITIVE_INFINITY, lookup: fetchNamespace(name) };
      cache.set(name, entry);
      while (cache.size > maxEntries) cache.delete(cache.keys().next().value as string);
      void entry.lookup.then((lookup) => {
        entry.expires = now() + (lookup.namespace === undefined ? failureTtlMs : ttlMs);
      });
      return entry.lookup;
    },
  };
}

/** The `message` of a Kubernetes Status body, or the start of the body. */
export function statusMessage(body: string): string {
  try {
    const message = (JSON.parse(body) as { message?: unknown }).message;
    if (typeof message === "string") return message;
  } catch {
    // not JSON: show the text
  }
  return body.slice(0, 200);
}

export interface GetOptions {
  host: string;
  port: number;
  path: string;
  token: string;
  ca: string;
  timeoutMs: number;
  /** Largest answer read (default 1 MiB). */
  maxBytes?: number;
}

/** One authenticated GET to the API server, bounded in time and size (also src/webhook/istiod-check.ts). */
export function get(o: GetOptions): Promise<{ status: number; body: string }> {
  return new Promise((resolveGet, rejectGet) => {
    let timer: NodeJS.Timeout | undefined;
    const resolve = (v: { status: number; body: string }) => {
      clearTimeout(timer);
      resolveGet(v);
    };
    const reject = (e: Error) => {
      clearTimeout(timer);
      rejectGet(e);
    };
    const req = request(
      {
        host: o.host,
        port: o.port,
        path: o.path,
        method: "GET",
        headers: { authorization: `Bearer ${o.token}`, accept: "application/json" },
        ca: o.ca,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (c: Buffer) => {
          size += c.length;
          const max = o.maxBytes ?? MAX_BODY_BYTES;
          if (size > max) req.destroy(new Error(`answer larger than ${max} bytes`));
          else chunks.push(c);
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    timer = setTimeout(() => req.destroy(new Error(`no answer within ${o.timeoutMs} ms`)), o.timeoutMs);
    req.on("error", reject);
    req.end();
  });
}
