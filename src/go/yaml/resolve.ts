/**
 * How go-yaml v2 resolves a plain scalar (resolve.go): YAML 1.1 booleans (`yes`, `on`, `y`), octal
 * `0777`, `1e3` as a float, `0o17`/`0b101` as ints, `1_000` without its underscores, base-60 numbers and
 * timestamps kept as text. Shared by the reader (read.ts, block.ts) and the writer (write.ts), which must
 * quote any string that would read back as something else.
 */

/** What a plain scalar means to go-yaml v2. */
export type Resolved =
  | { readonly tag: "str"; readonly value: string }
  | { readonly tag: "null"; readonly value: null }
  | { readonly tag: "bool"; readonly value: boolean }
  | { readonly tag: "int"; readonly value: number; readonly text: string }
  | { readonly tag: "float"; readonly value: number }
  | { readonly tag: "timestamp"; readonly value: string };

export const WORDS = new Map<string, Resolved>();
for (const w of ["y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"]) {
  WORDS.set(w, { tag: "bool", value: true });
}
for (const w of ["n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"]) {
  WORDS.set(w, { tag: "bool", value: false });
}
for (const w of ["", "~", "null", "Null", "NULL"]) WORDS.set(w, { tag: "null", value: null });
for (const w of [".nan", ".NaN", ".NAN"]) WORDS.set(w, { tag: "float", value: Number.NaN });
for (const w of [".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"]) {
  WORDS.set(w, { tag: "float", value: Number.POSITIVE_INFINITY });
}
for (const w of ["-.inf", "-.Inf", "-.INF"]) WORDS.set(w, { tag: "float", value: Number.NEGATIVE_INFINITY });

type Hint = "S" | "D" | "M" | ".";

/** The hint of each ASCII character (resolveTable); others have none. */
const HINTS: (Hint | undefined)[] = new Array(128).fill(undefined);
for (const c of "+-") HINTS[c.charCodeAt(0)] = "S";
for (const c of "0123456789") HINTS[c.charCodeAt(0)] = "D";
for (const c of "yYnNtTfFoO~") HINTS[c.charCodeAt(0)] = "M";
HINTS[".".charCodeAt(0)] = ".";

/**
 * What the first character of a plain scalar says go-yaml tries past the string reading
 * (resolveTable); the empty text is one of the words ("M").
 */
function hintOf(text: string): Hint | undefined {
  if (text.length === 0) return "M";
  return HINTS[text.charCodeAt(0)];
}

/** strconv.ParseInt/ParseUint syntax with base 0 (any size: go-yaml falls back to big.Int). */
const GO_INT = /^[-+]?(?:0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|0[0-7]*|[1-9][0-9]*)$/;
/** go-yaml's yamlStyleFloat. */
const YAML_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const DOT_FLOAT = /^\.[0-9]+(?:[eE][-+]?[0-9]+)?$/;
/** Go time.Parse with go-yaml's allowed layouts (RFC 3339 with short fields, space-separated, date only). */
const TIMESTAMP =
  /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?(?:Z|[+-]\d{2}:\d{2})| (\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?)?$/;

function isTimestamp(s: string): boolean {
  const m = TIMESTAMP.exec(s);
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const daysIn = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day > daysIn) return false;
  const h = m[4] ?? m[7];
  if (h !== undefined) {
    const min = m[5] ?? m[8];
    const sec = m[6] ?? m[9];
    if (Number(h) > 23 || Number(min) > 59 || Number(sec) > 59) return false;
  }
  return true;
}

/**
 * Digits only, without a leading zero (or "0" itself), few enough for a double to hold exactly: the
 * commonest number (a port, a user id), which every rule below reads as that decimal int.
 */
function isPlainDecimal(text: string): boolean {
  const n = text.length;
  if (n > 15 || (n > 1 && text.charCodeAt(0) === 0x30)) return false;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/** The meaning go-yaml v2 gives a plain (unquoted, untagged) scalar. */
export function resolvePlain(text: string): Resolved {
  const word = WORDS.get(text);
  if (word !== undefined) return word;
  const hint = hintOf(text);
  if (hint === "." && DOT_FLOAT.test(text)) {
    const v = Number(text);
    if (Number.isFinite(v)) return { tag: "float", value: v };
  }
  if (hint === "D" && isPlainDecimal(text)) return { tag: "int", value: Number(text), text };
  if (hint === "D" || hint === "S") {
    if (isTimestamp(text)) return { tag: "timestamp", value: text };
    const plain = text.replaceAll("_", "");
    if (GO_INT.test(plain)) return { tag: "int", value: goIntValue(plain), text: plain };
    if (YAML_FLOAT.test(plain)) {
      const v = Number(plain);
      if (Number.isFinite(v)) return { tag: "float", value: v };
    }
  }
  return { tag: "str", value: text };
}

/** Whether go-yaml reads a plain scalar as a string: `resolvePlain(text).tag === "str"`, without allocating. */
export function plainIsString(text: string): boolean {
  const hint = hintOf(text);
  // Every word starts with a character that has a hint (a sign, a dot, or "M"), as does every text
  // that is not a string.
  if (hint === undefined) return true;
  if (WORDS.has(text)) return false;
  // Past the words, only texts starting with a sign, a digit or a dot can be anything else.
  if (hint === "M") return true;
  return resolvePlain(text).tag === "str";
}

function goIntValue(plain: string): number {
  const negative = plain.startsWith("-");
  const digits = plain.replace(/^[-+]/, "");
  // BigInt() reads 0x/0o/0b prefixes but a bare leading 0 as decimal; Go reads it as octal.
  const magnitude = /^0[0-7]+$/.test(digits) ? BigInt(`0o${digits.slice(1)}`) : BigInt(digits);
  return Number(negative ? -magnitude : magnitude);
}
