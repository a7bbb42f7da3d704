// `meshinject capture-rules`, run in-process on manifests injected with the library: the rules of
// each workload's istio-init (or, in CNI mode, of the istio-cni plugin), and one-line errors that
// name the document and the cause.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import type { Command } from "commander";
import { assertFailed, type Run, recordingIo, runManifestCommand } from "../../test/manifest-command-run.js";
import { defaultConfigFiles, injectYaml, loadInjectorConfig } from "../index.js";
import { captureRulesCommand } from "./capture-rules.js";

const CURL = readFileSync(new URL("../../examples/curl.yaml", import.meta.url), "utf8");

/** The parts of the injector values the tests change. */
interface Values {
  global: { nativeNftables: boolean };
  pilot: { cni: { enabled: boolean } };
}

/** examples/curl.yaml injected with the built-in config, its values changed by `values`. */
function injected(values: (v: Values) => void = () => {}): string {
  const v = JSON.parse(defaultConfigFiles().values) as Values;
  values(v);
  return injectYaml(loadInjectorConfig({ values: JSON.stringify(v) }), CURL);
}

/** What `--help` prints: commander's usage and options, and the text added after them. */
function fullHelp(command: Command): string {
  let text = "";
  command.configureOutput({ writeOut: (s) => (text += s) }).outputHelp();
  return text;
}

/** Runs the command's action on `files[name]` for `-f name`. */
function run(files: Record<string, string>, args: string[]): Promise<Run> {
  return runManifestCommand(captureRulesCommand, files, args);
}

const POD = (args: string[], extra = ""): string => `apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: shop
spec:
  initContainers:
  - name: istio-init
    image: proxyv2
    args: ${JSON.stringify(args)}
${extra}  containers:
  - name: app
    image: app
  - name: istio-proxy
    image: proxyv2
`;

