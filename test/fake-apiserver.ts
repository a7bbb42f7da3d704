// A small fake of ours standing in for kube-apiserver, which cannot be installed on these machines:
// HTTPS (a self-signed certificate the kubeconfig trusts), bearer-token authentication, and the few
// read endpoints meshinject uses (discovery, namespaces, configmaps, mutatingwebhookconfigurations,
// deployments and the other workloads, pods, with labelSelector on lists), answering from fixture
// objects with the API server's Status bodies for errors. A route can be scripted to answer another
// status, or slowly, to exercise the client's error paths.
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { selfSignedCertificate } from "../src/webhook/tls-self-signed.js";

type Obj = Record<string, unknown>;

export interface FakeApiServer {
  url: string;
  /** Every request's method and path (with query), in order. */
  requests: string[];
  /** Answers `status` (with a Status body) to requests whose path starts with `prefix`. */
  failOn(prefix: string, status: number): void;
  /** Waits `ms` before answering requests whose path starts with `prefix`. */
  delayOn(prefix: string, ms: number): void;
  /** Forgets the scripted failures and delays. */
  reset(): void;
  /** Writes a kubeconfig for this server (context `fake`, the given token) into `dir`; its path. */
  kubeconfig(dir: string, token?: string): Promise<string>;
  close(): Promise<void>;
}

const RESOURCES: Record<string, { group: string; kind: string; namespaced: boolean }> = {
  namespaces: { group: "/api/v1", kind: "Namespace", namespaced: false },
  configmaps: { group: "/api/v1", kind: "ConfigMap", namespaced: true },
  pods: { group: "/api/v1", kind: "Pod", namespaced: true },
  deployments: { group: "/apis/apps/v1", kind: "Deployment", namespaced: true },
  statefulsets: { group: "/apis/apps/v1", kind: "StatefulSet", namespaced: true },
  daemonsets: { group: "/apis/apps/v1", kind: "DaemonSet", namespaced: true },
  jobs: { group: "/apis/batch/v1", kind: "Job", namespaced: true },
  cronjobs: { group: "/apis/batch/v1", kind: "CronJob", namespaced: true },
  mutatingwebhookconfigurations: {
    group: "/apis/admissionregistration.k8s.io/v1",
    kind: "MutatingWebhookConfiguration",
    namespaced: false,
  },
};

function status(code: number, reason: string, message: string): Obj {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code };
}

function matchesSelector(obj: Obj, selector: string | null): boolean {
  if (!selector) return true;
  const labels = ((obj.metadata as Obj | undefined)?.labels ?? {}) as Record<string, string>;
  return selector.split(",").every((term) => {
    const [k, v] = term.split("=");
    return k !== undefined && labels[k] === v;
  });
}

