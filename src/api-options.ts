/**
 * Run-time checks of the library API's option objects: TypeScript checks them for typed callers,
 * but JavaScript callers and `as any` casts reach us too, and a misspelt option must not be
 * silently ignored (`{ revison: "canary" }` would inject for the default revision).
 */

type OptionType = "string" | "boolean" | "function";

/** Throws a TypeError naming the caller and the option when `options` has an unknown key or a wrong type. */
export function checkOptions(caller: string, options: unknown, types: Readonly<Record<string, OptionType>>): void {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new TypeError(
      `${caller}: options must be an object, got ${Array.isArray(options) ? "an array" : typeof options}`,
    );
  }
  for (const [key, value] of Object.entries(options)) {
    const want = types[key];
    if (want === undefined) {
      throw new TypeError(`${caller}: unknown option ${JSON.stringify(key)}; known: ${Object.keys(types).join(", ")}`);
    }
    if (value !== undefined && typeof value !== want) {
      throw new TypeError(`${caller}: option ${key} must be a ${want}, got ${typeof value}`);
    }
  }
}