describe("meshinject capture-rules", () => {
  it("prints the IPv4 iptables-restore input of an injected Deployment", async () => {
    const r = await run({ "curl.yaml": injected() }, ["-f", "curl.yaml"]);
    assert.equal(r.failed, false, r.stderr);
    assert.equal(r.stderr, "");
    const lines = r.stdout.split("\n");
    // The namespace of an object that names none is -n's, "default" unless given.
    assert.equal(lines[0], "# Deployment default/curl");
    assert.match(lines[1] ?? "", /^# istio-init: istio-iptables -p 15001 -z 15006 -u 1337 -m REDIRECT -i '\*' -x ''/);
    for (const chain of ["ISTIO_INBOUND", "ISTIO_REDIRECT", "ISTIO_IN_REDIRECT", "ISTIO_OUTPUT"]) {
      assert.ok(lines.includes(`-N ${chain}`), `chain ${chain} missing:\n${r.stdout}`);
    }
    assert.ok(lines.includes("-A ISTIO_OUTPUT -m owner --uid-owner 1337 -j RETURN"), r.stdout);
    assert.ok(lines.includes("-A ISTIO_OUTPUT -m owner --gid-owner 1337 -j RETURN"), r.stdout);
    assert.ok(lines.includes("-A ISTIO_REDIRECT -p tcp -j REDIRECT --to-ports 15001"), r.stdout);
    assert.ok(lines.includes("-A ISTIO_INBOUND -p tcp --dport 15090 -j RETURN"), r.stdout);
    assert.ok(!r.stdout.includes("ip6tables"), "no IPv6 without --ipv6");
    // Only the Deployment: the ServiceAccount and Service are not workloads.
    assert.equal(r.stdout.match(/^# [A-Z]\w+ /gm)?.length, 1);
  });

  it("expands $(VAR) in istio-init's args over its env, as the kubelet does", async () => {
    const pod = POD(
      ["istio-iptables", "-u", "$(UID)", "-b", "*", "-i", "*"],
      '    env:\n    - name: UID\n      value: "2000"\n',
    );
    const r = await run({ "pod.yaml": pod }, ["-f", "pod.yaml"]);
    assert.equal(r.failed, false, r.stderr);
    assert.match(r.stdout, /^-A ISTIO_OUTPUT -m owner --uid-owner 2000 -j RETURN$/m);
  });

  it("--ipv6 adds the ip6tables-restore input", async () => {
    const r = await run({ "curl.yaml": injected() }, ["-f", "curl.yaml", "--ipv6"]);
    assert.equal(r.failed, false, r.stderr);
    const v6 = r.stdout.slice(r.stdout.indexOf("# ip6tables-restore input (IPv6)"));
    assert.ok(v6.length < r.stdout.length, r.stdout);
    assert.match(v6, /^-A ISTIO_OUTPUT -o lo -s ::6\/128 -j RETURN$/m);
    assert.match(v6, /^-A ISTIO_OUTPUT -d ::1\/128 -j RETURN$/m);
  });

  it("--native-nftables in the args gives the nftables transaction", async () => {
    const r = await run({ "curl.yaml": injected((v) => (v.global.nativeNftables = true)) }, ["-f", "curl.yaml"]);
    assert.equal(r.failed, false, r.stderr);
    assert.match(r.stdout, /^# nftables transaction \(--native-nftables, IPv4\)$/m);
    assert.match(r.stdout, /^add rule inet istio-proxy-nat istio-output skuid 1337 counter return$/m);
    assert.doesNotMatch(r.stdout, /^\* nat$/m);
  });

  it("CNI mode: istio-validation, rules from the istio-cni plugin's reading of the pod", async () => {
    const r = await run({ "curl.yaml": injected((v) => (v.pilot.cni.enabled = true)) }, ["-f", "curl.yaml"]);
    assert.equal(r.failed, false, r.stderr);
    assert.equal(r.stderr, "");
    assert.match(r.stdout, /^# CNI mode: no istio-init; istio-validation only checks the rules/m);
    // The plugin also keeps the proxy's status port 15020 out of outbound capture.
    assert.match(r.stdout, /^-A ISTIO_OUTPUT -p tcp --dport 15020 -j RETURN$/m);
    assert.match(r.stdout, /^-A ISTIO_OUTPUT -m owner --uid-owner 1337 -j RETURN$/m);
  });

  it("a header per workload with its namespace; the container's env is read; ignored arguments warned", async () => {
    const env = `    env:
    - name: ISTIO_META_DNS_CAPTURE
      value: "true"
    - name: PROXY_UID
      valueFrom: {fieldRef: {fieldPath: status.podIP}}
    - name: UNRELATED
      valueFrom: {fieldRef: {fieldPath: status.podIP}}
`;
    const pod = POD(["istio-iptables", "-u", "1500", "-i", "*", "--drop-invalid", "false"], env);
    const r = await run({ "pod.yaml": pod }, ["-f", "pod.yaml", "--dns-servers", "10.96.0.10, fd00::a"]);
    assert.equal(r.failed, false, r.stderr);
    assert.match(r.stdout, /^# Pod shop\/web\n/);
    assert.match(r.stdout, /^# from istio-init's environment: ISTIO_META_DNS_CAPTURE \(RedirectDNS\)$/m);
    assert.match(r.stdout, /^-A ISTIO_OUTPUT -m owner --uid-owner 1500 -j RETURN$/m);
    assert.match(r.stdout, /^-A ISTIO_OUTPUT -j ISTIO_OUTPUT_DNS$|ISTIO_OUTPUT_DNS/m);
    assert.match(r.stdout, /10\.96\.0\.10/);
    assert.match(r.stdout, /ISTIO_DROP/, "--drop-invalid is on: the `false` is not its value");
    const warnings = r.stderr.trim().split("\n");
    assert.equal(warnings.length, 2, r.stderr);
    assert.match(
      warnings[0] ?? "",
      /^meshinject: warning: pod\.yaml: document 1 \(Pod "web"\): .*PROXY_UID.*valueFrom/,
    );
    assert.match(warnings[1] ?? "", /ignores the arguments "false"/);
  });

  it("env from the downward API is resolved where the pod determines it", async () => {
    const env = `    env:
    - name: INVALID_DROP
      valueFrom: {fieldRef: {fieldPath: "metadata.annotations['drop']"}}
    - name: ISTIO_OUTBOUND_OWNER_GROUPS
      valueFrom: {fieldRef: {fieldPath: metadata.namespace}}
`;
    const pod = POD(["istio-iptables"], env).replace("  namespace: shop\n", "  annotations: {drop: 'true'}\n");
    const r = await run({ "pod.yaml": pod }, ["-f", "pod.yaml", "-n", "shop"]);
    assert.equal(r.failed, false, r.stderr);
    // The manifest names no namespace: the one it is applied to (-n) is what the downward API gives.
    assert.match(
      r.stdout,
      /^# from istio-init's environment: INVALID_DROP \(DropInvalid\), ISTIO_OUTBOUND_OWNER_GROUPS \(OwnerGroupsInclude\)$/m,
    );
    assert.match(r.stdout, /ISTIO_DROP/);
    assert.match(r.stdout, /--gid-owner shop/);
    assert.doesNotMatch(r.stderr, /metadata\.namespace/);
  });

  it("DNS capture without --dns-servers: no DNS rules, and a warning saying why", async () => {
    const r = await run({ "pod.yaml": POD(["istio-iptables", "--redirect-dns"]) }, ["-f", "pod.yaml"]);
    assert.equal(r.failed, false, r.stderr);
    assert.doesNotMatch(r.stdout, /ISTIO_OUTPUT_DNS|--dport 53/);
    assert.match(r.stderr, /pass --dns-servers/);
  });

  it("--skip-rule-apply and mode NONE program nothing, and say so", async () => {
    const skip = await run({ "pod.yaml": POD(["istio-iptables", "--skip-rule-apply"]) }, ["-f", "pod.yaml"]);
    assert.equal(skip.stdout.trim().split("\n").at(-1), "# --skip-rule-apply: istio-iptables programs no rules");
    const annotated = CURL.replace(
      "    metadata:\n      labels:\n        app: curl\n",
      "    metadata:\n      annotations:\n        sidecar.istio.io/interceptionMode: NONE\n      labels:\n        app: curl\n",
    );
    assert.notEqual(annotated, CURL);
    const none = await run({ "none.yaml": injectYaml(loadInjectorConfig(), annotated) }, ["-f", "none.yaml"]);
    assert.equal(none.failed, false, none.stderr);
    assert.equal(
      none.stdout,
      "# Deployment default/curl\n# no traffic capture: the pod has istio-proxy but no istio-init or istio-validation container (interception mode NONE)\n",
    );
  });

  it("a file with no injected pods is an error that says so", async () => {
    const r = await run({ "curl.yaml": CURL }, ["-f", "curl.yaml"]);
    assertFailed(r, /^meshinject: curl\.yaml: no injected pods: none of the 1 workload\(s\) has an istio-init/);
    assert.match(r.stderr, /meshinject kube-inject/);
    const empty = await run({ "svc.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n" }, ["-f", "svc.yaml"]);
    assertFailed(empty, /svc\.yaml: no workloads/);
  });

  it("an uninjected workload next to an injected one is listed as not injected", async () => {
    const r = await run(
      {
        "both.yaml": `${injected()}---\n${CURL.replace("name: curl\nspec:\n  replicas", "name: plain\nspec:\n  replicas")}`,
      },
      ["-f", "both.yaml"],
    );
    assert.equal(r.failed, false, r.stderr);
    assert.match(
      r.stdout,
      /^# Deployment default\/plain\n# not injected: no istio-init, istio-validation or istio-proxy container\n/m,
    );
  });

  it("-n names the namespace of objects that name none; an object's own namespace wins", async () => {
    const both = `${injected()}---\n${POD(["istio-iptables"])}`;
    const r = await run({ "both.yaml": both }, ["-f", "both.yaml", "-n", "dev"]);
    assert.equal(r.failed, false, r.stderr);
    assert.deepEqual(r.stdout.match(/^# [A-Z]\w+ \S+$/gm), ["# Deployment dev/curl", "# Pod shop/web"]);
    const long = await run({ "both.yaml": both }, ["-f", "both.yaml", "--namespace", "dev"]);
    assert.equal(long.stdout, r.stdout);
  });

  it("errors name the document and the cause", async () => {
    const unknown = await run({ "pod.yaml": POD(["istio-iptables", "--restore-format"]) }, ["-f", "pod.yaml"]);
    assertFailed(unknown, /^meshinject: pod\.yaml: document 1 \(Pod "web"\): unknown flag: --restore-format/);

    const list = `apiVersion: v1\nkind: List\nitems:\n- ${POD(["-p"]).replaceAll("\n", "\n  ").trimEnd()}\n`;
    const inList = await run({ "list.yaml": list }, ["-f", "list.yaml"]);
    assertFailed(
      inList,
      /^meshinject: list\.yaml: document 1 \(List\) item 1 \(Pod "web"\): flag needs an argument: 'p' in -p/,
    );

    const groups = Array.from({ length: 65 }, (_, i) => `g${i}`).join(",");
    const env = `    env:\n    - name: ISTIO_OUTBOUND_OWNER_GROUPS\n      value: "${groups}"\n`;
    const tooMany = await run({ "pod.yaml": POD(["istio-iptables"], env) }, ["-f", "pod.yaml"]);
    assertFailed(tooMany, /document 1 \(Pod "web"\): OwnerGroupsInclude \(ISTIO_OUTBOUND_OWNER_GROUPS\): at most 64/);

    const other = await run({ "pod.yaml": POD(["proxy", "sidecar"]) }, ["-f", "pod.yaml"]);
    assertFailed(other, /container istio-init runs "proxy", not istio-iptables/);

    const badDns = await run({ "pod.yaml": POD([]) }, ["-f", "pod.yaml", "--dns-servers", "10.0.0.300"]);
    assertFailed(badDns, /^meshinject: --dns-servers: "10\.0\.0\.300" is not an IP address/);

    const badYaml = await run({ "bad.yaml": "kind: Pod\nmetadata: [\n" }, ["-f", "bad.yaml"]);
    assertFailed(badYaml, /^meshinject: bad\.yaml: document 1: /);
  });

  it("the help explains every flag, once", () => {
    const text = fullHelp(captureRulesCommand(recordingIo().io));
    // One list of options: the text after it does not list them again (it explains --ipv6 and
    // --dns-servers, the facts only the pod knows, in its own words).
    assert.equal(text.match(/^Options:/gm)?.length, 1, text);
    const help = text.replace(/\s+/g, " ");
    for (const flag of ["-f, --filename", "-n, --namespace"]) {
      assert.equal(text.match(new RegExp(`^ +${flag}\\b`, "gm"))?.length, 1, `${flag} not listed once:\n${text}`);
    }
    for (const flag of ["-f, --filename <file>", "-n, --namespace <namespace>", "--dns-servers <addresses>"])
      assert.ok(help.includes(flag), help);
    assert.match(
      help,
      /-n, --namespace <namespace> namespace of objects that name none \(.*downward API.*\) \(default: "default"\)/,
    );
    assert.match(help, /used when DNS is redirected but not all DNS captured/);
    assert.match(help, /address is IPv6 \(detected at run time\)/);
  });
});
