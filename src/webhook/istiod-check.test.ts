// serve's start-up check for istiod's injection webhook, against a small fake API server of ours
// over HTTPS on loopback (no kube-apiserver here): it answers GET on the
// mutatingwebhookconfigurations collection with a list, a refusal, garbage, or nothing at all.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import {
  checkIstiodWebhooks,
  type IstiodCheckOptions,
  overlappingIstiodWebhooks,
  warnAboutIstiodWebhooks,
} from "./istiod-check.js";
import { createLogger } from "./logging.js";
import { selfSignedCertificate } from "./tls-self-signed.js";
import { defaultExcludedNamespaces, webhookConfiguration } from "./webhook-config.js";

/** istiod's own configuration for a revision, as its chart names and labels it. */
function istiods(revision = "") {
  const c = webhookConfiguration({ revision, istioNames: true }) as { metadata: { labels: Record<string, string> } };
  delete c.metadata.labels["app.kubernetes.io/part-of"];
  return c;
}
const ours = (revision = "") =>
  webhookConfiguration({ revision, excludeNamespaces: defaultExcludedNamespaces("istio-system") });
const unrelated = {
  metadata: { name: "cert-manager-webhook" },
  webhooks: [{ name: "webhook.cert-manager.io", rules: [] }],
};

describe("overlappingIstiodWebhooks", () => {
  it("istiod's configuration of the same revision overlaps; ours, other revisions and other webhooks do not", () => {
    const found = overlappingIstiodWebhooks([istiods(), ours(), unrelated, istiods("canary")], ours(), "");
    assert.deepEqual(
      found.map((o) => o.configuration),
      ["istio-sidecar-injector"],
    );
    assert.ok(found[0]?.webhooks.length);
    // A canary injector of ours meets istiod-canary, not the default istiod.
    const canary = overlappingIstiodWebhooks([istiods(), istiods("canary")], ours("canary"), "canary");
    assert.deepEqual(
      canary.map((o) => o.configuration),
      ["istio-sidecar-injector-canary"],
    );
    // A deactivated istiod configuration (istioctl tag set default) selects nothing.
    const off = webhookConfiguration({ istioNames: true, deactivated: true }) as { metadata: { labels: Json } };
    delete off.metadata.labels["app.kubernetes.io/part-of"];
    assert.deepEqual(overlappingIstiodWebhooks([off], ours(), ""), []);
    // Garbage in the list is skipped, not thrown on.
    assert.deepEqual(overlappingIstiodWebhooks([null, 42, { webhooks: "x" }], ours(), ""), []);
  });
});

type Json = Record<string, unknown>;

describe("checkIstiodWebhooks against a fake API server (HTTPS, loopback)", () => {
  const cert = selfSignedCertificate({ hosts: ["127.0.0.1"] });
  let dir: string;
  let server: Server;
  let port: number;
  let answer: (res: import("node:http").ServerResponse) => void = () => {};
  const seen: { path?: string | undefined; auth?: string | undefined; method?: string | undefined }[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "meshinject-istiod-check-"));
    await writeFile(join(dir, "token"), "the-token\n");
    await writeFile(join(dir, "ca.crt"), cert.cert);
    server = createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
      seen.push({ path: req.url, auth: req.headers.authorization, method: req.method });
      answer(res);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  });

  const options = (extra: Partial<IstiodCheckOptions> = {}): IstiodCheckOptions => ({
    revision: "",
    namespace: "istio-system",
    env: { KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: String(port) },
    tokenFile: join(dir, "token"),
    caFile: join(dir, "ca.crt"),
    timeoutMs: 1_000,
    ...extra,
  });
  const json = (status: number, body: unknown) => (res: import("node:http").ServerResponse) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };

  /** The log lines of one warnAboutIstiodWebhooks run. */
  async function logged(o: IstiodCheckOptions): Promise<{ level: string; msg: string }[]> {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _enc, done) {
        lines.push(...String(chunk).split("\n").filter(Boolean));
        done();
      },
    });
    const logger = createLogger({ level: "info", destination });
    await warnAboutIstiodWebhooks(o, logger);
    return lines.map((l) => JSON.parse(l) as { level: string; msg: string });
  }

  it("one authenticated GET on the collection; istiod's webhook is a warning naming it", async () => {
    seen.length = 0;
    answer = json(200, { kind: "MutatingWebhookConfigurationList", items: [ours(), istiods()] });
    const lines = await logged(options());
    assert.deepEqual(seen, [
      {
        path: "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
        auth: "Bearer the-token",
        method: "GET",
      },
    ]);
    const warnings = lines.filter((l) => l.level === "warn");
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]?.msg ?? "", /istio-sidecar-injector also injects the pods this injector serves/);
  });

  it("only ours (or none): no warning", async () => {
    answer = json(200, { items: [ours(), unrelated] });
    const lines = await logged(options());
    assert.equal(lines.filter((l) => l.level === "warn" || l.level === "error").length, 0);
    assert.match(lines.map((l) => l.msg).join("\n"), /no istiod injection webhook targets/);
  });

  it("RBAC forbids, garbage, no answer, nothing listening, no token, not in a cluster: one info line, never a throw", async () => {
    answer = json(403, { kind: "Status", message: 'mutatingwebhookconfigurations is forbidden: User "x" cannot list' });
    const forbidden = await checkIstiodWebhooks(options());
    assert.equal(forbidden.checked, false);
    assert.match(
      forbidden.checked ? "" : forbidden.reason,
      /HTTP 403 \(needs get\/list .*webhook-reader\.yaml\): .*forbidden/,
    );

    answer = (res) => res.end("not json");
    assert.equal((await checkIstiodWebhooks(options())).checked, false);

    answer = () => {}; // never answers
    const started = Date.now();
    const slow = await checkIstiodWebhooks(options({ timeoutMs: 200 }));
    assert.match(slow.checked ? "" : slow.reason, /no answer within 200 ms/);
    assert.ok(Date.now() - started < 5_000);

    const closed = await checkIstiodWebhooks(
      options({ env: { KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: "1" } }),
    );
    assert.equal(closed.checked, false);
    const tokenless = await checkIstiodWebhooks(options({ tokenFile: join(dir, "missing") }));
    assert.match(tokenless.checked ? "" : tokenless.reason, /no service-account token mounted/);
    const outside = await checkIstiodWebhooks(options({ env: {} }));
    assert.match(outside.checked ? "" : outside.reason, /not in a cluster/);

    answer = json(403, { message: "forbidden" });
    const lines = await logged(options());
    assert.deepEqual(
      lines.map((l) => [l.level, l.msg]),
      [["info", "did not check for istiod's injection webhook"]],
    );
  });
});
