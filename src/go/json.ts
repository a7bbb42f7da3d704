/**
 * JSON-shaped data (what encoding/json decodes into interface{}): telling an object from the other
 * values, and copying it deeply.
 */

/** A JSON object: not null, not an array. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * A deep copy of JSON-shaped data with JSON's own semantics (what a JSON round trip would give):
 * an undefined object member is dropped, an undefined array element becomes null, and a
 * `__proto__` key is copied as data, never as a prototype. Several times faster than structuredClone
 * or a JSON round trip on large pods.
 */
export function cloneJson<T>(v: T): T {
  if (Array.isArray(v)) return v.map((item) => (item === undefined ? null : cloneJson(item))) as T;
  if (v === null || typeof v !== "object") return v;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(v)) {
    const item = (v as Record<string, unknown>)[key];
    if (item === undefined) continue;
    setOwn(out, key, cloneJson(item));
  }
  return out as T;
}

/**
 * `obj[key] = value` as an own data property of a plain object: a `__proto__` key is data, never
 * the object's prototype (defined, which is much slower than assigning, so only for that key).
 */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}
