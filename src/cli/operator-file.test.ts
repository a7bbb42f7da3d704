// `--operatorFileName`: kube-inject (and uninject) with the configuration an IstioOperator install
// file makes, offline, run in process through main(argv, io).
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { meshinjectWithInput, repoRoot } from "../../test/meshinject-cli.js";

const meshinject = (args: string[], input = "") => meshinjectWithInput(input, ...args);
const curl = join(repoRoot, "examples/curl.yaml");

const IOP = `apiVersion: install.istio.io/v1alpha1
kind: IstioOperator
metadata:
  name: canary
spec:
  profile: demo
  hub: registry.example.com/istio
  tag: 1.28.1
  revision: canary
`;

describe("kube-inject --operatorFileName", async () => {
  const dir = await mkdtemp(join(tmpdir(), "meshinject-iop-"));
  after(() => rm(dir, { recursive: true, force: true }));
  const iop = join(dir, "iop.yaml");
  await writeFile(iop, IOP);

  it("injects as that install would: its images, its revision's istiod, its profile's proxy resources", async () => {
    const r = await meshinject(["kube-inject", "-f", curl, "--operatorFileName", iop]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /image: registry\.example\.com\/istio\/proxyv2:1\.28\.1/);
    assert.match(r.stdout, /istio\.io\/rev: canary/);
    assert.match(r.stdout, /istiod-canary\.istio-system\.svc:15012/);
    assert.match(r.stdout, /requests:\n {12}cpu: 10m\n {12}memory: 40Mi/);
    // The same file undoes it.
    const back = await meshinject(["uninject", "-f", "-", "--operatorFileName", iop], r.stdout);
    assert.equal(back.code, 0, back.stderr);
    assert.doesNotMatch(back.stdout, /istio-proxy|istio\.io\/rev/);
  });

  it("says what is wrong in one line", async () => {
    const both = await meshinject(["kube-inject", "-f", curl, "--operatorFileName", iop, "--valuesFile", iop]);
    assert.equal(both.code, 1);
    assert.equal(
      both.stderr,
      "meshinject: --operatorFileName supplies the values and the mesh config: give it or --valuesFile, not both\n",
    );
    const notIop = await meshinject(["kube-inject", "-f", curl, "--operatorFileName", curl]);
    assert.equal(notIop.code, 1);
    assert.match(notIop.stderr, /^meshinject: \S*examples\/curl\.yaml: not an IstioOperator \(kind ServiceAccount\)/);
    const missing = await meshinject(["kube-inject", "-f", curl, "--operatorFileName", join(dir, "nope.yaml")]);
    assert.match(missing.stderr, /^meshinject: cannot read IstioOperator file .*nope\.yaml/);
  });
});
