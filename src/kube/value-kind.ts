/** What a YAML/JSON value is, in the words error messages use: map, list, string, number, boolean or null. */
export function valueKind(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "list";
  return typeof v === "object" ? "map" : typeof v;
}
