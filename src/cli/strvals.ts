/**
 * Helm's `--set` syntax (package strvals): `name=value` pairs separated by commas, where a name is
 * a path of map keys (`a.b.c`) and list indexes (`a[0]`, `a[0].b`, `a[1][2]`), and a value is a
 * scalar or a list `{x,y,z}`. A backslash escapes the next character (`a\.b=c` sets key `a.b`).
 *
 * Values are typed as Helm types them: true/false (any case) → bool, null → nil, a decimal integer
 * that does not start with 0 (or exactly 0) → int64, anything else → string. `--set-string` keeps
 * every value a string. Paths are written into an existing values map, overriding what is there.
 */
import { atoi, numErrorText } from "../go/strconv.js";
import { type GoValue, int64, isMap, newMap } from "../go/value.js";

/** Helm's limits, which keep a hostile flag from allocating unbounded lists or recursing deeply. */
const MAX_INDEX = 65536;
const MAX_NESTED_NAME_LEVEL = 30;

export class SetError extends Error {
  override name = "SetError";
}

/** Thrown where Helm's parser reaches the end of input; ends parsing quietly at the top level. */
class EndOfInput extends Error {}

/** Reads a `--set` line character by character (by code point, as Go reads runes). */
class Scanner {
  private readonly chars: string[];
  private pos = 0;

  constructor(text: string) {
    this.chars = Array.from(text);
  }

  read(): string | undefined {
    return this.chars[this.pos++];
  }

  unread(): void {
    this.pos--;
  }

  /** Text up to (not including) the first unescaped stop character, which is consumed and returned. */
  until(stops: string): { text: string; stop: string | undefined } {
    let text = "";
    for (;;) {
      const c = this.read();
      if (c === undefined) return { text, stop: undefined };
      if (stops.includes(c)) return { text, stop: c };
      if (c === "\\") {
        const next = this.read();
        if (next === undefined) return { text, stop: undefined };
        text += next;
      } else {
        text += c;
      }
    }
  }
}

/** Helm's typedVal. */
export function typedValue(text: string, forceString: boolean): GoValue {
  if (forceString) return text;
  const lower = text.toLowerCase();
  if (lower === "true") return true;
  if (lower === "false") return false;
  if (lower === "null") return null;
  if (text === "0") return int64(0n);
  if (text.length > 0 && text[0] !== "0" && /^[-+]?[0-9]+$/.test(text)) {
    const n = BigInt(text);
    // strconv.ParseInt rejects values outside int64; they stay strings.
    if (n >= -(2n ** 63n) && n < 2n ** 63n) return int64(n);
  }
  return text;
}

class SetParser {
  private readonly sc: Scanner;

  constructor(
    text: string,
    private readonly forceString: boolean,
  ) {
    this.sc = new Scanner(text);
  }

  parseInto(dest: Record<string, GoValue>): void {
    for (;;) {
      try {
        this.key(dest, 0);
      } catch (e) {
        if (e instanceof EndOfInput) return;
        throw e;
      }
    }
  }

  private value(text: string): GoValue {
    return typedValue(text, this.forceString);
  }

  /** Parses one `path=value` starting at a map; returns after the value (and its comma). */
  private key(data: Record<string, GoValue>, level: number): void {
    const { text: k, stop } = this.sc.until("=[,.");
    switch (stop) {
      case undefined:
        if (k.length === 0) throw new EndOfInput();
        throw new SetError(`key "${k}" has no value`);
      case "[": {
        const index = this.index();
        const existing = getOwn(data, k);
        const list = existing === undefined ? [] : expectList(existing, k);
        try {
          set(data, k, this.listItem(list, index, level));
        } catch (e) {
          // Helm stores the list as it was when the input ends early (`a[0]`, `a[0].b=`).
          if (e instanceof EndOfInput) set(data, k, list);
          throw e;
        }
        return;
      }
      case "=": {
        const list = this.list();
        if (list === "eof") {
          set(data, k, "");
          throw new EndOfInput();
        }
        if (list !== "not-a-list") {
          set(data, k, list);
          return;
        }
        set(data, k, this.value(this.sc.until(",").text));
        return;
      }
      case ",":
        throw new SetError(`key "${k}" has no value (cannot end with ,)`);
      default: {
        // "."
        if (level + 1 > MAX_NESTED_NAME_LEVEL) {
          throw new SetError(
            `value name nested level is greater than maximum supported nested level of ${MAX_NESTED_NAME_LEVEL}`,
          );
        }
        const existing = getOwn(data, k);
        const inner = existing === undefined ? newMap() : expectMap(existing, k);
        try {
          this.key(inner, level + 1);
        } finally {
          if (Object.keys(inner).length > 0) set(data, k, inner);
        }
        if (Object.keys(inner).length === 0) throw new SetError(`key map "${k}" has no value`);
      }
    }
  }

