import assert from "node:assert/strict";
import { test } from "node:test";
import { configMapHasKey, configMapKey } from "./injector.js";

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