/** Starts the fake on 127.0.0.1 (an ephemeral port) serving `objects` to clients with `token`. */
export async function startFakeApiServer(objects: Obj[], token = "test-token"): Promise<FakeApiServer> {
  const { cert, key } = selfSignedCertificate({ hosts: ["127.0.0.1", "localhost"] });
  const failures = new Map<string, number>();
  const delays = new Map<string, number>();
  const requests: string[] = [];
  const byPath = (prefix: string, map: Map<string, number>) =>
    [...map.entries()].find(([p]) => prefix.startsWith(p))?.[1];

  const server: Server = createServer({ cert, key }, async (req, res) => {
    const url = new URL(req.url ?? "/", "https://fake");
    requests.push(`${req.method} ${url.pathname}${url.search}`);
    const send = (code: number, body: Obj) => {
      res.writeHead(code, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    const delay = byPath(url.pathname, delays);
    if (delay !== undefined) await new Promise((r) => setTimeout(r, delay));
    if (req.headers.authorization !== `Bearer ${token}`) {
      send(401, status(401, "Unauthorized", "Unauthorized"));
      return;
    }
    const failure = byPath(url.pathname, failures);
    if (failure !== undefined) {
      send(failure, status(failure, failure === 403 ? "Forbidden" : "InternalError", `scripted ${failure}`));
      return;
    }
    if (url.pathname === "/api") {
      send(200, { kind: "APIVersions", versions: ["v1"] });
      return;
    }
    if (url.pathname === "/apis") {
      const groups = ["apps", "batch", "admissionregistration.k8s.io"].map((name) => ({
        name,
        versions: [{ groupVersion: `${name}/v1`, version: "v1" }],
      }));
      send(200, { kind: "APIGroupList", apiVersion: "v1", groups });
      return;
    }
    const m = /^(\/api\/v1|\/apis\/[^/]+\/v1)(?:\/namespaces\/([^/]+))?\/([a-z]+)(?:\/([^/]+))?$/.exec(url.pathname);
    const resource = m ? RESOURCES[m[3] ?? ""] : undefined;
    // A namespace itself: /api/v1/namespaces/NAME.
    const nsItself = /^\/api\/v1\/namespaces\/([^/]+)$/.exec(url.pathname);
    const [group, namespace, plural, name] = nsItself
      ? ["/api/v1", undefined, "namespaces", nsItself[1]]
      : [m?.[1], m?.[2], m?.[3], m?.[4]];
    const def = nsItself ? RESOURCES.namespaces : resource;
    if (def === undefined || def.group !== group || (def.namespaced && namespace === undefined && name !== undefined)) {
      send(404, status(404, "NotFound", "the server could not find the requested resource"));
      return;
    }
    const candidates = objects.filter((o) => {
      const meta = (o.metadata ?? {}) as Obj;
      return o.kind === def.kind && (!def.namespaced || namespace === undefined || meta.namespace === namespace);
    });
    if (name !== undefined) {
      const found = candidates.find((o) => (o.metadata as Obj | undefined)?.name === name);
      if (found === undefined) send(404, status(404, "NotFound", `${plural} "${name}" not found`));
      else send(200, found);
      return;
    }
    const all = candidates.filter((o) => matchesSelector(o, url.searchParams.get("labelSelector")));
    // Chunking as the API server does it: `limit` items from the `continue` token's offset on.
    const limit = Number(url.searchParams.get("limit") ?? "0");
    const from = Number(url.searchParams.get("continue") ?? "0");
    const items = limit > 0 ? all.slice(from, from + limit) : all;
    const more = limit > 0 && from + limit < all.length;
    const metadata = more ? { continue: String(from + limit) } : {};
    send(200, { kind: `${def.kind}List`, apiVersion: group?.replace(/^\/apis?\//, "") ?? "v1", metadata, items });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    failOn: (prefix, code) => failures.set(prefix, code),
    delayOn: (prefix, ms) => delays.set(prefix, ms),
    reset: () => {
      failures.clear();
      delays.clear();
    },
    kubeconfig: async (dir, clientToken = token) => {
      const path = join(dir, `kubeconfig-${clientToken}`);
      const ca = Buffer.from(cert).toString("base64");
      await writeFile(
        path,
        `apiVersion: v1
kind: Config
clusters:
- name: fake
  cluster: {server: "${url}", certificate-authority-data: ${ca}}
users:
- name: tester
  user: {token: ${clientToken}}
contexts:
- name: fake
  context: {cluster: fake, user: tester}
current-context: fake
`,
      );
      return path;
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

/**
 * A plainer fake for code that runs inside a pod (the webhook's namespace reads, its istiod check):
 * HTTPS on loopback and the service-account files a pod would have (a token and the CA) in a
 * temporary folder, with no fixtures: each request is recorded and `handler` answers it.
 */
export interface InClusterApiServer {
  port: number;
  /** The temporary folder: `token`, `ca.crt`, and room for more. */
  dir: string;
  tokenFile: string;
  caFile: string;
  /** The requests so far: path and Authorization header. */
  seen: { path: string | undefined; auth: string | undefined }[];
  /** Answers each request; replace it per test (by default it never answers). */
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  /** The environment a pod gets for its API server. */
  env(): Record<string, string>;
  close(): Promise<void>;
}

export async function startInClusterApiServer(token = "secret-token"): Promise<InClusterApiServer> {
  const cert = selfSignedCertificate({ hosts: ["127.0.0.1"] });
  const dir = await mkdtemp(join(tmpdir(), "meshinject-api-"));
  await writeFile(join(dir, "token"), `${token}\n`);
  await writeFile(join(dir, "ca.crt"), cert.cert);
  const server = createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
    fake.seen.push({ path: req.url, auth: req.headers.authorization });
    fake.handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const fake: InClusterApiServer = {
    port: (server.address() as AddressInfo).port,
    dir,
    tokenFile: join(dir, "token"),
    caFile: join(dir, "ca.crt"),
    seen: [],
    handler: () => {},
    env: () => ({ KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: String(fake.port) }),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
  return fake;
}
