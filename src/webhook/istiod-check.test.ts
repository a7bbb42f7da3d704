// serve's start-up check for istiod's injection webhook, against a small fake API server of ours
// over HTTPS on loopback (no kube-apiserver here): it answers GET on the
// mutatingwebhookconfigurations collection with a list, a refusal, garbage, or nothing at all.
import assert from "node:assert/strict";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { type InClusterApiServer, startInClusterApiServer } from "../../test/fake-apiserver.js";
import {
  checkIstiodWebhooks,
  type IstiodCheckOptions,
  overlappingIstiodWebhooks,
  warnAboutIstiodWebhooks,
} from "./istiod-check.js";
import { createLogger } from "./logging.js";
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
  let api: InClusterApiServer;
  before(async () => {
    api = await startInClusterApiServer("the-token");
  });
  after(() => api.close());

  const options = (extra: Partial<IstiodCheckOptions> = {}): IstiodCheckOptions => ({
    revision: "",
    namespace: "istio-system",
    env: api.env(),
    tokenFile: api.tokenFile,
    caFile: api.caFile,
    timeoutMs: 1_000,
    ...extra,
  });
  const json = (status: number, body: unknown) => (_req: IncomingMessage, res: ServerResponse) => {
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
    api.seen.length = 0;
    api.handler = json(200, { kind: "MutatingWebhookConfigurationList", items: [ours(), istiods()] });
    const lines = await logged(options());
    assert.deepEqual(api.seen, [
      { path: "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations", auth: "Bearer the-token" },
    ]);
    const warnings = lines.filter((l) => l.level === "warn");
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]?.msg ?? "", /istio-sidecar-injector also injects the pods this injector serves/);
  });

  it("only ours (or none): no warning", async () => {
    api.handler = json(200, { items: [ours(), unrelated] });
    const lines = await logged(options());
    assert.equal(lines.filter((l) => l.level === "warn" || l.level === "error").length, 0);
    assert.match(lines.map((l) => l.msg).join("\n"), /no istiod injection webhook targets/);
  });

  it("RBAC forbids, garbage, no answer, nothing listening, no token, not in a cluster: one info line, never a throw", async () => {
    api.handler = json(403, {
      kind: "Status",
      message: 'mutatingwebhookconfigurations is forbidden: User "x" cannot list',
    });
    const forbidden = await checkIstiodWebhooks(options());
    assert.equal(forbidden.checked, false);
    assert.match(
      forbidden.checked ? "" : forbidden.reason,
      /HTTP 403 \(needs get\/list .*webhook-reader\.yaml\): .*forbidden/,
    );

    api.handler = (_req: IncomingMessage, res: ServerResponse) => res.end("not json");
    assert.equal((await checkIstiodWebhooks(options())).checked, false);

    api.handler = () => {}; // never answers
    const started = Date.now();
    const slow = await checkIstiodWebhooks(options({ timeoutMs: 200 }));
    assert.match(slow.checked ? "" : slow.reason, /no answer within 200 ms/);
    assert.ok(Date.now() - started < 5_000);

    const closed = await checkIstiodWebhooks(
      options({ env: { KUBERNETES_SERVICE_HOST: "127.0.0.1", KUBERNETES_SERVICE_PORT: "1" } }),
    );
    assert.equal(closed.checked, false);
    const tokenless = await checkIstiodWebhooks(options({ tokenFile: join(api.dir, "missing") }));
    assert.match(tokenless.checked ? "" : tokenless.reason, /no service-account token mounted/);
    const outside = await checkIstiodWebhooks(options({ env: {} }));
    assert.match(outside.checked ? "" : outside.reason, /not in a cluster/);

    api.handler = json(403, { message: "forbidden" });
    const lines = await logged(options());
    assert.deepEqual(
      lines.map((l) => [l.level, l.msg]),
      [["info", "did not check for istiod's injection webhook"]],
    );
  });
});
