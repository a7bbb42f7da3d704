/**
 * Reading a few objects from the cluster of the current kube context, as istioctl does: the
 * connection and credentials come from @kubernetes/client-node's KubeConfig (a kubeconfig file,
 * `--kubeconfig`, `--context`, or the pod's service account in-cluster); each read is one GET of the
 * object's JSON over HTTPS (or plain HTTP to a `kubectl proxy`) with a time limit. Plain JSON is what the rest of meshinject reads (a pod
 * template exactly as the API server returns it), so the typed API classes are not used.
 * Every failure is a {@link ClusterError} with one line saying what was tried and what happened.
 */

import type { RequestOptions } from "node:https";
import type { KubeConfig } from "@kubernetes/client-node";

/** A cluster read that failed; the message is one line: what, where, why. */
export class ClusterError extends Error {
  override name = "ClusterError";
  constructor(
    message: string,
    /** The HTTP status, when the API server answered. */
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface ClusterOptions {
  /** A kubeconfig file; default: $KUBECONFIG, ~/.kube/config, else the in-cluster service account. */
  kubeconfig?: string;
  /** A context of the kubeconfig; default: its current context. */
  context?: string;
  /** How long one request may take, in milliseconds (default 15 s). */
  timeoutMs?: number;
}

/** The few reads meshinject makes. `path` is the API path, e.g. `/api/v1/namespaces/shop`. */
export interface Cluster {
  /** Where the client connects (`https://host:port`, context NAME), for messages. */
  readonly where: string;
  /** The object's JSON; a ClusterError (with `status` 404 when it does not exist) otherwise. */
  get(path: string, what: string): Promise<unknown>;
  /**
   * The items of a collection (`path` without a query, or with one of its own), read a page at a
   * time with the API server's `limit` and `continue` (so a large cluster's pods are never held all
   * at once); each item as the list gives it (without kind and apiVersion).
   */
  list(path: string, what: string, pageSize?: number): AsyncGenerator<Record<string, unknown>[]>;
}

/** The most pages one list may take (a bound on a server that keeps answering `continue`). */
const MAX_PAGES = 100_000;

/** Pages of a collection through `get`, with `limit` and `continue` (the API server's chunking). */
async function* listPages(
  get: Cluster["get"],
  path: string,
  what: string,
  pageSize: number,
): AsyncGenerator<Record<string, unknown>[]> {
  let token = "";
  for (let page = 0; page < MAX_PAGES; page++) {
    const sep = path.includes("?") ? "&" : "?";
    const query = `limit=${pageSize}${token ? `&continue=${encodeURIComponent(token)}` : ""}`;
    const list = (await get(`${path}${sep}${query}`, what)) as { items?: unknown; metadata?: { continue?: unknown } };
    const items = Array.isArray(list?.items)
      ? list.items.filter((i): i is Record<string, unknown> => typeof i === "object" && i !== null && !Array.isArray(i))
      : [];
    yield items;
    const next = list?.metadata?.continue;
    if (typeof next !== "string" || next === "") return;
    token = next;
  }
  throw new ClusterError(`cannot read ${what}: more than ${MAX_PAGES} pages`);
}

const STATUS_WORDS: Record<number, string> = {
  401: "unauthorized: the cluster refused the credentials",
  403: "forbidden: the credentials may not read it",
  404: "not found",
  500: "the API server failed",
  503: "the API server is unavailable",
};

/** The API server's own reason from a Status body, on one line. */
function statusMessage(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { message?: unknown };
    return typeof parsed.message === "string" ? parsed.message.replace(/\s+/g, " ") : undefined;
  } catch {
    return undefined;
  }
}

async function loadKubeConfig(options: ClusterOptions): Promise<KubeConfig> {
  // Loaded only by the commands that talk to a cluster, so the others start without it.
  const { KubeConfig } = await import("@kubernetes/client-node");
  const kc = new KubeConfig();
  try {
    if (options.kubeconfig !== undefined) kc.loadFromFile(options.kubeconfig);
    else kc.loadFromDefault();
  } catch (e) {
    const from = options.kubeconfig ?? "the default kubeconfig";
    throw new ClusterError(`cannot load ${from}: ${(e as Error).message.replace(/\s+/g, " ")}`);
  }
  // With nothing to load, client-node falls back to an unauthenticated http://localhost:8080.
  const fallback =
    kc.getCurrentContext() === "loaded-context" && kc.getCurrentCluster()?.server === "http://localhost:8080";
  if (options.kubeconfig === undefined && fallback) {
    throw new ClusterError(
      "no kubeconfig: $KUBECONFIG is not set, ~/.kube/config does not exist and this is not a pod with a service account; pass --kubeconfig FILE",
    );
  }
  if (options.context !== undefined) {
    if (!kc.getContexts().some((c) => c.name === options.context)) {
      const known = kc.getContexts().map((c) => c.name);
      throw new ClusterError(
        `context ${JSON.stringify(options.context)} is not in the kubeconfig (contexts: ${known.join(", ") || "none"})`,
      );
    }
    kc.setCurrentContext(options.context);
  }
  return kc;
}

/** Connects to the cluster of the kube context (nothing is sent until the first read). */
export async function connectCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const kc = await loadKubeConfig(options);
  const cluster = kc.getCurrentCluster();
  if (cluster === null) {
    throw new ClusterError(
      `no cluster: the kubeconfig has no current context${options.kubeconfig ? ` (${options.kubeconfig})` : ""}`,
    );
  }
  const server = cluster.server.replace(/\/+$/, "");
  const context = kc.getCurrentContext();
  const where = `${server}${context ? `, context ${context}` : ""}`;
  const timeoutMs = options.timeoutMs ?? 15_000;

  const get = async (path: string, what: string): Promise<unknown> => {
    const url = new URL(server + path);
    // http:// is what `kubectl proxy` serves on loopback; everything else is https://.
    // Loaded here: only the commands that read a cluster need Node's HTTP and TLS stacks.
    const { request } = url.protocol === "http:" ? await import("node:http") : await import("node:https");
    const opts: RequestOptions = {
      method: "GET",
      headers: { accept: "application/json" },
      timeout: timeoutMs,
    };
    await kc.applyToHTTPSOptions(opts);
    return await new Promise<unknown>((resolve, reject) => {
      const fail = (message: string, status?: number) =>
        reject(new ClusterError(`cannot read ${what} from ${where}: ${message}`, status));
      const req = request(url, opts, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", (e) => fail(e.message));
        res.on("end", () => {
          const body = Buffer.concat(chunks).toString("utf8");
          const status = res.statusCode ?? 0;
          if (status < 200 || status > 299) {
            const words = STATUS_WORDS[status] ?? `HTTP ${status}`;
            const reason = statusMessage(body);
            fail(`${words} (${status}${reason ? `: ${reason}` : ""})`, status);
            return;
          }
          try {
            resolve(JSON.parse(body));
          } catch {
            fail(`the answer is not JSON (HTTP ${status}, content-type ${res.headers["content-type"] ?? "none"})`);
          }
        });
      });
      req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
      req.on("error", (e: NodeJS.ErrnoException) =>
        fail(e.code && !e.message.includes(e.code) ? `${e.code}: ${e.message}` : e.message),
      );
      req.end();
    });
  };
  return { where, get, list: (path, what, pageSize = 500) => listPages(get, path, what, pageSize) };
}
