import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { caseEnv, caseInjector, type IstioInjectCase } from "./istio-inject-case.js";

// FORMAT.md section 4: the templates' `env` reads istiod's environment, which for a case is its
// `environment` (older releases' templates decide native sidecars with env "ENABLE_NATIVE_SIDECARS").
test("a case's templates read the case's environment through env, and only it", () => {
  const dir = mkdtempSync(join(tmpdir(), "istio-inject-case-"));
  try {
    const template =
      '{{ env "ENABLE_NATIVE_SIDECARS" "unset" }}/{{ env "PLATFORM" "none" }}/{{ env "HOME" "no-home" }}';
    writeFileSync(join(dir, "injector-config.json"), JSON.stringify({ templates: { t: template } }));
    writeFileSync(join(dir, "values.json"), "{}");
    writeFileSync(join(dir, "mesh.yaml"), "{}\n");
    const meta = { environment: { ENABLE_NATIVE_SIDECARS: "false", PLATFORM: "" } } as unknown as IstioInjectCase;
    const t = caseInjector(dir, meta).settings.templates.get("t");
    // An empty value counts as unset (Go's helper falls back to the default); the runner's own HOME stays out.
    assert.equal(t?.execute({}), "false/none/no-home");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.equal(caseEnv({ environment: { A: "1" } })("A"), "1");
  assert.equal(caseEnv({ environment: { A: "1" } })("B"), undefined);
});
