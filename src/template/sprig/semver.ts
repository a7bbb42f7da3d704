// biome-ignore-all lint/style/noNonNullAssertion: a port of Go code that indexes arrays, regex groups and function tables after checking lengths and names; `!` marks those places
/**
 * Sprig's `semver` and `semverCompare`, built on our own port of the rules of Masterminds/semver
 * v3.2.0 (the version Sprig 3.2.3 is built with). node-semver is not used: its range semantics
 * (prerelease handling, `x` ranges, `!=`, the empty constraint) differ from Masterminds'.
 *
 * Masterminds parses with regular expressions. The same expressions are used here: Go's regexp and
 * JavaScript's both pick the leftmost-first (backtracking-order) match, so matches and submatches
 * agree; only `\s` differs (Go: [\t\n\f\r ]), so it is spelled out.
 */

import { parseUint64, quote } from "../../go/strconv.js";
import { GO_OBJECT, GoError, type GoFunc, type GoObject, type GoValue, goFunc, TypedNumber } from "../../go/value.js";

const S = "[\\t\\n\\f\\r ]"; // Go's \s

const VERSION_RE = new RegExp(
  "^v?([0-9]+)(\\.[0-9]+)?(\\.[0-9]+)?" +
    "(-([0-9A-Za-z\\-]+(\\.[0-9A-Za-z\\-]+)*))?" +
    "(\\+([0-9A-Za-z\\-]+(\\.[0-9A-Za-z\\-]+)*))?$",
);

/** strconv.ParseUint(s, 10, 64), or undefined when it would fail. */
function parseUint(s: string): bigint | undefined {
  const r = parseUint64(s, 10);
  return r.err === undefined ? r.value : undefined;
}

