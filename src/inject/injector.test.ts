import assert from "node:assert/strict";
import { test } from "node:test";
import { ConfigError, type InjectorConfig, parseInjectorConfig } from "./config.js";
import { DEFAULT_TEMPLATE_NAMES, defaultConfigFiles, isBuiltInTemplate } from "./defaults.js";
import { compileTemplates, configMapHasKey, configMapKey, loadInjector } from "./injector.js";

const configMap = (data: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: istio-sidecar-injector\ndata:\n${data}`;

test("configMapHasKey tells a whole ConfigMap holding the key from anything else", () => {
  assert.equal(configMapHasKey(configMap('  config: "policy: enabled"\n  values: "{}"\n'), "values"), true);
  // A template that mentions `values:` is not a values key.
  assert.equal(configMapHasKey(configMap('  config: "templates:\\n  x: \\"values: 1\\""\n'), "values"), false);
  assert.equal(configMapHasKey("policy: enabled\nvalues: {}\n", "values"), false);
  assert.equal(configMapHasKey("{ not yaml", "values"), false);
});

test("configMapKey takes the key from a ConfigMap and passes other text through", () => {
  assert.equal(configMapKey(configMap('  values: "{}"\n'), "values", "f"), "{}");
  assert.equal(configMapKey("policy: enabled\n", "config", "f"), "policy: enabled\n");
  assert.throws(
    () => configMapKey(configMap('  config: "x"\n'), "values", "f.yaml"),
    /f\.yaml: ConfigMap has no data\.values/,
  );
});

// Regression (issue 9): Sprig's expandenv read process.env even when the injector's env said nothing is set.
test("templates read the environment the injector was given, expandenv included", () => {
  process.env.MESHINJECT_INJECTOR_TEST = "from-process";
  try {
    const config = { templates: { t: '{{ expandenv "[$MESHINJECT_INJECTOR_TEST]" }}' } } as unknown as InjectorConfig;
    assert.equal(
      compileTemplates(config, () => undefined)
        .get("t")
        ?.execute(null),
      "[]",
    );
    assert.equal(
      compileTemplates(config, (n) => (n === "MESHINJECT_INJECTOR_TEST" ? "given" : undefined))
        .get("t")
        ?.execute(null),
      "[given]",
    );
  } finally {
    delete process.env.MESHINJECT_INJECTOR_TEST;
  }
});

test("config keys Istio ignores are ignored and reported; keys match their fields ignoring case, as encoding/json does", () => {
  const loaded = loadInjector({
    config: "Policy: disabled\nDefaultTemplates: [a]\ntemplates:\n  a: 'spec: {}'\nsidecarTemplate: old\n",
    values: "{}",
    mesh: "",
  });
  assert.equal(loaded.config.policy, "disabled");
  assert.deepEqual(loaded.config.defaultTemplates, ["a"]);
  assert.deepEqual(loaded.warnings, ["config: unknown field sidecarTemplate (ignored, as Istio ignores it: a typo?)"]);
  const exact = parseInjectorConfig("policy: enabled\nPOLICY: disabled\n");
  // Keys go to encoding/json sorted ("POLICY" < "policy"): the later one for a field wins.
  assert.equal(exact.policy, "enabled");
  assert.equal(parseInjectorConfig("policy: enabled\nPolicy: disabled\n").policy, "enabled");
});

test("the built-in templates parse when first used; any other template when the config loads", () => {
  const builtIn = parseInjectorConfig(defaultConfigFiles().config);
  const templates = compileTemplates(builtIn, () => undefined);
  assert.deepEqual([...templates.keys()], [...DEFAULT_TEMPLATE_NAMES]);
  for (const name of DEFAULT_TEMPLATE_NAMES) {
    assert.equal(isBuiltInTemplate(name, builtIn.templates[name] as string), true, name);
    // The guarantee the deferred parse relies on: every built-in template parses.
    assert.equal(templates.get(name)?.name, "inject", name);
  }
  assert.equal([...templates.values()].length, DEFAULT_TEMPLATE_NAMES.length);

  // The same text under another name, or a changed text under a built-in name, is parsed at load.
  const sidecar = builtIn.templates.sidecar as string;
  assert.equal(isBuiltInTemplate("gateway", sidecar), false);
  const broken = { ...builtIn, templates: { ...builtIn.templates, sidecar: `${sidecar}{{ end }}` } };
  assert.equal(isBuiltInTemplate("sidecar", broken.templates.sidecar), false);
  assert.throws(
    () => compileTemplates(broken, () => undefined, "inject.yaml"),
    (e: unknown) => {
      assert.ok(e instanceof ConfigError);
      assert.match(e.message, /^inject\.yaml: templates\.sidecar: /);
      return true;
    },
  );
});
