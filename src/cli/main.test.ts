// End-to-end tests of the `meshinject` binary, run from source through tsx.
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { meshinject, repoRoot as root } from "../../test/meshinject-cli.js";

describe("meshinject", async () => {
  const dir = await mkdtemp(join(tmpdir(), "meshinject-cli-"));
  after(() => rm(dir, { recursive: true, force: true }));

  it("explains itself with --help", () => {
    const top = meshinject("--help");
    assert.equal(top.code, 0);
    assert.match(top.stdout, /template/);
    const render = meshinject("template", "render", "--help");
    assert.equal(render.code, 0);
    assert.match(render.stdout, /--set-string/);
    assert.match(render.stdout, /\.Values/);
  });

  it("renders the example exactly as Go's text/template + Sprig does", async () => {
    const r = meshinject("template", "render", "-f", "examples/deployment.tmpl", "--values", "examples/values.yaml");
    assert.equal(r.stderr, "");
    assert.equal(r.code, 0);
    // examples/deployment.expected.yaml was produced by the Go oracle (shared/tools/gotemplate-oracle).
    assert.equal(r.stdout, await readFile(join(root, "examples/deployment.expected.yaml"), "utf8"));
  });

  it("applies --set over values files and writes -o files", async () => {
    const out = join(dir, "out.yaml");
    const r = meshinject(
      "template",
      "render",
      "-f",
      "examples/deployment.tmpl",
      "--values",
      "examples/values.yaml",
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
    const r = meshinject("template", "render", "-f", bad, "-o", out);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^meshinject: template: .*bad\.tmpl:1: function "nope" not defined\n$/);
    assert.ok(!(await readdir(dir)).includes("never.yaml"));

    const missing = meshinject("template", "render", "-f", "examples/deployment.tmpl", "--values", "nope.yaml");
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /cannot read values file nope\.yaml/);
  });

  it("prefixes every error the same way, Commander's usage errors too", () => {
    for (const args of [["kube-inject"], ["kube-inject", "-f", "x.yaml", "--bogus"], ["no-such-command"]]) {
      const r = meshinject(...args);
      assert.equal(r.code, 1, args.join(" "));
      assert.match(r.stderr, /^meshinject: (required option|unknown option|unknown command) /, args.join(" "));
      assert.doesNotMatch(r.stderr, /^error:/m);
    }
  });
});