/** A parsed version, standing for `*semver.Version` (or `semver.Version` for results of IncMajor and friends). */
export class SemverVersion implements GoObject {
  readonly [GO_OBJECT] = true as const;

  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly pre: string,
    readonly metadata: string,
    readonly original: string,
    /** Go's method sets differ: a plain `Version` value lacks the pointer-receiver methods. */
    readonly isPointer = true,
  ) {}

  toString(): string {
    let s = `${this.major}.${this.minor}.${this.patch}`;
    if (this.pre) s += `-${this.pre}`;
    if (this.metadata) s += `+${this.metadata}`;
    return s;
  }

  compare(o: SemverVersion): number {
    for (const [a, b] of [
      [this.major, o.major],
      [this.minor, o.minor],
      [this.patch, o.patch],
    ] as const) {
      if (a !== b) return a < b ? -1 : 1;
    }
    if (this.pre === "" && o.pre === "") return 0;
    if (this.pre === "") return 1;
    if (o.pre === "") return -1;
    return comparePrerelease(this.pre, o.pre);
  }

  goTypeName(): string {
    return this.isPointer ? "*semver.Version" : "semver.Version";
  }

  goField(_name: string): GoValue | undefined {
    return undefined; // every field of semver.Version is unexported
  }

  goFields(): ReadonlyArray<readonly [string, GoValue]> {
    return [
      ["major", new TypedNumber("uint64", this.major)],
      ["minor", new TypedNumber("uint64", this.minor)],
      ["patch", new TypedNumber("uint64", this.patch)],
      ["pre", this.pre],
      ["metadata", this.metadata],
      ["original", this.original],
    ];
  }

  goMethod(name: string): GoFunc | undefined {
    const valueMethods: Record<string, () => GoFunc> = {
      String: () => goFunc("String", [], () => this.toString(), "string"),
      Major: () => goFunc("Major", [], () => new TypedNumber("uint64", this.major), "uint64"),
      Minor: () => goFunc("Minor", [], () => new TypedNumber("uint64", this.minor), "uint64"),
      Patch: () => goFunc("Patch", [], () => new TypedNumber("uint64", this.patch), "uint64"),
      Prerelease: () => goFunc("Prerelease", [], () => this.pre, "string"),
      Metadata: () => goFunc("Metadata", [], () => this.metadata, "string"),
      IncPatch: () => goFunc("IncPatch", [], () => this.incremented("patch"), "semver.Version"),
      IncMinor: () => goFunc("IncMinor", [], () => this.incremented("minor"), "semver.Version"),
      IncMajor: () => goFunc("IncMajor", [], () => this.incremented("major"), "semver.Version"),
      SetPrerelease: () =>
        goFunc("SetPrerelease", ["string"], (p) => this.withExtra("pre", p as string), "(semver.Version, error)"),
      SetMetadata: () =>
        goFunc("SetMetadata", ["string"], (m) => this.withExtra("metadata", m as string), "(semver.Version, error)"),
      MarshalJSON: () =>
        goFunc("MarshalJSON", [], () => Buffer.from(JSON.stringify(this.toString())), "([]uint8, error)"),
      MarshalText: () => goFunc("MarshalText", [], () => Buffer.from(this.toString()), "([]uint8, error)"),
      Value: () => goFunc("Value", [], () => this.toString(), "(driver.Value, error)"),
    };
    const pointerMethods: Record<string, () => GoFunc> = {
      Original: () => goFunc("Original", [], () => this.original, "string"),
      Compare: () => goFunc("Compare", [VERSION_PTR], (o) => BigInt(this.compare(versionArg(o))), "int"),
      LessThan: () => goFunc("LessThan", [VERSION_PTR], (o) => this.compare(versionArg(o)) < 0, "bool"),
      GreaterThan: () => goFunc("GreaterThan", [VERSION_PTR], (o) => this.compare(versionArg(o)) > 0, "bool"),
      Equal: () => goFunc("Equal", [VERSION_PTR], (o) => this.compare(versionArg(o)) === 0, "bool"),
    };
    if (Object.hasOwn(valueMethods, name)) return valueMethods[name]!();
    if (this.isPointer && Object.hasOwn(pointerMethods, name)) return pointerMethods[name]!();
    return undefined;
  }

  /** The Inc* methods: Masterminds keeps the patch when a prerelease/metadata is dropped by IncPatch. */
  private incremented(part: "major" | "minor" | "patch"): SemverVersion {
    let { major, minor, patch } = this;
    if (part === "major") [major, minor, patch] = [BigInt.asUintN(64, major + 1n), 0n, 0n];
    else if (part === "minor") [minor, patch] = [BigInt.asUintN(64, minor + 1n), 0n];
    else if (this.pre === "") patch = BigInt.asUintN(64, patch + 1n);
    return this.rebuilt(major, minor, patch, "", "");
  }

  private withExtra(which: "pre" | "metadata", value: string): SemverVersion {
    if (value !== "") {
      const err = which === "pre" ? validatePrerelease(value) : validateMetadata(value);
      if (err) throw new GoError(err);
    }
    const pre = which === "pre" ? value : this.pre;
    const metadata = which === "metadata" ? value : this.metadata;
    return this.rebuilt(this.major, this.minor, this.patch, pre, metadata);
  }

  /** A new `semver.Version` value whose Original keeps a leading `v` of this one. */
  private rebuilt(major: bigint, minor: bigint, patch: bigint, pre: string, metadata: string): SemverVersion {
    const next = new SemverVersion(major, minor, patch, pre, metadata, "", false);
    const prefix = this.original.startsWith("v") ? "v" : "";
    return new SemverVersion(major, minor, patch, pre, metadata, prefix + next.toString(), false);
  }
}

const VERSION_PTR = "*semver.Version";

function versionArg(v: GoValue): SemverVersion {
  if (v instanceof SemverVersion) return v;
  // A typed nil *semver.Version: Go dereferences it and panics.
  throw new GoError("runtime error: invalid memory address or nil pointer dereference");
}

function comparePrerelease(a: string, b: string): number {
  const as = a.split(".");
  const bs = b.split(".");
  for (let i = 0; i < Math.max(as.length, bs.length); i++) {
    const d = comparePrePart(as[i] ?? "", bs[i] ?? "");
    if (d !== 0) return d;
  }
  return 0;
}

/** Numeric identifiers sort below alphanumeric ones; a missing identifier sorts lowest. */
function comparePrePart(s: string, o: string): number {
  if (s === o) return 0;
  if (s === "") return -1;
  if (o === "") return 1;
  const si = parseUint(s);
  const oi = parseUint(o);
  if (si === undefined && oi === undefined) return s > o ? 1 : -1;
  if (oi === undefined) return -1;
  if (si === undefined) return 1;
  return si > oi ? 1 : -1;
}

function validatePrerelease(p: string): string | undefined {
  for (const part of p.split(".")) {
    if (/^[0-9]*$/.test(part)) {
      if (part.length > 1 && part[0] === "0") return "Version segment starts with 0";
    } else if (!/^[0-9A-Za-z-]*$/.test(part)) {
      return "Invalid Prerelease string";
    }
  }
  return undefined;
}

