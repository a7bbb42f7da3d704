// Tests of the `meshinject` command line, run in process through main(argv, io); the last ones run
// the real binary from source through tsx, for what only a process shows.
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { meshinject, meshinjectProcess, repoRoot as root } from "../../test/meshinject-cli.js";

describe("meshinject", async () => {
  const dir = await mkdtemp(join(tmpdir(), "meshinject-cli-"));
  after(() => rm(dir, { recursive: true, force: true }));

  const tmpl = join(root, "examples/deployment.tmpl");
  const values = join(root, "examples/values.yaml");

  it("explains itself with --help", async () => {
    const top = await meshinject("--help");
    assert.equal(top.code, 0);
    assert.match(top.stdout, /template/);
    const render = await meshinject("template", "render", "--help");
    assert.equal(render.code, 0);
    assert.match(render.stdout, /--set-string/);
    assert.match(render.stdout, /\.Values/);
  });

  it("version: meshinject's (package.json's) and the Istio release it follows; --short only ours", async () => {
    const pkg = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as { version: string };
    const r = await meshinject("version");
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      new RegExp(`^meshinject version: ${pkg.version.replaceAll(".", "\\.")}\nistio version: \\d+\\.\\d+\\.\\d+\n$`),
    );
    const short = await meshinject("version", "--short");
    assert.equal(short.stdout, `${pkg.version}\n`);
  });

  it("x check-inject (istioctl's experimental group) is check-inject; x with another command says what it has", async () => {
    const curl = join(root, "examples/curl.yaml");
    const direct = await meshinject("check-inject", "-f", curl);
    for (const group of ["x", "experimental"]) {
      const aliased = await meshinject(group, "check-inject", "-f", curl);
      assert.deepEqual(aliased, direct, group);
    }
    const other = await meshinject("x", "precheck");
    assert.equal(other.code, 1);
    assert.equal(
      other.stderr,
      "meshinject: x (istioctl experimental): meshinject has check-inject there (meshinject x check-inject)\n",
    );
  });

  it("kube-inject accepts istioctl's --webhookConfig NAME", async () => {
    const curl = join(root, "examples/curl.yaml");
    const r = await meshinject("kube-inject", "-f", curl, "--webhookConfig", "istio-sidecar-injector-canary");
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, (await meshinject("kube-inject", "-f", curl)).stdout);
  });

  it("renders the example exactly as Go's text/template + Sprig does", async () => {
    const r = await meshinject("template", "render", "-f", tmpl, "--values", values);
    assert.equal(r.stderr, "");
    assert.equal(r.code, 0);
    // examples/deployment.expected.yaml was produced by the Go oracle (shared/tools/gotemplate-oracle).
    assert.equal(r.stdout, await readFile(join(root, "examples/deployment.expected.yaml"), "utf8"));
  });

  it("applies --set over values files and writes -o files", async () => {
    const out = join(dir, "out.yaml");
    const r = await meshinject(
      "template",
      "render",
      "-f",
      tmpl,
      "--values",
      values,
      "--set",
      "replicaCount=3,extraArgs={--verbose}",
      "-o",
      out,
    );
    assert.equal(r.code, 0, r.stderr);
    const text = await readFile(out, "utf8");
    assert.match(text, /replicas: 3\n/);
    assert.match(text, /args:\n\s+- "--verbose"\n/);
  });

  it("fails with exit code 1, names the file, and writes nothing", async () => {
    const bad = join(dir, "bad.tmpl");
    await writeFile(bad, "{{ .Values.x | nope }}");
    const out = join(dir, "never.yaml");
    const r = await meshinject("template", "render", "-f", bad, "-o", out);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^meshinject: template: .*bad\.tmpl:1: function "nope" not defined\n$/);
    assert.ok(!(await readdir(dir)).includes("never.yaml"));

    const missing = await meshinject("template", "render", "-f", tmpl, "--values", "nope.yaml");
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /cannot read values file nope\.yaml/);
  });

  it("prefixes every error the same way, Commander's usage errors too", async () => {
    for (const args of [["kube-inject"], ["kube-inject", "-f", "x.yaml", "--bogus"], ["no-such-command"]]) {
      const r = await meshinject(...args);
      assert.equal(r.code, 1, args.join(" "));
      assert.match(r.stderr, /^meshinject: (required option|unknown option|unknown command) /, args.join(" "));
      assert.doesNotMatch(r.stderr, /^error:/m);
    }
  });

  it("fails with exit code 1 when a report command prints its own error", async () => {
    for (const command of ["capture-rules", "proxy-config", "check-inject"]) {
      const r = await meshinject(command, "-f", join(dir, "missing.yaml"));
      assert.equal(r.code, 1, command);
      assert.equal(r.stdout, "", command);
      assert.match(r.stderr, /^meshinject: cannot read .*missing\.yaml: ENOENT[^\n]*\n$/, command);
    }
  });

  it("prints its version, and leaves the process as it was after help, errors and output", async () => {
    const pkg = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as { version: string };
    const v = await meshinject("--version");
    assert.deepEqual(v, { code: 0, stdout: `${pkg.version}\n`, stderr: "" });
    // A run returns its exit code: it neither exits the process nor sets process.exitCode.
    assert.equal(process.exitCode, undefined);
    const usage = await meshinject("template");
    assert.equal(usage.code, 1);
    assert.match(usage.stderr, /Usage: meshinject template/);
    assert.equal(process.exitCode, undefined);
  });

  // The real binary from source: its exit status, standard streams and the environment it inherits
  // (test/package.test.ts runs the built one on standard input).
  it("as a process: status 0 with the process environment reaching the templates; a usage error is status 1", async () => {
    const template = join(dir, "env.tmpl");
    await writeFile(template, '{{ env "MESHINJECT_SMOKE" }}\n');
    const r = meshinjectProcess(["template", "render", "-f", template], undefined, { MESHINJECT_SMOKE: "from-env" });
    assert.deepEqual(r, { code: 0, stdout: "from-env\n", stderr: "" });
    const bad = meshinjectProcess(["kube-inject", "-f", "x.yaml", "--bogus"]);
    assert.deepEqual(bad, { code: 1, stdout: "", stderr: "meshinject: unknown option '--bogus'\n" });
  });
});
