// `meshinject check-inject`, run in-process: istioctl's table, the webhooks the API server calls, the
// injector's decision and the verdict for each workload, and one-line errors naming the document.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Command } from "commander";
import { assertFailed, type Run, recordingIo, runManifestCommand } from "../../test/manifest-command-run.js";
import { writeYaml } from "../go/yaml/write.js";
import { webhookConfiguration } from "../webhook/webhook-config.js";
import { checkInjectCommand } from "./check-inject.js";

function run(files: Record<string, string>, args: string[]): Promise<Run> {
  return runManifestCommand(checkInjectCommand, files, args);
}

function fullHelp(command: Command): string {
  let text = "";
  command.configureOutput({ writeOut: (s) => (text += s) }).outputHelp();
  return text;
}

/** A Pod; `meta` is extra YAML under metadata (two-space indent). */
const pod = (name: string, meta = "") =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\n${meta}spec:\n  containers:\n  - {name: app, image: app}\n`;

const deployment = (name: string, templateMeta = "") => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata:
      labels: {app: ${name}}
${templateMeta}    spec:
      containers:
      - {name: app, image: app}
`;

/** The section of `header` (`# Kind ns/name`) in the output. */
function section(stdout: string, header: string): string {
  const start = stdout.indexOf(`${header}\n`);
  assert.ok(start >= 0, `no ${header} in:\n${stdout}`);
  const end = stdout.indexOf("\n\n", start);
  return stdout.slice(start, end < 0 ? undefined : end);
}

const line = (text: string, prefix: string) => text.split("\n").find((l) => l.startsWith(prefix));

