// Config sources and the reference-pod check.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { defaultConfigFiles } from "../inject/defaults.js";
import { reviewBody, type WebhookState } from "./admission.js";
import {
  buildState,
  ConfigRejectedError,
  configFiles,
  configPaths,
  injectorSources,
  loadConfig,
  watchConfig,
} from "./config-watch.js";
import { referencePods } from "./reference-pods.js";

const settings = { revision: "", nativeSidecars: "off" as const };

test("configFiles: a ConfigMap folder (mesh optional, present or not), single files winning over it", () => {
  const dir = "/etc/inject";
  const mesh = join(dir, "mesh");
  const folder = { config: join(dir, "config"), values: join(dir, "values"), mesh, optional: [mesh] };
  assert.deepEqual(configFiles({ configDir: dir }), folder, "mesh is watched even if it is not there yet");
  const { optional: _, ...required } = folder;
  assert.deepEqual(
    configFiles({ configDir: dir, meshConfigFile: "/m" }),
    { ...required, mesh: "/m" },
    "a flag is required",
  );
  assert.equal(configFiles({ configDir: dir, valuesFile: "/v.json" }).values, "/v.json");
  assert.deepEqual(configPaths(configFiles({})), []);
});

test("injectorSources: an absent optional file is the built-in text, a present one is read", () => {
  const builtin = defaultConfigFiles();
  const files = configFiles({ configDir: "/d" });
  const base = new Map([
    ["/d/config", builtin.config],
    ["/d/values", builtin.values],
  ]);
  const absent = injectorSources(files, base);
  assert.equal(absent.mesh, builtin.mesh);
  assert.equal(absent.names?.mesh, "built-in mesh config");
  const present = injectorSources(files, new Map([...base, ["/d/mesh", "trustDomain: x\n"]]));
  assert.equal(present.mesh, "trustDomain: x\n");
  assert.equal(present.names?.mesh, "/d/mesh");
  // A required file missing from the texts is not replaced by the built-in one.
  assert.equal(injectorSources(files, new Map()).config, "");
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
    const result = reviewBody(pod.review, "/inject", state);
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

test("a folder's mesh added after start-up is used; removed again, the config is the start-up one", async () => {
  const builtin = defaultConfigFiles();
  const dir = mkdtempSync(join(tmpdir(), "meshinject-config-"));
  writeFileSync(join(dir, "config"), builtin.config);
  writeFileSync(join(dir, "values"), builtin.values);
  const files = configFiles({ configDir: dir });
  const loaded = await loadConfig(files, settings);
  const reloads: WebhookState[] = [];
  const errors: string[] = [];
  const watch = watchConfig(
    files,
    loaded,
    settings,
    { onReload: (s) => reloads.push(s), onError: (e) => errors.push(e.message) },
    60_000,
  );
  try {
    assert.equal(loaded.state.injector.meshConfig.trustDomain, "cluster.local");
    writeFileSync(join(dir, "mesh"), "trustDomain: added.example\n");
    await watch.check();
    assert.equal(reloads.length, 1, "the new file is read without a restart");
    assert.equal(reloads[0]?.injector.meshConfig.trustDomain, "added.example");
    unlinkSync(join(dir, "mesh"));
    await watch.check();
    assert.equal(reloads.length, 2);
    assert.deepEqual(reloads[1]?.injector.meshConfig, loaded.state.injector.meshConfig);
    // config and values are required, as at start-up: removing one is a refused reload.
    unlinkSync(join(dir, "values"));
    await watch.check();
    assert.equal(reloads.length, 2);
    assert.equal(errors.length, 1);
    assert.match(errors[0] ?? "", /cannot read .*values/);
  } finally {
    watch.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("injectorSources: a named revision's built-in texts fill in what no file gives", () => {
  const files = configFiles({ revision: "canary" });
  const sources = injectorSources(files, new Map());
  assert.deepEqual(
    { values: sources.values, mesh: sources.mesh },
    { values: defaultConfigFiles("canary").values, mesh: defaultConfigFiles("canary").mesh },
  );
  assert.match(sources.mesh, /istiod-canary\.istio-system\.svc:15012/);
  assert.equal(injectorSources(configFiles({}), new Map()).mesh, defaultConfigFiles().mesh);
});
