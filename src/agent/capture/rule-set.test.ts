import assert from "node:assert/strict";
import { test } from "node:test";
import { IP_VERSION_SPECIFIC, RuleSet, restoreLines } from "./rule-set.js";

test("chains are declared before rules: chains with rules first, then jump targets; built-ins never", () => {
  const rules = new RuleSet(false);
  rules.append("OUTPUT", "nat", "-j", "ISTIO_OUT");
  rules.append("ISTIO_A", "nat", "-j", "ISTIO_B");
  rules.append("ISTIO_A", "nat", "-j", "RETURN");
  rules.append("ISTIO_C", "nat", "-j", "REDIRECT", "--to-ports", "1");
  assert.deepEqual(rules.restoreV4(), [
    "* nat",
    "-N ISTIO_A",
    "-N ISTIO_C",
    "-N ISTIO_OUT",
    "-N ISTIO_B",
    "-A OUTPUT -j ISTIO_OUT",
    "-A ISTIO_A -j ISTIO_B",
    "-A ISTIO_A -j RETURN",
    "-A ISTIO_C -j REDIRECT --to-ports 1",
    "COMMIT",
  ]);
});

test("tables come in name order and empty ones are left out", () => {
  const rules = new RuleSet(false);
  rules.append("OUTPUT", "raw", "-j", "X");
  rules.append("PREROUTING", "nat", "-j", "RETURN");
  rules.insert("PREROUTING", "mangle", 2, "-j", "RETURN");
  const tables = rules.restoreV4().filter((l) => l.startsWith("* "));
  assert.deepEqual(tables, ["* mangle", "* nat", "* raw"]);
  assert.ok(rules.restoreV4().includes("-I PREROUTING 2 -j RETURN"));
});

test("IPv6 rules are kept only when IPv6 is enabled; versioned rules get each family's value", () => {
  const off = new RuleSet(false);
  off.appendVersioned("127.0.0.1/32", "::1/128", "ISTIO_OUTPUT", "nat", "-d", IP_VERSION_SPECIFIC, "-j", "RETURN");
  assert.deepEqual(off.restoreV6(), []);
  assert.ok(off.restoreV4().includes("-A ISTIO_OUTPUT -d 127.0.0.1/32 -j RETURN"));

  const on = new RuleSet(true);
  on.appendVersioned("127.0.0.1/32", "::1/128", "ISTIO_OUTPUT", "nat", "-d", IP_VERSION_SPECIFIC, "-j", "RETURN");
  on.appendV4("ISTIO_OUTPUT", "nat", "-d", "10.0.0.0/8", "-j", "RETURN");
  assert.deepEqual(on.restoreV6(), ["* nat", "-N ISTIO_OUTPUT", "-A ISTIO_OUTPUT -d ::1/128 -j RETURN", "COMMIT"]);
});

test("no rules, no input", () => {
  assert.deepEqual(restoreLines([]), []);
});
