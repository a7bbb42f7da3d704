/**
 * Run-time checks of the library API's option objects: TypeScript checks them for typed callers,
 * but JavaScript callers and `as any` casts reach us too, and a misspelt option must not be
 * silently ignored (`{ revison: "canary" }` would inject for the default revision).
 */

type OptionType = "string" | "boolean" | "function";

/**
 * Where `value` holds something other than plain data (objects with Object's or no prototype,
 * arrays, strings, numbers, booleans, null): its path, or undefined. A Map, Set, Date or class
 * instance would be copied but not read as Kubernetes fields, and silently lost.
 */
export function nonPlainPath(value: unknown, path = "manifest", within: Set<object> = new Set()): string | undefined {
  if (value === null || value === undefined) return undefined;
  switch (typeof value) {
    case "string":
    case "number":
    case "boolean":
      return undefined;
    case "object":
      break;
    default:
      return `${path} (a ${typeof value})`;
  }
  if (within.has(value)) return `${path} (a reference back to an enclosing object)`;
  within.add(value);
  try {
    return Array.isArray(value) ? badItem(value, path, within) : badField(value, path, within);
  } finally {
    within.delete(value);
  }
}

function badItem(list: readonly unknown[], path: string, within: Set<object>): string | undefined {
  for (const [i, item] of list.entries()) {
    const bad = nonPlainPath(item, `${path}[${i}]`, within);
    if (bad !== undefined) return bad;
  }
  return undefined;
}

function badField(value: object, path: string, within: Set<object>): string | undefined {
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    return `${path} (a ${(value as object).constructor?.name ?? "non-plain object"})`;
  }
  for (const [key, item] of Object.entries(value)) {
    const bad = nonPlainPath(item, `${path}.${key}`, within);
    if (bad !== undefined) return bad;
  }
  return undefined;
}

/** Throws a TypeError naming the caller and the option when `options` has an unknown key or a wrong type. */
export function checkOptions(caller: string, options: unknown, types: Readonly<Record<string, OptionType>>): void {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new TypeError(
      `${caller}: options must be an object, got ${Array.isArray(options) ? "an array" : typeof options}`,
    );
  }
  for (const [key, value] of Object.entries(options)) {
    const want = Object.hasOwn(types, key) ? types[key] : undefined;
    if (want === undefined) {
      throw new TypeError(`${caller}: unknown option ${JSON.stringify(key)}; known: ${Object.keys(types).join(", ")}`);
    }
    if (value !== undefined && typeof value !== want) {
      throw new TypeError(`${caller}: option ${key} must be a ${want}, got ${typeof value}`);
    }
  }
}
