import assert from "node:assert/strict";
import { test } from "node:test";
import { readYaml } from "../go/yaml/read.js";
import { builtInConfigDocument } from "./built-in-config.js";
import { parseInjectorConfig } from "./config.js";
import { defaultConfigFiles } from "./defaults.js";

test("the built-in config's document is what reading its text gives, for that very text only", () => {
  const { config } = defaultConfigFiles();
  const given = builtInConfigDocument(config);
  assert.ok(given !== undefined);
  assert.deepStrictEqual(given, readYaml(config));
  // A revision's control plane has the same config text.
  assert.deepStrictEqual(builtInConfigDocument(defaultConfigFiles("canary").config), readYaml(config));
  // Each answer is a new object, as a fresh read is.
  assert.notStrictEqual(builtInConfigDocument(config), given);
  // Any other text (a user's edited copy) is read as usual.
  const edited = config.replace("policy: enabled", "policy: disabled");
  assert.equal(builtInConfigDocument(edited), undefined);
  assert.equal(parseInjectorConfig(edited).policy, "disabled");
  assert.equal(builtInConfigDocument(`${config} `), undefined);
  assert.deepStrictEqual(parseInjectorConfig(config), parseInjectorConfig(`${config}\n`));
});
