// biome-ignore-all lint/style/noNonNullAssertion: tests index results and tables whose entries the assertions are about; a missing one fails the test either way
// Expectations captured from the Go oracle (Go 1.19 + Sprig 3.2.3 + Masterminds/semver 3.2.0).
import assert from "node:assert/strict";
import { test } from "node:test";
import { GoError, isGoFunc, TypedNumber, typeName } from "../../go/value.js";
import { type SemverVersion, semverFuncs } from "./semver.js";

/** [constraint, version, result or error message] */
const COMPARE_TABLE: [string, string, boolean | string][] = [
  ["^1.2.0", "1.2.3", true],
  ["^1.2.0", "2.2.3", false],
  [">=1.2.0 <2.0.0", "1.5.0", true],
  ["~1.2", "1.3.0", false],
  [">=1.0.0", "1.1.0-beta", false],
  [">=1.0.0-0", "1.1.0-beta", true],
  [">=1.21-0", "v1.28.3-gke.100", true],
  ["*", "1.0.0", true],
  ["*", "1.0.0-rc1", false],
  ["1.x", "1.9.9", true],
  ["1.x", "2.0.0", false],
  ["1.2.x", "1.2.9", true],
  ["1.2.x", "1.3.0", false],
  ["!=1.2.3", "1.2.3", false],
  ["!=1.2.3", "1.2.4", true],
  ["!=1.x", "1.5.0", false],
  ["!=1.x", "2.0.0", true],
  ["!=1.2.x", "1.2.5", false],
  [">1.2", "1.2.9", false],
  [">1.2", "1.3.0", true],
  [">1", "1.9.0", false],
  [">1", "2.0.0", true],
  ["<=1.2", "1.2.9", true],
  ["<=1.2", "1.3.0", false],
  ["<=1", "1.9.0", true],
  ["~1.2.3", "1.2.9", true],
  ["~1.2.3", "1.3.0", false],
  ["~1", "1.9.0", true],
  ["~0", "5.0.0", false],
  ["~*", "5.0.0", true],
  ["^0.2.3", "0.2.9", true],
  ["^0.2.3", "0.3.0", false],
  ["^0.0.3", "0.0.3", true],
  ["^0.0.3", "0.0.4", false],
  ["^0.0", "0.0.9", true],
  ["^0.0", "0.1.0", false],
  ["^0", "0.9.0", true],
  ["^0", "1.0.0", false],
  ["^*", "9.9.9", false],
  ["1.2 - 1.4.5", "1.4.5", true],
  ["1.2 - 1.4.5", "1.4.6", false],
  ["1.2.3 - 2", "2.0.0", true],
  ["1 - 2 || 3.x", "3.5.0", true],
  [">=1.2 <2 || >3", "3.0.1", false],
  [">= 1.2, < 2", "1.9.9", true],
  ["1.2.3 || 2.0.0", "2.0.0", true],
  ["v1.2.3", "1.2.3", true],
  ["1.2.3+meta", "1.2.3", true],
  ["=1.2.3", "1.2.3+build", true],
  ["~1.2.3-beta", "1.2.3-beta.2", true],
  ["^1.2.3-beta", "1.2.3-alpha", false],
  ["<1.2.3-beta", "1.2.3-alpha", true],
  [">1.2.3-beta", "1.2.4-rc.1", true],
  [" >=1.2  ", "1.2.0", true],
  ["1.2.3-alpha.10", ">", "Invalid Semantic Version"],
  ["", "1.0.0", "improper constraint: "],
  ["1|2", "1.0.0", "constraint Parser Error"],
  ["foo", "1.0.0", "improper constraint: foo"],
  ["1,,2", "1.0.0", "improper constraint: 1,,2"],
  ["1.2.3", "x", "Invalid Semantic Version"],
  ["1.2.3", "1.2.3-01", "Version segment starts with 0"],
  [
    "1",
    "99999999999999999999.0.0",
    'Error parsing version segment: strconv.ParseUint: parsing "99999999999999999999": value out of range',
  ],
  ["1.2.3", "1.2.3-a..b", "Invalid Semantic Version"],
  [",1.2", "1.2.0", "improper constraint: ,1.2"],
  ["1 2", "1.0.0", false],
];