describe("meshinject check-inject", () => {
  it("namespace istio-injection=enabled: injected by namespace.sidecar-injector.istio.io", async () => {
    const r = await run({ "p.yaml": pod("web") }, [
      "-f",
      "p.yaml",
      "-n",
      "shop",
      "--namespace-labels",
      "istio-injection=enabled",
    ]);
    assert.equal(r.failed, false, r.stderr);
    assert.equal(r.stderr, "");
    const s = section(r.stdout, "# Pod shop/web");
    assert.equal(
      line(s, "namespace labels:"),
      "namespace labels: istio-injection=enabled, kubernetes.io/metadata.name=shop",
    );
    // istioctl's table: header and row aligned, two spaces after the widest cell of each column.
    assert.match(s, /^WEBHOOK {22}REVISION {2}INJECTED {2}REASON$/m);
    assert.match(
      s,
      /^meshinject-sidecar-injector {2}default {3}✔ {9}Namespace label istio-injection=enabled matches$/m,
    );
    assert.equal(
      line(s, "webhooks called:"),
      "webhooks called: namespace.sidecar-injector.istio.io (meshinject-sidecar-injector)",
    );
    assert.equal(line(s, "injector:"), 'injector: injected: the injection policy is "enabled"');
    assert.equal(
      line(s, "verdict:"),
      "verdict: injected by namespace.sidecar-injector.istio.io (meshinject-sidecar-injector)",
    );
    // The defaults assumed are said so, at the top.
    assert.match(
      r.stdout,
      /^# webhook configurations: assumed meshinject-sidecar-injector, as `meshinject webhook-config` generates/,
    );
    assert.match(r.stdout, /^# injector config: the built-in default/m);
    assert.doesNotMatch(r.stdout, /^# namespace labels: none given/m);
  });

  it("namespace istio.io/rev=canary with the default revision's config: not injected, istioctl's reason", async () => {
    const r = await run({ "p.yaml": pod("web") }, ["-f", "p.yaml", "--namespace-labels", "istio.io/rev=canary"]);
    assert.equal(r.failed, false, r.stderr);
    const s = section(r.stdout, "# Pod default/web");
    assert.match(
      s,
      /^meshinject-sidecar-injector {2}default {3}✘ {9}No matching namespace labels \(istio\.io\/rev=default, istio-injection=enabled\) or pod labels \(istio\.io\/rev=default, sidecar\.istio\.io\/inject=true\)$/m,
    );
    assert.equal(line(s, "webhooks called:"), "webhooks called: none");
    assert.equal(line(s, "injector:"), 'injector: injected: the injection policy is "enabled" (if it were called)');
    assert.match(line(s, "verdict:") ?? "", /^verdict: not injected: no injection webhook is called/);
  });

  it("pod label sidecar.istio.io/inject=false: the webhook's object selector excludes it", async () => {
    const labelled = pod("web", '  labels: {sidecar.istio.io/inject: "false"}\n');
    const r = await run({ "p.yaml": labelled }, ["-f", "p.yaml", "--namespace-labels", "istio-injection=enabled"]);
    assert.equal(r.failed, false, r.stderr);
    const s = section(r.stdout, "# Pod default/web");
    assert.match(s, /✘ {9}Pod has sidecar\.istio\.io\/inject=false label, preventing injection$/m);
    assert.equal(line(s, "webhooks called:"), "webhooks called: none");
    assert.match(line(s, "verdict:") ?? "", /^verdict: not injected: no injection webhook/);
  });

  it("annotation opt-out: the webhook is called, the injector skips the pod", async () => {
    const annotated = deployment("web", '      annotations: {sidecar.istio.io/inject: "false"}\n');
    const r = await run({ "d.yaml": annotated }, ["-f", "d.yaml", "--namespace-labels", "istio-injection=enabled"]);
    assert.equal(r.failed, false, r.stderr);
    const s = section(r.stdout, "# Deployment default/web");
    assert.match(s, /✔ {9}Namespace label istio-injection=enabled matches$/m);
    assert.equal(
      line(s, "webhooks called:"),
      "webhooks called: namespace.sidecar-injector.istio.io (meshinject-sidecar-injector)",
    );
    assert.equal(line(s, "injector:"), 'injector: not injected: annotation sidecar.istio.io/inject="false"');
    assert.equal(
      line(s, "verdict:"),
      "verdict: not injected: namespace.sidecar-injector.istio.io calls the injector, which skips the pod",
    );
  });

  it("a multi-document file: a section per workload (List items too), other kinds skipped", async () => {
    const svc = "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n";
    const list = `apiVersion: v1\nkind: List\nitems:\n- ${pod("in-list").replaceAll("\n", "\n  ").trimEnd()}\n`;
    const stream = [
      deployment("web"),
      svc,
      pod("opted-in", '  namespace: other\n  labels: {sidecar.istio.io/inject: "true"}\n'),
      list,
    ].join("---\n");
    const r = await run({ "all.yaml": stream }, ["-f", "all.yaml", "-n", "shop"]);
    assert.equal(r.failed, false, r.stderr);
    assert.deepEqual(r.stdout.match(/^# [A-Z]\w+ \S+$/gm), [
      "# Deployment shop/web",
      "# Pod other/opted-in",
      "# Pod shop/in-list",
    ]);
    assert.match(r.stdout, /^# namespace labels: none given/m);
    assert.match(line(section(r.stdout, "# Deployment shop/web"), "verdict:") ?? "", /^verdict: not injected/);
    const optedIn = section(r.stdout, "# Pod other/opted-in");
    assert.match(optedIn, /✔ {9}Pod label sidecar\.istio\.io\/inject=true matches$/m);
    assert.equal(
      line(optedIn, "verdict:"),
      "verdict: injected by object.sidecar-injector.istio.io (meshinject-sidecar-injector)",
    );
  });

  it("--webhook-config: the installed configurations (a List); several that inject are flagged", async () => {
    const list = writeYaml({
      apiVersion: "v1",
      kind: "List",
      items: [webhookConfiguration(), webhookConfiguration({ revision: "canary" })],
    });
    const tag = writeYaml(webhookConfiguration({ tag: "default", revision: "canary" }));
    const canary = await run({ "p.yaml": pod("web"), "mwc.yaml": list }, [
      "-f",
      "p.yaml",
      "--webhook-config",
      "mwc.yaml",
      "--namespace-labels",
      "istio.io/rev=canary",
    ]);
    assert.equal(canary.failed, false, canary.stderr);
    assert.doesNotMatch(canary.stdout, /assumed/);
    assert.match(
      canary.stdout,
      /^meshinject-sidecar-injector-canary {2}canary {4}✔ {9}Namespace label istio\.io\/rev=canary matches$/m,
    );
    assert.match(
      canary.stdout,
      /^verdict: injected by rev\.namespace\.sidecar-injector\.istio\.io \(meshinject-sidecar-injector-canary\)$/m,
    );

    const both = await run({ "p.yaml": pod("web"), "mwc.yaml": list, "tag.yaml": tag }, [
      "-f",
      "p.yaml",
      "--webhook-config",
      "mwc.yaml",
      "--webhook-config",
      "tag.yaml",
      "--namespace-labels",
      "istio-injection=enabled",
    ]);
    assert.equal(both.failed, false, both.stderr);
    assert.match(both.stdout, /^ERROR: multiple webhooks will inject, which can lead to errors$/m);
    assert.match(both.stdout, /^warning: 2 webhooks are called for the pod/m);
    assert.match(
      both.stdout,
      /^webhooks called: namespace\.sidecar-injector\.istio\.io \(meshinject-sidecar-injector\), namespace\.sidecar-injector\.istio\.io \(meshinject-revision-tag-default\)$/m,
    );
  });

  it("--namespace-file: the Namespace's labels, its name -n's default; --namespace-labels over them", async () => {
    const ns =
      "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  labels:\n    istio-injection: enabled\n    kubernetes.io/metadata.name: shop\n";
    const r = await run({ "p.yaml": pod("web"), "ns.yaml": ns }, ["-f", "p.yaml", "--namespace-file", "ns.yaml"]);
    assert.equal(r.failed, false, r.stderr);
    assert.match(line(section(r.stdout, "# Pod shop/web"), "verdict:") ?? "", /^verdict: injected by namespace\./);
    const off = await run({ "p.yaml": pod("web"), "ns.yaml": ns }, [
      "-f",
      "p.yaml",
      "--namespace-file",
      "ns.yaml",
      "--namespace-labels",
      "istio-injection=disabled",
    ]);
    assert.match(off.stdout, /✘ {9}Namespace has istio-injection=disabled label, preventing injection$/m);
    const elsewhere = await run({ "p.yaml": pod("web"), "ns.yaml": ns }, [
      "-f",
      "p.yaml",
      "-n",
      "dev",
      "--namespace-file",
      "ns.yaml",
    ]);
    // The only workload cannot be decided: reported as such, and the run fails (nothing decided).
    assert.equal(elsewhere.failed, true);
    assert.match(
      section(elsewhere.stdout, "# Pod dev/web"),
      /^verdict: undecided: namespace "dev" is not in --namespace-file \(it has shop\), so its labels are unknown; add that Namespace to the file \(kubectl get ns dev -o yaml\)$/m,
    );
    assert.equal(
      elsewhere.stderr,
      'meshinject: none of the 1 workload(s) could be decided; see "verdict: undecided" in the report\n',
    );
  });

  it("a workload that cannot be decided is marked with why; the others are still reported", async () => {
    const ns = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n  labels:\n    istio-injection: enabled\n";
    const files = {
      "p.yaml": `${pod("web", "  namespace: shop\n")}---\n${pod("api", "  namespace: other\n")}---\n${pod("db", "  namespace: shop\n  labels: {version: 2}\n")}`,
      "ns.yaml": ns,
    };
    const args = ["-f", "p.yaml", "--namespace-file", "ns.yaml"];
    const r = await run(files, args);
    assert.equal(r.failed, false, r.stderr);
    assert.match(line(section(r.stdout, "# Pod shop/web"), "verdict:") ?? "", /^verdict: injected by namespace\./);
    assert.match(
      section(r.stdout, "# Pod other/api"),
      /^verdict: undecided: namespace "other" is not in --namespace-file \(it has shop\)/m,
    );
    assert.match(
      section(r.stdout, "# Pod shop/db"),
      /^verdict: undecided: metadata\.labels\["version"\] must be a string/m,
    );
    assert.equal(
      r.stderr,
      'meshinject: warning: 2 of the 3 workload(s) could not be decided; see "verdict: undecided" in the report\n',
    );
    // Asked to: exit code 1 for the undecided ones, the same report.
    const strict = await run(files, [...args, "--exit-code"]);
    assert.equal(strict.failed, true);
    assert.equal(strict.stdout, r.stdout);
    // As data: the decided ones and the undecided ones, each with where it is.
    const json = JSON.parse((await run(files, [...args, "-o", "json"])).stdout) as {
      workloads: { workload: string }[];
      undecided: { workload: string; where: string; undecided: string }[];
    };
    assert.deepEqual(
      json.workloads.map((w) => w.workload),
      ["Pod shop/web"],
    );
    assert.deepEqual(
      json.undecided.map((w) => [w.workload, w.where]),
      [
        ["Pod other/api", 'p.yaml: document 2 (Pod "api")'],
        ["Pod shop/db", 'p.yaml: document 3 (Pod "db")'],
      ],
    );
  });

  it("--injectConfigFile (a ConfigMap): its policy and selectors decide once the webhook calls", async () => {
    const config = "policy: disabled\nalwaysInjectSelector:\n- matchLabels: {app: web}\n";
    const cm = writeYaml({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "istio-sidecar-injector" },
      data: { config },
    });
    const files = { "d.yaml": `${deployment("web")}---\n${deployment("other")}`, "cm.yaml": cm };
    const r = await run(files, [
      "-f",
      "d.yaml",
      "--injectConfigFile",
      "cm.yaml",
      "--namespace-labels",
      "istio-injection=enabled",
    ]);
    assert.equal(r.failed, false, r.stderr);
    assert.doesNotMatch(r.stdout, /injector config: the built-in/);
    assert.equal(
      line(section(r.stdout, "# Deployment default/web"), "injector:"),
      "injector: injected: the pod labels match an alwaysInjectSelector",
    );
    const other = section(r.stdout, "# Deployment default/other");
    assert.equal(line(other, "injector:"), 'injector: not injected: the injection policy is "disabled"');
    assert.match(
      line(other, "verdict:") ?? "",
      /^verdict: not injected: namespace\.sidecar-injector\.istio\.io calls the injector/,
    );
  });

  it("host networking and ignored namespaces: the injector skips; an invalid inject value warns", async () => {
    const host = pod("h").replace("spec:\n", "spec:\n  hostNetwork: true\n");
    const invalid = pod("i", '  namespace: shop\n  annotations: {sidecar.istio.io/inject: "maybe"}\n');
    const r = await run({ "p.yaml": `${host}---\n${invalid}` }, [
      "-f",
      "p.yaml",
      "-n",
      "kube-system",
      "--namespace-labels",
      "istio-injection=enabled",
    ]);
    assert.equal(r.failed, false, r.stderr);
    assert.equal(
      line(section(r.stdout, "# Pod kube-system/h"), "injector:"),
      "injector: not injected: the pod uses host networking",
    );
    const ignored = await run({ "p.yaml": pod("k") }, [
      "-f",
      "p.yaml",
      "-n",
      "kube-system",
      "--namespace-labels",
      "istio-injection=enabled",
    ]);
    assert.equal(
      line(section(ignored.stdout, "# Pod kube-system/k"), "injector:"),
      'injector: not injected: namespace "kube-system" is never injected',
    );
    assert.equal(
      line(section(r.stdout, "# Pod shop/i"), "injector:"),
      'injector: injected: the injection policy is "enabled"',
    );
    assert.match(
      r.stderr,
      /^meshinject: warning: p\.yaml: document 2 \(Pod "i"\): Invalid value for sidecar\.istio\.io\/inject: "maybe"/,
    );
  });

  it("errors name the document and the cause, on one line", async () => {
    // A workload that cannot be decided is reported so, and with none decided the run fails.
    const undecided = (r: Run, header: string, why: RegExp) => {
      assert.equal(r.failed, true);
      assert.match(section(r.stdout, header), why);
      assert.match(
        r.stderr,
        /^meshinject: none of the 1 workload\(s\) could be decided; see "verdict: undecided" in the report\n$/,
      );
    };
    const unquoted = pod("web", "  labels: {sidecar.istio.io/inject: false}\n");
    undecided(
      await run({ "p.yaml": unquoted }, ["-f", "p.yaml"]),
      "# Pod default/web",
      /^verdict: undecided: metadata\.labels\["sidecar\.istio\.io\/inject"\] must be a string, got boolean \(quote it: "false"/m,
    );
    assertFailed(
      await run({ "bad.yaml": "kind: Pod\nmetadata: [\n" }, ["-f", "bad.yaml"]),
      /^meshinject: bad\.yaml: document 1: /,
    );
    undecided(
      await run({ "d.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {}\n" }, [
        "-f",
        "d.yaml",
      ]),
      "# Deployment default/web",
      /^verdict: undecided: .*spec\.template is missing/m,
    );
    assertFailed(
      await run({ "s.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n" }, ["-f", "s.yaml"]),
      /^meshinject: s\.yaml: no workloads/,
    );
    assertFailed(
      await run({ "p.yaml": pod("web"), "m.yaml": pod("x") }, ["-f", "p.yaml", "--webhook-config", "m.yaml"]),
      /^meshinject: m\.yaml: no MutatingWebhookConfiguration/,
    );
    assertFailed(
      await run({ "p.yaml": pod("web"), "ns.yaml": pod("x") }, ["-f", "p.yaml", "--namespace-file", "ns.yaml"]),
      /^meshinject: ns\.yaml: document 1 \(Pod "x"\): not a Namespace/,
    );
    assertFailed(
      await run({ "p.yaml": pod("web") }, ["-f", "p.yaml", "--namespace-labels", "istio-injection"]),
      /^meshinject: --namespace-labels: "istio-injection" is not key=value/,
    );
    assertFailed(
      await run({ "p.yaml": pod("web"), "c.yaml": "policy: [on]\n" }, ["-f", "p.yaml", "--injectConfigFile", "c.yaml"]),
      /^meshinject: c\.yaml: policy: must be a string/,
    );
    // Refused before any connection is tried (it once became a NaN timeout).
    assertFailed(
      await run({}, ["deployment/web", "-n", "shop", "--request-timeout", "abc"]),
      /^meshinject: --request-timeout must be a number of seconds above 0, got "abc"\n$/,
    );
  });

  it("reports a policy Istio accepts but that injects nothing, as Istio decides it", async () => {
    const r = await run({ "p.yaml": pod("web"), "c.yaml": "policy: sometimes\n" }, [
      "-f",
      "p.yaml",
      "--injectConfigFile",
      "c.yaml",
    ]);
    assert.equal(r.failed, false, r.stderr);
    assert.match(r.stderr, /Illegal value for autoInject:sometimes, must be one of \[disabled,enabled\]/);
  });

  it("the help lists every flag once and has examples", () => {
    const text = fullHelp(checkInjectCommand(recordingIo().io));
    assert.equal(text.match(/^Options:/gm)?.length, 1, text);
    for (const flag of [
      "-f, --filename",
      "-n, --namespace",
      "--namespace-labels",
      "--namespace-file",
      "--webhook-config",
      "--injectConfigFile",
      "-l, --selector",
      "-o, --output",
      "--kubeconfig",
    ]) {
      assert.equal(text.match(new RegExp(`^ +${flag}\\b`, "gm"))?.length, 1, `${flag} not listed once:\n${text}`);
    }
    assert.match(text, /^Examples:\n {2}meshinject check-inject deployment\/web -n shop\n/m);
    assert.match(text, /^ {2}meshinject check-inject -f app\.yaml/m);
  });
});
