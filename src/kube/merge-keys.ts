/**
 * Patch metadata of the Kubernetes Pod type tree, derived from the schema (./schema.ts): what
 * `k8s.io/apimachinery/pkg/util/strategicpatch` reads from the Go struct tags (`patchStrategy`,
 * `patchMergeKey`) and from the Go field types when it merges a patch into a Pod.
 *
 * Every struct reachable from `Pod` (and `PodTemplateSpec`) is covered with ALL its JSON fields,
 * not only the tagged ones, because apimachinery needs the field to exist: when the original and
 * the patch both hold an object (or both a list) under a key that the struct does not declare, it
 * fails with "unable to find api field in struct ...". Scalar fields are listed too, so that a map
 * patched over a scalar-typed field reports the same error Go would. Embedded `json:",inline"`
 * structs (TypeMeta in Pod, VolumeSource in Volume, EphemeralContainerCommon in EphemeralContainer)
 * are flattened, as Go's JSON field resolution flattens them. Pointers do not matter to a merge.
 *
 * Type names, Go-like: `string`, `int` (Go int32/int64: the width never matters to a merge), `bool`;
 * `Time`, `MicroTime`, `Quantity`, `IntOrString` are Go structs with custom JSON (a string or number
 * on the wire) and have no JSON fields of their own; any other name is a struct of the schema.
 */

import { type FieldDef, structDef } from "./schema.js";

/** A Go type as the merge sees it. `name` is the Go type name (struct and opaque types). */
export type GoType =
  | { readonly kind: "scalar"; readonly name: string }
  | { readonly kind: "struct"; readonly name: string }
  | { readonly kind: "map"; readonly elem: GoType }
  | { readonly kind: "slice"; readonly elem: GoType };

/** One struct field: its Go type and struct tags. */
export interface FieldMeta {
  readonly jsonName: string;
  readonly type: GoType;
  /** `patchStrategy` split on commas, as apimachinery splits it (`[""]` when the tag is absent). */
  readonly strategies: readonly string[];
  /** `patchMergeKey`, or "" when absent. */
  readonly mergeKey: string;
}

/** Go types with custom JSON marshalling: scalars on the wire, structs with no JSON fields to Go. */
const OPAQUE_STRUCTS = new Set(["Time", "MicroTime", "Quantity", "IntOrString"]);
const SCALARS = new Set(["string", "int", "bool"]);

/** The schema's scalar types under the names the merge uses. */
const SCHEMA_SCALARS: Readonly<Record<string, string>> = {
  string: "string",
  int32: "int",
  int64: "int",
  bool: "bool",
  quantity: "Quantity",
  intOrString: "IntOrString",
  time: "Time",
};

/** The struct types a merge starts from; the merge covers every struct reachable from them. */
const ROOTS = ["Pod", "PodTemplateSpec"];

/** A struct's JSON fields with inline embeds flattened, in declaration order. */
function flatFields(structName: string): FieldDef[] {
  const out: FieldDef[] = [];
  for (const f of structDef(structName)?.fields ?? []) {
    if (f.inline) out.push(...flatFields(f.goType));
    else out.push(f);
  }
  return out;
}

/** The schema's spelling of a Go type (`[]*int64`, `map[string]quantity`) in the merge's notation. */
function mergeTypeText(schemaType: string): string {
  const type = schemaType.replace(/^\*/, "");
  if (type.startsWith("[]")) return `[]${mergeTypeText(type.slice(2))}`;
  if (type.startsWith("map[string]")) return `map[string]${mergeTypeText(type.slice(11))}`;
  const scalar = SCHEMA_SCALARS[type];
  if (scalar !== undefined) return scalar;
  if (type === "raw" || type === "float64") throw new Error(`merge-keys: no merge type for schema type ${type}`);
  return type;
}

/** The JSON fields of every struct in the merge's reach, by struct name. */
const STRUCTS: ReadonlyMap<string, readonly FieldDef[]> = (() => {
  const out = new Map<string, FieldDef[]>();
  const pending = [...ROOTS];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (out.has(name)) continue;
    const fields = flatFields(name);
    out.set(name, fields);
    for (const f of fields) {
      const base = mergeTypeText(f.goType).replace(/^(\[\]|map\[string\])+/, "");
      if (!SCALARS.has(base) && !OPAQUE_STRUCTS.has(base)) pending.push(base);
    }
  }
  return out;
})();

/** Parses the merge's type notation. */
export function parseGoType(text: string): GoType {
  if (text.startsWith("[]")) return { kind: "slice", elem: parseGoType(text.slice(2)) };
  if (text.startsWith("map[string]")) return { kind: "map", elem: parseGoType(text.slice(11)) };
  if (SCALARS.has(text)) return { kind: "scalar", name: text };
  if (OPAQUE_STRUCTS.has(text)) return { kind: "scalar", name: text };
  if (STRUCTS.has(text)) return { kind: "struct", name: text };
  throw new Error(`merge-keys: unknown Go type ${JSON.stringify(text)}`);
}

/**
 * The Go `reflect.Kind` name of a type, as apimachinery prints it in messages
 * ("struct", "map", "slice", "string", ...). The opaque types are Go structs.
 */
export function goKindName(type: GoType): string {
  switch (type.kind) {
    case "struct":
      return "struct";
    case "map":
      return "map";
    case "slice":
      return "slice";
    case "scalar":
      if (OPAQUE_STRUCTS.has(type.name)) return "struct";
      return type.name === "int" ? "int64" : type.name;
  }
}

const fieldCache = new Map<string, ReadonlyMap<string, FieldMeta>>();

/** All JSON fields of a struct in the merge's reach, or undefined when the name is not one. */
export function structFields(structName: string): ReadonlyMap<string, FieldMeta> | undefined {
  const cached = fieldCache.get(structName);
  if (cached) return cached;
  if (OPAQUE_STRUCTS.has(structName)) {
    const empty = new Map<string, FieldMeta>();
    fieldCache.set(structName, empty);
    return empty;
  }
  const defs = STRUCTS.get(structName);
  if (defs === undefined) return undefined;
  const fields = new Map<string, FieldMeta>();
  for (const f of defs) {
    fields.set(f.json, {
      jsonName: f.json,
      type: parseGoType(mergeTypeText(f.goType)),
      strategies: f.patchStrategy.split(","),
      mergeKey: f.patchMergeKey,
    });
  }
  fieldCache.set(structName, fields);
  return fields;
}

/** The struct type named `name` (e.g. "Pod", "PodSpec", "Container"), or undefined. */
export function structType(name: string): GoType | undefined {
  return STRUCTS.has(name) ? { kind: "struct", name } : undefined;
}

/**
 * Finds the field a JSON key maps to, the way Go's encoding/json does (and
 * apimachinery's fork of it): an exact match first, otherwise a
 * case-insensitive one.
 */
export function lookupField(structName: string, key: string): FieldMeta | undefined {
  const fields = structFields(structName);
  if (!fields) return undefined;
  const exact = fields.get(key);
  if (exact) return exact;
  const folded = key.toLowerCase();
  for (const field of fields.values()) {
    if (field.jsonName.toLowerCase() === folded) return field;
  }
  return undefined;
}

/** Names of all structs in the merge's reach (for tests and tooling). */
export function structNames(): string[] {
  return [...STRUCTS.keys()];
}