function validateMetadata(m: string): string | undefined {
  return m.split(".").every((part) => /^[0-9A-Za-z-]*$/.test(part)) ? undefined : "Invalid Metadata string";
}

function segment(digits: string): bigint {
  const v = parseUint(digits);
  if (v === undefined) {
    throw new GoError(`Error parsing version segment: strconv.ParseUint: parsing ${quote(digits)}: value out of range`);
  }
  return v;
}

/** semver.NewVersion: lenient parsing (`v` prefix, missing minor/patch), errors as Go words them. */
export function parseVersion(v: string): SemverVersion {
  const m = VERSION_RE.exec(v);
  if (!m) throw new GoError("Invalid Semantic Version");
  const major = segment(m[1]!);
  const minor = m[2] ? segment(m[2].slice(1)) : 0n;
  const patch = m[3] ? segment(m[3].slice(1)) : 0n;
  const pre = m[5] ?? "";
  const metadata = m[8] ?? "";
  const err = (pre && validatePrerelease(pre)) || (metadata && validateMetadata(metadata));
  if (err) throw new GoError(err);
  return new SemverVersion(major, minor, patch, pre, metadata, v);
}

// --- constraints ---

const OPS = "=||!=|>|<|>=|=>|<=|=<|~|~>|\\^";
const CV =
  "v?([0-9|x|X|\\*]+)(\\.[0-9|x|X|\\*]+)?(\\.[0-9|x|X|\\*]+)?" +
  "(-([0-9A-Za-z\\-]+(\\.[0-9A-Za-z\\-]+)*))?" +
  "(\\+([0-9A-Za-z\\-]+(\\.[0-9A-Za-z\\-]+)*))?";

const CONSTRAINT_RE = new RegExp(`^${S}*(${OPS})${S}*(${CV})${S}*$`);
const RANGE_RE = new RegExp(`${S}*(${CV})${S}+-${S}+(${CV})${S}*`, "g");
const FIND_RE = new RegExp(`(${OPS})${S}*(${CV})`, "g");
const VALID_RE = new RegExp(`^(${S}*(${OPS})${S}*(${CV})${S}*)((?:${S}+|,${S}*)(${OPS})${S}*(${CV})${S}*)*$`);

type Op = "" | "=" | "!=" | ">" | "<" | ">=" | "=>" | "<=" | "=<" | "~" | "~>" | "^";

interface Constraint {
  con: SemverVersion;
  /** The version text as written, e.g. `4.x`. */
  orig: string;
  op: Op;
  dirty: boolean;
  minorDirty: boolean;
  patchDirty: boolean;
}

const isX = (s: string): boolean => s === "x" || s === "X" || s === "*";

function parseConstraint(c: string): Constraint {
  if (c.length === 0) {
    // Unreachable through NewConstraint (the validity check rejects it), kept for parity: "" means any.
    return { con: parseVersion("0.0.0"), orig: c, op: "", dirty: true, minorDirty: false, patchDirty: false };
  }
  const m = CONSTRAINT_RE.exec(c);
  if (!m) throw new GoError(`improper constraint: ${c}`);
  const [major, minor = "", patch = "", pre = ""] = [m[3]!, m[4], m[5], m[6]];
  let ver = m[2]!;
  let dirty = false;
  let minorDirty = false;
  let patchDirty = false;
  if (isX(major)) {
    ver = `0.0.0${pre}`;
    dirty = true;
  } else if (minor === "" || isX(minor.slice(1))) {
    ver = `${major}.0.0${pre}`;
    dirty = minorDirty = true;
  } else if (patch === "" || isX(patch.slice(1))) {
    ver = `${major}${minor}.0${pre}`;
    dirty = patchDirty = true;
  }
  let con: SemverVersion;
  try {
    con = parseVersion(ver);
  } catch {
    throw new GoError("constraint Parser Error");
  }
  return { con, orig: m[2]!, op: m[1] as Op, dirty, minorDirty, patchDirty };
}

/** `1.2 - 1.4.5` becomes `>= 1.2, <= 1.4.5`, replacing each range's first occurrence as Masterminds does. */
function rewriteRanges(s: string): string {
  let out = s;
  for (const m of s.matchAll(RANGE_RE)) out = out.replace(m[0], () => `>= ${m[1]}, <= ${m[11]}`);
  return out;
}