test("semverCompare follows Masterminds' constraint rules and error texts", () => {
  for (const [constraint, version, want] of COMPARE_TABLE) {
    const label = `semverCompare ${JSON.stringify(constraint)} ${JSON.stringify(version)}`;
    if (typeof want === "boolean") {
      assert.equal(semverFuncs.semverCompare!.fn(constraint, version), want, label);
    } else {
      assert.throws(
        () => semverFuncs.semverCompare!.fn(constraint, version),
        (e: unknown) => e instanceof GoError && e.message === want,
        label,
      );
    }
  }
});

function method(v: unknown, name: string, ...args: unknown[]): unknown {
  const m = (v as SemverVersion).goMethod(name);
  assert.ok(m && isGoFunc(m), `method ${name}`);
  return m.fn(...args);
}

const parse = (s: string) => semverFuncs.semver!.fn(s) as SemverVersion;

test("semver returns a *semver.Version with Go's methods", () => {
  const v = parse("1.2.3-rc.1+build");
  assert.equal(typeName(v), "*semver.Version");
  assert.deepEqual(method(v, "Major"), new TypedNumber("uint64", 1n));
  assert.deepEqual(method(v, "Minor"), new TypedNumber("uint64", 2n));
  assert.deepEqual(method(v, "Patch"), new TypedNumber("uint64", 3n));
  assert.equal(method(v, "Prerelease"), "rc.1");
  assert.equal(method(v, "Metadata"), "build");
  assert.equal(method(v, "String"), "1.2.3-rc.1+build");
  assert.equal(v.goField("major"), undefined);
  assert.equal(method(parse("v1.2.3"), "Original"), "v1.2.3");
  assert.equal(method(parse("1.2"), "String"), "1.2.0");
});

test("comparison methods", () => {
  assert.equal(method(parse("1.2.3"), "Compare", parse("1.2.3")), 0n);
  assert.equal(method(parse("1.2.3"), "Compare", parse("1.4.3")), -1n);
  assert.equal(method(parse("1.2.3-alpha"), "Compare", parse("1.2.3-alpha.1")), -1n);
  assert.equal(method(parse("1.2.3-alpha.10"), "LessThan", parse("1.2.3-alpha.9")), false);
  assert.equal(method(parse("2.0.0"), "GreaterThan", parse("1.9.9")), true);
  assert.equal(method(parse("1.0.0+a"), "Equal", parse("1.0.0+b")), true);
});

test("Inc* and Set* return semver.Version values without pointer methods", () => {
  const inc = method(parse("v1.2.3-beta+m"), "IncPatch") as SemverVersion;
  assert.equal(typeName(inc), "semver.Version");
  assert.equal(method(inc, "String"), "1.2.3");
  assert.equal(inc.goMethod("Original"), undefined);
  assert.equal(inc.goMethod("Compare"), undefined);
  assert.equal(method(method(parse("1.2.3"), "IncPatch"), "String"), "1.2.4");
  assert.equal(method(method(parse("1.2.3"), "IncMinor"), "String"), "1.3.0");
  assert.equal(method(method(parse("1.2.3"), "IncMajor"), "String"), "2.0.0");
  assert.equal(method(method(parse("1.2.3"), "SetMetadata", "a.b"), "String"), "1.2.3+a.b");
  assert.throws(() => method(parse("1.2.3"), "SetPrerelease", "01"), /Version segment starts with 0/);
});

test("semver errors", () => {
  assert.throws(
    () => parse("x"),
    (e: unknown) => e instanceof GoError && e.message === "Invalid Semantic Version",
  );
  assert.throws(() => parse("1.2.3-01"), /Version segment starts with 0/);
});
