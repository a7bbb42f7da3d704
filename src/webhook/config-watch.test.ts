// Config sources and the reference-pod check.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { defaultConfigFiles } from "../inject/defaults.js";
import { review } from "./admission.js";
import { buildState, ConfigRejectedError, configFiles, configPaths, injectorSources } from "./config-watch.js";
import { referencePods } from "./reference-pods.js";

const settings = { revision: "", nativeSidecars: "off" as const };

test("configFiles: a ConfigMap folder (mesh optional), single files winning over it, nothing for built-in", () => {
  const dir = mkdtempSync(join(tmpdir(), "meshinject-config-"));
  try {
    assert.deepEqual(configFiles({ configDir: dir }), {
      config: join(dir, "config"),
      values: join(dir, "values"),
      mesh: undefined,
    });
    writeFileSync(join(dir, "mesh"), "");
    assert.equal(configFiles({ configDir: dir }).mesh, join(dir, "mesh"));
    assert.equal(configFiles({ configDir: dir, valuesFile: "/v.json" }).values, "/v.json");
    assert.deepEqual(configPaths(configFiles({})), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("injectorSources: built-in texts fill the gaps; a whole ConfigMap as config also gives values", () => {
  const builtin = defaultConfigFiles();
  const only = injectorSources({ mesh: "/m" }, new Map([["/m", "trustDomain: x\n"]]));
  assert.equal(only.config, builtin.config);
  assert.equal(only.mesh, "trustDomain: x\n");
  const cm = "apiVersion: v1\nkind: ConfigMap\ndata:\n  config: |\n    policy: enabled\n  values: '{}'\n";
  const whole = injectorSources({ config: "/cm.yaml" }, new Map([["/cm.yaml", cm]]));
  assert.equal(whole.values, cm);
});

test("the built-in config answers every reference pod with an injection", () => {
  const state = buildState(injectorSources({}, new Map()), settings);
  for (const pod of referencePods()) {
    const result = review(pod.review, "/inject", state);
    assert.equal(result.outcome.kind, "injected", `${pod.name}: ${JSON.stringify(result.outcome)}`);
  }
});

test("buildState refuses a config that loads but fails on a reference pod, naming it", () => {
  const builtin = defaultConfigFiles();
  const broken = builtin.config.replace(/^( {2}sidecar: \|\n)/m, '$1    {{ fail "nope" }}\n');
  assert.throws(
    () => buildState({ config: broken, values: builtin.values, mesh: builtin.mesh }, settings),
    (e) => e instanceof ConfigRejectedError && /reference pod deployment-pod was not injected: .*nope/.test(e.message),
  );
  assert.throws(() => buildState({ config: "policy: [", values: "{}", mesh: "" }, settings), ConfigRejectedError);
});
