// End-to-end tests of `meshinject uninject` and of `--diff` (kube-inject and uninject), run in
// process through main(argv, io).
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { meshinjectWithInput, repoRoot } from "../../test/meshinject-cli.js";

const root = repoRoot;
const meshinject = (args: string[], input = "") => meshinjectWithInput(input, ...args);
const curlPath = join(root, "examples/curl.yaml");

describe("meshinject uninject", async () => {
  const dir = await mkdtemp(join(tmpdir(), "meshinject-uninject-"));
  after(() => rm(dir, { recursive: true, force: true }));
  const curl = await readFile(join(root, "examples/curl.yaml"), "utf8");
  const injected = (await await meshinject(["kube-inject", "-f", curlPath])).stdout;

  it("undoes kube-inject: injecting the result again gives the same output", async () => {
    const out = join(dir, "curl.yaml");
    const r = await meshinject(["uninject", "-f", "-", "-o", out], injected);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
    const back = await readFile(out, "utf8");
    assert.doesNotMatch(back, /istio-proxy|istio-init|sidecar\.istio\.io\/status|tlsMode/);
    // Nothing the app did not write: Go's empty structs of the typed output are not given back.
    assert.doesNotMatch(back, /^status:|strategy: \{\}|resources: \{\}|creationTimestamp: null/m);
    assert.equal((await meshinject(["kube-inject", "-f", out])).stdout, injected);
    // Nothing left to undo: the diff against the uninjected file is empty.
    assert.equal((await meshinject(["uninject", "-f", out, "--diff"])).stdout, "");
  });

  it("--diff shows, per changed document, what the command changed (no colour when piped)", async () => {
    const r = await meshinject(["kube-inject", "-f", curlPath, "--diff"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /^--- a\/.*\/examples\/curl\.yaml\tdocument 3 \(Deployment "curl"\)\n\+\+\+ b\/.*\/examples\/curl\.yaml\tdocument 3/,
    );
    assert.match(r.stdout, /^\+ {6}- args:$/m);
    assert.match(r.stdout, /^\+ {8}security\.istio\.io\/tlsMode: istio$/m);
    // The ServiceAccount and Service are unchanged, and the input's layout is not a change.
    assert.doesNotMatch(r.stdout, /document [12] /);
    assert.doesNotMatch(r.stdout, /^- {8}- name: curl$/m);
    assert.equal(r.stdout.includes("\u001b["), false);
    const back = await meshinject(["uninject", "-f", "-", "--diff"], injected);
    assert.match(back.stdout, /^- {8}security\.istio\.io\/tlsMode: istio$/m);
    assert.equal(curl.includes("istio-proxy"), false);
  });

  it("refuses a workload whose record is broken, in one line naming the document, and writes nothing", async () => {
    const broken = injected.replace(/sidecar\.istio\.io\/status: '[^']*'/, "sidecar.istio.io/status: 'nope'");
    const out = join(dir, "never.yaml");
    await writeFile(join(dir, "broken.yaml"), broken);
    const r = await meshinject(["uninject", "-f", join(dir, "broken.yaml"), "-o", out]);
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /^meshinject: .*broken\.yaml: document 3: Deployment "curl": annotation sidecar\.istio\.io\/status is not a JSON object \("nope"\): what the injection added cannot be told\n$/,
    );
    await assert.rejects(readFile(out));
  });

  it("explains itself in --help", async () => {
    const r = await meshinject(["uninject", "--help"]);
    assert.match(r.stdout, /inverse of kube-inject/);
    assert.match(r.stdout, /--diff/);
    assert.match(r.stdout, /ISTIO_KUBE_APP_PROBERS/);
  });
});