  /** Reads the digits of `[N]` after the `[`. */
  private index(): number {
    const { text, stop } = this.sc.until("]");
    if (stop === undefined) throw new EndOfInput();
    const { value, err } = atoi(text);
    if (err !== undefined) throw new SetError(`error parsing index: ${numErrorText("Atoi", text, err)}`);
    return Number(value);
  }

  /** Parses what follows `name[i]`: `=value`, another `[j]`, or `.key...`; returns the updated list. */
  private listItem(list: GoValue[], i: number, level: number): GoValue[] {
    if (i < 0) throw new SetError(`negative ${i} index not allowed`);
    const { text, stop } = this.sc.until("[.=");
    if (text.length > 0) throw new SetError(`unexpected data at end of array index: "${text}"`);
    switch (stop) {
      case undefined:
        throw new EndOfInput();
      case "=": {
        const vl = this.list();
        if (vl === "eof") return setIndex(list, i, "");
        if (vl !== "not-a-list") return setIndex(list, i, vl);
        return setIndex(list, i, this.value(this.sc.until(",").text));
      }
      case "[": {
        const next = this.index();
        const existing = i < list.length ? list[i] : undefined;
        const inner = existing === undefined || existing === null ? [] : expectList(existing, `[${i}]`);
        return setIndex(list, i, this.listItem(inner, next, level));
      }
      default: {
        // "."
        const existing = i < list.length ? list[i] : undefined;
        const inner = isMap(existing) ? existing : newMap();
        this.key(inner, level);
        return setIndex(list, i, inner);
      }
    }
  }

  /** A `{a,b,c}` list value, "not-a-list" when the value does not start with `{`, "eof" at end of input. */
  private list(): GoValue[] | "not-a-list" | "eof" {
    const first = this.sc.read();
    if (first === undefined) return "eof";
    if (first !== "{") {
      this.sc.unread();
      return "not-a-list";
    }
    const items: GoValue[] = [];
    for (;;) {
      const { text, stop } = this.sc.until(",}");
      if (stop === undefined) throw new SetError("list must terminate with '}'");
      items.push(this.value(text));
      if (stop === "}") {
        // A comma after the closing brace separates this pair from the next.
        const after = this.sc.read();
        if (after !== undefined && after !== ",") this.sc.unread();
        return items;
      }
    }
  }
}

function getOwn(data: Record<string, GoValue>, key: string): GoValue {
  return Object.hasOwn(data, key) ? data[key] : undefined;
}

/** An empty key is ignored, as in Helm. */
function set(data: Record<string, GoValue>, key: string, value: GoValue): void {
  if (key.length > 0) data[key] = value;
}

function setIndex(list: GoValue[], index: number, value: GoValue): GoValue[] {
  if (index > MAX_INDEX) {
    throw new SetError(`index of ${index} is greater than maximum supported index of ${MAX_INDEX}`);
  }
  // Growing a list fills the gap with nil, like Go's make([]interface{}, n).
  const out = list.slice();
  while (out.length <= index) out.push(null);
  out[index] = value;
  return out;
}

function expectList(v: GoValue, key: string): GoValue[] {
  if (Array.isArray(v)) return v;
  throw new SetError(`"${key}" is not a list (it holds ${describe(v)})`);
}

function expectMap(v: GoValue, key: string): Record<string, GoValue> {
  if (isMap(v)) return v;
  throw new SetError(`"${key}" is not a map (it holds ${describe(v)})`);
}

function describe(v: GoValue): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (isMap(v)) return "a map";
  return typeof v === "object" ? "a number" : `a ${typeof v}`;
}

/**
 * Applies one `--set` (or, with `forceString`, `--set-string`) argument to `dest` in place.
 * Throws {@link SetError} on malformed input; pairs before the error have been applied, as in Helm.
 */
export function parseSetInto(line: string, dest: Record<string, GoValue>, forceString = false): void {
  new SetParser(line, forceString).parseInto(dest);
}