/** semver.NewConstraint: OR groups (`||`) of AND-ed constraints. */
export function parseConstraints(text: string): Constraint[][] {
  return rewriteRanges(text)
    .split("||")
    .map((group) => {
      if (!VALID_RE.test(group)) throw new GoError(`improper constraint: ${group}`);
      const found = Array.from(group.matchAll(FIND_RE), (m) => m[0]);
      return (found.length ? found : [group]).map(parseConstraint);
    });
}

/** Whether `v` satisfies one constraint (Masterminds' constraint functions, minus their error texts). */
function satisfies(v: SemverVersion, c: Constraint): boolean {
  const con = c.con;
  // A prerelease version only matches constraints that themselves name a prerelease.
  const prereleaseBlocked = v.pre !== "" && con.pre === "";
  switch (c.op) {
    case "!=":
      return notEqual(v, c);
    case ">":
      if (prereleaseBlocked) return false;
      if (!c.dirty) return v.compare(con) > 0;
      if (v.major !== con.major) return v.major > con.major;
      if (c.minorDirty) return false; // >11 excludes 11.x
      if (c.patchDirty) return v.minor > con.minor; // >11.1 excludes 11.1.x
      return v.compare(con) > 0;
    case "<":
      return !prereleaseBlocked && v.compare(con) < 0;
    case ">=":
    case "=>":
      return !prereleaseBlocked && v.compare(con) >= 0;
    case "<=":
    case "=<":
      if (prereleaseBlocked) return false;
      if (!c.dirty) return v.compare(con) <= 0;
      if (v.major > con.major) return false;
      return !(v.major === con.major && v.minor > con.minor && !c.minorDirty);
    case "~":
    case "~>":
      return !prereleaseBlocked && tilde(v, c);
    case "":
    case "=":
      if (prereleaseBlocked) return false;
      return c.dirty ? tilde(v, c) : v.compare(con) === 0;
    case "^":
      return !prereleaseBlocked && caret(v, c);
  }
}

function notEqual(v: SemverVersion, c: Constraint): boolean {
  const con = c.con;
  if (c.dirty) {
    if (v.pre !== "" && con.pre === "") return false;
    if (con.major !== v.major) return true;
    if (con.minor !== v.minor && !c.minorDirty) return true;
    if (c.minorDirty) return false;
    if (con.patch !== v.patch && !c.patchDirty) return true;
    if (c.patchDirty) {
      if (v.pre !== "" || con.pre !== "") return comparePrerelease(v.pre, con.pre) !== 0;
      return false;
    }
  }
  return v.compare(con) !== 0;
}

/** ~1.2.3 is >=1.2.3 <1.3.0; ~1 is >=1.0.0 <2.0.0; ~0 (no x) accepts everything at or above 0.0.0. */
function tilde(v: SemverVersion, c: Constraint): boolean {
  const con = c.con;
  if (v.compare(con) < 0) return false;
  if (con.major === 0n && con.minor === 0n && con.patch === 0n && !c.minorDirty && !c.patchDirty) return true;
  if (v.major !== con.major) return false;
  return v.minor === con.minor || c.minorDirty;
}

/** ^1.2.3 is >=1.2.3 <2.0.0; ^0.2.3 is >=0.2.3 <0.3.0; ^0.0.3 is exactly 0.0.3. */
function caret(v: SemverVersion, c: Constraint): boolean {
  const con = c.con;
  if (v.compare(con) < 0) return false;
  if (con.major > 0n || c.minorDirty) return v.major === con.major;
  if (v.major > 0n) return false;
  if (con.minor > 0n || c.patchDirty) return v.minor === con.minor;
  if (v.minor > 0n) return false;
  return con.patch === v.patch;
}

export function checkConstraints(groups: Constraint[][], v: SemverVersion): boolean {
  return groups.some((group) => group.every((c) => satisfies(v, c)));
}

export const semverFuncs: Record<string, GoFunc> = {
  semver: goFunc("semver", ["string"], (v) => parseVersion(v as string), "(*semver.Version, error)"),
  semverCompare: goFunc(
    "semverCompare",
    ["string", "string"],
    (constraint, version) => {
      const groups = parseConstraints(constraint as string);
      return checkConstraints(groups, parseVersion(version as string));
    },
    "(bool, error)",
  ),
};
