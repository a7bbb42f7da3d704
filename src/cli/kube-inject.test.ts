// Tests of `meshinject kube-inject`, run in process through main(argv, io): every failure exits 1
// with one stderr line naming the document (or file) and the cause, and `-o FILE` then leaves
// nothing behind; the success paths read stdin, keep other kinds verbatim and write -o files.
import assert from "node:assert/strict";
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { meshinjectProcess, repoRoot as root, runMeshinject } from "../../test/meshinject-cli.js";

function meshinject(args: string[], input?: string) {
  return runMeshinject(["kube-inject", ...args], { input });
}

const curl = join(root, "examples/curl.yaml");

const DEPLOYMENT = (name: string, apiVersion = "apps/v1", annotations = "{}") => `apiVersion: ${apiVersion}
kind: Deployment
metadata:
  name: ${name}
spec:
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
      annotations: ${annotations}
    spec:
      containers:
      - name: app
        image: example/app
`;

/** A config document whose one template is `sidecar`. */
const templateConfig = (template: string) =>
  `policy: enabled\ndefaultTemplates: [sidecar]\ntemplates:\n  sidecar: |\n    ${template}\n`;

describe("meshinject kube-inject", async () => {
  const dir = await mkdtemp(join(tmpdir(), "meshinject-kube-inject-"));
  after(() => rm(dir, { recursive: true, force: true }));

  const files: Record<string, string> = {
    "malformed.yaml": `apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: broken\nspec:\n  containers: [\n`,
    "old-api.yaml": DEPLOYMENT("old", "extensions/v1beta1"),
    "bad-annotation.yaml": DEPLOYMENT("web", "apps/v1", '{sidecar.istio.io/proxyCPU: "abc"}'),
    "app.yaml": DEPLOYMENT("app"),
    "template-parse.yaml": templateConfig("spec: {{ .Values.x "),
    "template-exec.yaml": templateConfig("spec: {{ index .Values 3 }}"),
    "config-malformed.yaml": "policy: enabled\ntemplates: [\n",
    "values-malformed.json": '{"global": {"hub": ',
    "values-partial.yaml": "pilot:\n  cni:\n    enabled: true\n",
    "mesh-typo.yaml": "defaultConfig:\n  concurency: 2\n",
    "mesh-bad-enum.yaml": "defaultConfig:\n  interceptionMode: SIDEWAYS\n",
    "deploymentconfig-v1.yaml": `apiVersion: v1\nkind: DeploymentConfig\nmetadata:\n  name: dc\nspec:\n  template:\n    metadata:\n      labels: {app: dc}\n    spec:\n      containers:\n      - name: app\n        image: example/app\n`,
  };
  before(async () => {
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  });
  const path = (name: string) => join(dir, name);

  /**
   * Runs a failing command with `-o` into a fresh folder: exit code 1, nothing on stdout, one stderr
   * line matching `pattern`, and the folder still empty (no output file, no temporary file).
   */
  async function fails(args: string[], pattern: RegExp): Promise<string> {
    const outDir = await mkdtemp(join(dir, "out-"));
    const r = await meshinject([...args, "-o", join(outDir, "injected.yaml")]);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, /^meshinject: [^\n]+\n$/, `not one line: ${JSON.stringify(r.stderr)}`);
    assert.doesNotMatch(r.stderr, /internal error|\n\s+at /);
    assert.match(r.stderr, pattern);
    assert.deepEqual(await readdir(outDir), []);
    return r.stderr;
  }

  it("rejects malformed YAML, naming the document and the line in the file", async () => {
    await fails(
      ["-f", path("malformed.yaml")],
      /malformed\.yaml: document 2 \(Pod "broken"\): invalid YAML: line 12, column 1: \S/,
    );
  });

  it("rejects a bad document separator with its line", async () => {
    await writeFile(path("separator.yaml"), "kind: ServiceAccount\n--- oops\nkind: Pod\n");
    await fails(["-f", path("separator.yaml")], /invalid YAML stream at line 2: invalid Yaml document separator: oops/);
  });

  it("injects the old apiVersions of the built-in kinds, as istioctl (which decides by kind) does", async () => {
    const r = await meshinject(["-f", path("old-api.yaml")]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
    assert.match(r.stdout, /^apiVersion: extensions\/v1beta1\nkind: Deployment\n/);
    assert.equal(r.stdout.match(/name: istio-proxy\n/g)?.length, 1);
    const list = `apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata: {name: s}\n- apiVersion: batch/v1beta1\n  kind: CronJob\n  metadata: {name: nightly}\n  spec:\n    schedule: "@daily"\n    jobTemplate:\n      spec:\n        template:\n          spec:\n            containers: [{name: job, image: busybox}]\n`;
    await writeFile(path("list.yaml"), list);
    const l = await meshinject(["-f", path("list.yaml")]);
    assert.equal(l.code, 0, l.stderr);
    assert.match(l.stdout, /apiVersion: batch\/v1beta1\n\s+kind: CronJob\n/);
    assert.equal(l.stdout.match(/name: istio-proxy\n/g)?.length, 1);
  });

  it("copies a custom resource named like a workload through unchanged, with a warning naming it", async () => {
    const cr = "apiVersion: example.com/v1\nkind: Deployment\nmetadata:\n  name: cr\nspec:\n  replicas: 1\n";
    await writeFile(path("cr.yaml"), `${cr}---\n${files["app.yaml"]}`);
    const r = await meshinject(["-f", path("cr.yaml")]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.startsWith(`${cr}---\n`), r.stdout);
    assert.match(r.stdout, /name: istio-proxy\n/);
    assert.equal(
      r.stderr,
      `meshinject: warning: ${path("cr.yaml")}: document 1 (Deployment "cr"): apiVersion "example.com/v1" is not a Kubernetes API of Deployment (apps/*, extensions/*): not injected, copied through unchanged\n`,
    );
  });

  it("accepts OpenShift's legacy v1 DeploymentConfig (as Istio's golden cases use it)", async () => {
    const r = await meshinject(["-f", path("deploymentconfig-v1.yaml")]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^apiVersion: v1\nkind: DeploymentConfig\n/);
    assert.match(r.stdout, /name: istio-proxy\n/);
  });

  it("rejects an invalid annotation on one line", async () => {
    await fails(
      ["-f", path("bad-annotation.yaml")],
      /bad-annotation\.yaml: document 1 \(Deployment "web"\): failed to run injection template: invalid value 'abc' for annotation 'sidecar\.istio\.io\/proxyCPU': invalid resource quantity/,
    );
  });

  it("rejects a template that does not parse, naming the config file and template", async () => {
    await fails(
      ["-f", path("app.yaml"), "--injectConfigFile", path("template-parse.yaml")],
      /template-parse\.yaml: templates\.sidecar: template: inject:\d+: unclosed action/,
    );
  });

  it("rejects a template that fails when executed, naming the document and template", async () => {
    await fails(
      ["-f", path("app.yaml"), "--injectConfigFile", path("template-exec.yaml")],
      /app\.yaml: document 1 \(Deployment "app"\): failed to run injection template: template "sidecar": template: inject:1:\d+: executing "inject" at <index \.Values 3>: error calling index/,
    );
  });

  it("reports a missing input file", async () => {
    await fails(["-f", path("nope.yaml")], /cannot read input .*nope\.yaml: ENOENT/);
  });

  it("reports configuration files that cannot be parsed", async () => {
    await fails(
      ["-f", path("app.yaml"), "--injectConfigFile", path("config-malformed.yaml")],
      /config-malformed\.yaml: .*invalid YAML: yaml: line \d+, column \d+/,
    );
    await fails(
      ["-f", path("app.yaml"), "--valuesFile", path("values-malformed.json")],
      /values-malformed\.json: .*invalid JSON or YAML/,
    );
    await fails(
      ["-f", path("app.yaml"), "--meshConfigFile", path("mesh-bad-enum.yaml")],
      /mesh-bad-enum\.yaml: .*defaultConfig\.interceptionMode: unknown value "SIDEWAYS"/,
    );
    await fails(["-f", path("app.yaml"), "--valuesFile", path("nope.json")], /cannot read values file .*nope\.json/);
  });

  it("reads standard input with -f -", async () => {
    const r = await meshinject(["-f", "-"], files["app.yaml"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
    assert.match(r.stdout, /^apiVersion: apps\/v1\nkind: Deployment\n/);
    assert.match(r.stdout, /sidecar\.istio\.io\/status: /);
    const failed = await meshinject(["-f", "-"], files["bad-annotation.yaml"]);
    assert.equal(failed.code, 1);
    assert.match(
      failed.stderr,
      /^meshinject: stdin: document 1 \(Deployment "web"\): failed to run injection template: invalid value 'abc'/,
    );
  });

  it("injects examples/curl.yaml with the built-in config, other kinds verbatim", async () => {
    const input = await readFile(join(root, "examples/curl.yaml"), "utf8");
    const r = await meshinject(["-f", curl]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
    const [serviceAccount, service] = input.split("---\n");
    // The ServiceAccount (with the file's leading comment) and the Service come out byte for byte.
    assert.ok(r.stdout.startsWith(`${serviceAccount}---\n${service}---\n`));
    const deployment = r.stdout.slice(`${serviceAccount}---\n${service}---\n`.length);
    assert.match(deployment, /^apiVersion: apps\/v1\nkind: Deployment\nmetadata:\n/);
    assert.match(
      deployment,
      /sidecar\.istio\.io\/status: '\{"initContainers":\["istio-init"\],"containers":\["istio-proxy"\]/,
    );
    assert.match(deployment, /name: istio-proxy\n/);
    assert.match(deployment, /image: curlimages\/curl\n/);
    assert.ok(deployment.endsWith("---\n"));
  });

  it("writes -o files (replacing an existing one) with exactly what stdout would show", async () => {
    const outDir = join(dir, "written");
    await mkdir(outDir);
    const out = join(outDir, "injected.yaml");
    await writeFile(out, "old content\n");
    const r = await meshinject(["-f", curl, "-o", out]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "");
    assert.equal(await readFile(out, "utf8"), (await meshinject(["-f", curl])).stdout);
    assert.deepEqual(await readdir(outDir), ["injected.yaml"]);
  });
  it("accepts istioctl's -r for --revision", async () => {
    const short = await meshinject(["-f", path("app.yaml"), "-r", "canary"]);
    assert.equal(short.code, 0, short.stderr);
    assert.equal(short.stdout, (await meshinject(["-f", path("app.yaml"), "--revision", "canary"])).stdout);
    assert.match(short.stdout, /istio\.io\/rev: canary/);
  });

  it("warns about mesh config fields MeshConfig does not have, and goes on as Istio does", async () => {
    const r = await meshinject(["-f", path("app.yaml"), "--meshConfigFile", path("mesh-typo.yaml")]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      /^meshinject: warning: .*mesh-typo\.yaml: unknown field defaultConfig\.concurency \(ignored/m,
    );
  });

  it("warns when a values file has no global.proxy (values replace the built-in ones whole)", async () => {
    const r = await meshinject(["-f", path("app.yaml"), "--valuesFile", path("values-partial.yaml")]);
    assert.match(
      r.stderr,
      /^meshinject: warning: .*values-partial\.yaml has no global\.proxy, which the templates read: .*config dump/m,
    );
    // The document the templates then fail on says which key is missing, not only Go's unmarshal error.
    assert.equal(r.code, 1);
    const error = r.stderr
      .split("\n")
      .find((l) => l.startsWith("meshinject: ") && !l.startsWith("meshinject: warning:"));
    assert.match(
      error ?? "",
      /^meshinject: .*app\.yaml: document 1 .*; .*values-partial\.yaml has no global\.proxy, which the templates read/,
    );
  });

  it("with --revision and the built-in config, points the proxy at that revision's istiod", async () => {
    const canary = await meshinject(["-f", path("app.yaml"), "--revision", "canary"]);
    assert.equal(canary.code, 0, canary.stderr);
    assert.match(canary.stdout, /value: istiod-canary\.istio-system\.svc:15012/);
    assert.doesNotMatch(canary.stdout, /istiod\.istio-system\.svc/);
  });

  it("reads istioctl's ConfigMap-name flags from the cluster; without one, says so in one line and names the file flags", async () => {
    // A process: the kubeconfig is looked for in the process environment (KUBECONFIG, HOME).
    const r = meshinjectProcess(
      ["kube-inject", "-f", path("app.yaml"), "--injectConfigMapName", "istio-sidecar-injector-canary"],
      undefined,
      { KUBECONFIG: "", HOME: dir, KUBERNETES_SERVICE_HOST: "" },
    );
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "");
    assert.match(
      r.stderr,
      /^meshinject: no kubeconfig: .*pass --kubeconfig FILE; or pass --injectConfigFile, --valuesFile and --meshConfigFile with the ConfigMaps saved by kubectl, or leave out the cluster flags for the built-in default\n$/,
    );
  });

  it("marks -f as required in the help", async () => {
    const r = await meshinject(["--help"]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /-f, --filename <file> .*\(required\)\n/);
    assert.match(r.stdout, /-r, --revision <name>/);
  });

  it("says -o is a directory, without temporary file names", async () => {
    const r = await meshinject(["-f", path("app.yaml"), "-o", dir]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, `meshinject: -o ${dir}: is a directory\n`);
    const missing = await meshinject(["-f", path("app.yaml"), "-o", join(dir, "no-such-folder", "out.yaml")]);
    assert.equal(
      missing.stderr,
      `meshinject: -o ${join(dir, "no-such-folder", "out.yaml")}: folder ${join(dir, "no-such-folder")} does not exist\n`,
    );
  });

  it("names a ConfigMap without data.mesh once", async () => {
    await writeFile(
      path("cm-inject.yaml"),
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: istio}\ndata: {config: x}\n",
    );
    const stderr = await fails(
      ["-f", path("app.yaml"), "--meshConfigFile", path("cm-inject.yaml")],
      /ConfigMap has no data\.mesh/,
    );
    assert.equal(stderr, `meshinject: ${path("cm-inject.yaml")}: ConfigMap has no data.mesh\n`);
  });

  it("drops a UTF-8 byte order mark at the start of the input", async () => {
    const service = "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n";
    await writeFile(path("bom.yaml"), `\ufeff${service}---\n${files["app.yaml"]}`);
    const r = await meshinject(["-f", path("bom.yaml")]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.startsWith(`${service}---\n`), JSON.stringify(r.stdout.slice(0, 20)));
    const stdin = await meshinject(["-f", "-"], `\ufeff${service}`);
    assert.equal(stdin.stdout, `${service}---\n`);
  });

  it("reads UTF-16 and UTF-32 with a byte-order mark, and refuses what is not UTF-8 text", async () => {
    const text = files["app.yaml"] as string;
    const plain = await meshinject(["-f", path("app.yaml")]);
    const utf16be = Buffer.from(text, "utf16le").swap16();
    const utf32le = Buffer.alloc(text.length * 4);
    for (let i = 0; i < text.length; i++) utf32le.writeUInt32LE(text.codePointAt(i) as number, i * 4);
    const encodings: [string, Buffer][] = [
      ["utf16le.yaml", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")])],
      ["utf16be.yaml", Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be])],
      ["utf32le.yaml", Buffer.concat([Buffer.from([0xff, 0xfe, 0, 0]), utf32le])],
    ];
    for (const [name, bytes] of encodings) {
      await writeFile(path(name), bytes);
      const r = await meshinject(["-f", path(name)]);
      assert.equal(r.code, 0, `${name}: ${r.stderr}`);
      assert.equal(r.stdout, plain.stdout, name);
    }
    await writeFile(path("utf16-no-bom.yaml"), Buffer.from(text, "utf16le"));
    await fails(["-f", path("utf16-no-bom.yaml")], /input .*utf16-no-bom\.yaml is not UTF-8 text: it holds NUL bytes/);
    await writeFile(path("latin1.yaml"), Buffer.from(`# caf\xe9\n${text}`, "latin1"));
    await fails(["-f", path("latin1.yaml")], /input .*latin1\.yaml is not UTF-8 text \(line 1\); save it as UTF-8/);
  });

  it("warns about documents that are not Kubernetes objects, naming them, and copies them", async () => {
    const input = `- a\n- b\n---\njust text\n---\n# only a comment\n---\nmetadata:\n  name: kindless\n---\n${files["app.yaml"]}`;
    await writeFile(path("not-objects.yaml"), input);
    const r = await meshinject(["-f", path("not-objects.yaml")]);
    assert.equal(r.code, 0, r.stderr);
    const p = path("not-objects.yaml");
    assert.equal(
      r.stderr,
      `meshinject: warning: ${p}: document 1: a list, not a Kubernetes object: copied through unchanged\n` +
        `meshinject: warning: ${p}: document 2: a string, not a Kubernetes object: copied through unchanged\n` +
        `meshinject: warning: ${p}: document 4: no kind, so not a Kubernetes object: copied through unchanged\n`,
    );
    assert.ok(
      r.stdout.startsWith("- a\n- b\n---\njust text\n---\n# only a comment\n---\nmetadata:\n  name: kindless\n---\n"),
    );
  });

  it("warns, as istioctl logs it, about an invalid sidecar.istio.io/inject value, and injects", async () => {
    await writeFile(path("maybe.yaml"), DEPLOYMENT("web", "apps/v1", '{sidecar.istio.io/inject: "maybe"}'));
    const r = await meshinject(["-f", path("maybe.yaml")]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /name: istio-proxy\n/);
    assert.equal(
      r.stderr,
      `meshinject: warning: ${path("maybe.yaml")}: document 1 (Deployment "web"): Invalid value for sidecar.istio.io/inject: "maybe". Only 'true' and 'false' are accepted. Falling back to default injection policy.\n`,
    );
  });

  it("says which configuration file is empty", async () => {
    await writeFile(path("empty.yaml"), "");
    await writeFile(path("comments.yaml"), "# nothing yet\n");
    await fails(["-f", path("app.yaml"), "--injectConfigFile", path("empty.yaml")], /: .*empty\.yaml is empty\n$/);
    await fails(["-f", path("app.yaml"), "--valuesFile", path("comments.yaml")], /: .*comments\.yaml is empty\n$/);
  });

  it("warns that no documents were read from an empty or closed standard input", async () => {
    const r = await meshinject(["-f", "-"], "");
    assert.equal(r.code, 0);
    assert.equal(r.stdout, "");
    assert.equal(r.stderr, "meshinject: warning: stdin: no documents read: the input is empty\n");
  });

  it("prints istioctl's skip lines after one blank line, as istioctl does", async () => {
    const hostNet = `apiVersion: v1\nkind: Pod\nmetadata: {name: h, namespace: ns}\nspec:\n  hostNetwork: true\n  containers: [{name: app, image: x}]\n`;
    await writeFile(
      path("skips.yaml"),
      `${hostNet}---\n${DEPLOYMENT("quiet", "apps/v1", '{sidecar.istio.io/inject: "false"}')}`,
    );
    const r = await meshinject(["-f", path("skips.yaml")]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stderr,
      '\n===> Skipping injection because Pod "ns/h" has host networking enabled\n\n' +
        '===> Skipping injection because Deployment "quiet" has sidecar injection disabled\n\n',
    );
  });

  it("-o writes through a symbolic link, to its target, and keeps the file's mode", async () => {
    const out = await mkdtemp(join(dir, "link-"));
    await mkdir(join(out, "manifests"));
    const target = join(out, "manifests", "app.yaml");
    await writeFile(target, "old\n");
    await chmod(target, 0o444);
    await symlink("manifests/app.yaml", join(out, "app.yaml"));
    const r = await meshinject(["-f", path("app.yaml"), "-o", join(out, "app.yaml")]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok((await lstat(join(out, "app.yaml"))).isSymbolicLink());
    assert.match(await readFile(target, "utf8"), /name: istio-proxy\n/);
    assert.equal((await stat(target)).mode & 0o777, 0o444);
  });
});
