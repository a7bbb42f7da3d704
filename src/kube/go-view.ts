/**
 * Go-style views of typed Kubernetes objects for templates: what `.ObjectMeta`, `.Spec`,
 * `$c.Ports`, `(index .Spec.Containers 0).ReadinessProbe` give in Istio's injection templates,
 * where the data holds `metav1.ObjectMeta` and `corev1.PodSpec` values.
 *
 * A view is a {@link GoObject} over the typed JSON of the object (see `marshalTyped`):
 * - fields by Go name, embedded structs promoted as in Go (`.Name` on a Pod, `.HTTPGet` on a Probe,
 *   and `.ObjectMeta` / `.ProbeHandler` themselves);
 * - absent slices, maps and pointers are typed nils (`[]v1.Container`, `map[string]string`,
 *   `*v1.Probe`); absent scalars are Go zero values; int32/int64 are {@link TypedNumber}s;
 * - maps are tagged with their Go type (`map[string]string`, `v1.ResourceList`);
 * - a non-nil pointer to a scalar (`*int64` RunAsUser) shows the scalar itself, which is what
 *   text/template prints for it;
 * - `%v` printing goes through `goFields` in declaration order; `%T` through `goTypeName`
 *   (`v1.Container`, `*v1.Probe`).
 * {@link goViewJSON} gives back the typed JSON behind a view (for `structToJSON`-style functions).
 */

import {
  GO_OBJECT,
  type GoObject,
  type GoValue,
  goFunc,
  newMap,
  TypedNil,
  TypedNumber,
  withGoType,
} from "../template/index.js";
import { type FieldDef, goStructName, goTypeString, isStructType, NAMED_TYPES, structDef } from "./schema.js";
import { marshalTyped } from "./typed.js";

const VIEW_JSON: unique symbol = Symbol("meshinject.kube.viewJSON");

/** A view over the typed form of `obj`, decoded as the schema struct `type` (`PodSpec`, `ObjectMeta`...). */
export function goView(obj: unknown, type: string): GoValue {
  const typed = marshalTyped(obj ?? {}, type) as Record<string, unknown>;
  return new StructView(type, typed, false);
}

/**
 * A view over JSON that is typed already (from `marshalTyped` as `type`, and not changed since):
 * {@link goView} without marshalling again. The JSON is read, never modified, while the view lives.
 */
export function goTypedView(typed: unknown, type: string): GoValue {
  return new StructView(type, (typed ?? {}) as Record<string, unknown>, false);
}

/** The typed JSON behind a view made by {@link goView} (or one of its fields), or undefined. */
export function goViewJSON(v: GoValue): unknown {
  if (v instanceof StructView) return v[VIEW_JSON];
  if (v instanceof IntOrStringView) return v.value;
  if (v instanceof QuantityView) return v.text;
  return undefined;
}

/** Whether a field is a Go embedded struct (its Go name is its type's name). */
function isEmbedded(f: FieldDef): boolean {
  return f.go === f.type && isStructType(f.type);
}

class StructView implements GoObject {
  readonly [GO_OBJECT] = true as const;
  readonly [VIEW_JSON]: Record<string, unknown>;

  constructor(
    readonly type: string,
    json: Record<string, unknown>,
    readonly pointer: boolean,
  ) {
    this[VIEW_JSON] = json;
  }

  goTypeName(): string {
    return `${this.pointer ? "*" : ""}${goStructName(this.type)}`;
  }

  goIsNil(): boolean {
    return false;
  }

  goField(name: string): GoValue | undefined {
    return fieldOf(this.type, this[VIEW_JSON], name);
  }

  goMethod(name: string) {
    if (this.type === "ObjectMeta") {
      const json = this[VIEW_JSON];
      const field = OBJECT_META_GETTERS.get(name);
      if (field) return goFunc(name, [], () => fieldOf("ObjectMeta", json, field));
    }
    return undefined;
  }

  goFields(): ReadonlyArray<readonly [string, GoValue]> {
    const def = structDef(this.type);
    if (def === undefined || def.opaque) return [];
    return def.fields.map((f) => [f.go, fieldValue(f, this[VIEW_JSON])] as const);
  }
}

/** The getter methods of metav1.ObjectMeta that templates call, with the field each returns. */
const OBJECT_META_GETTERS = new Map([
  ["GetName", "Name"],
  ["GetNamespace", "Namespace"],
  ["GetGenerateName", "GenerateName"],
  ["GetLabels", "Labels"],
  ["GetAnnotations", "Annotations"],
]);

/** A struct's fields by Go name (the first of a name), and its embedded structs, in declaration order. */
interface GoFields {
  byName: Map<string, FieldDef>;
  embedded: FieldDef[];
}

/**
 * {@link GoFields} of each struct of the schema table, made when first asked for (the table is
 * constant, so an entry never goes stale; there is at most one per struct); null for a type
 * templates see no fields of (not in the table, or opaque: typed marshalling keeps it as given).
 */
const GO_FIELDS = new Map<string, GoFields | null>();

function goFieldsOf(type: string): GoFields | null {
  let fields = GO_FIELDS.get(type);
  if (fields === undefined) {
    const def = structDef(type);
    fields = null;
    if (def !== undefined && !def.opaque) {
      const byName = new Map<string, FieldDef>();
      for (const f of def.fields) if (!byName.has(f.go)) byName.set(f.go, f);
      fields = { byName, embedded: def.fields.filter(isEmbedded) };
    }
    GO_FIELDS.set(type, fields);
  }
  return fields;
}

/** A field by Go name, looking through embedded structs as Go's field promotion does. */
function fieldOf(type: string, json: Record<string, unknown>, name: string): GoValue | undefined {
  const fields = goFieldsOf(type);
  if (fields === null) return undefined;
  const f = fields.byName.get(name);
  if (f !== undefined) return fieldValue(f, json);
  for (const e of fields.embedded) {
    const inner = e.inline ? json : asObject(json[e.json]);
    const v = fieldOf(e.type, inner, name);
    if (v !== undefined) return v;
  }
  return undefined;
}

function fieldValue(f: FieldDef, json: Record<string, unknown>): GoValue {
  if (f.inline) return new StructView(f.type, json, false);
  return templateValue(json[f.json], f.type);
}

/** The template value of a typed JSON value of Go type `type`. */
function templateValue(v: unknown, type: string): GoValue {
  if (type.startsWith("*")) {
    if (v === undefined || v === null) return new TypedNil(goTypeString(type));
    const elem = type.slice(1);
    if (isStructType(elem)) return new StructView(elem, asObject(v), true);
    return templateValue(v, elem);
  }
  if (type.startsWith("[]")) {
    if (!Array.isArray(v)) return new TypedNil(goTypeString(type));
    const elem = type.slice(2);
    return withGoType(
      v.map((x) => templateValue(x, elem)),
      goTypeString(type),
    );
  }
  if (type.startsWith("map[string]")) {
    const goType = NAMED_TYPES[type] ?? goTypeString(type);
    // A nil map keeps an unnamed map type so that it prints as `map[]`.
    if (typeof v !== "object" || v === null) {
      return new TypedNil(type === "map[string]quantity" ? "map[v1.ResourceName]resource.Quantity" : goType);
    }
    const elem = type.slice("map[string]".length);
    const m = newMap();
    for (const [k, x] of Object.entries(v)) m[k] = templateValue(x, elem);
    return withGoType(m, goType);
  }
  if (isStructType(type)) return new StructView(type, asObject(v), false);
  switch (type) {
    case "string":
      return typeof v === "string" ? v : "";
    case "bool":
      return v === true;
    case "int32":
    case "int64":
      return new TypedNumber(type, BigInt(typeof v === "number" ? v : 0));
    case "float64":
      return typeof v === "number" ? v : 0;
    case "quantity":
      return new QuantityView(typeof v === "string" ? v : "0");
    case "intOrString":
      return new IntOrStringView(typeof v === "string" || typeof v === "number" ? v : 0);
    case "time":
      return typeof v === "string" ? v : "";
    default:
      // raw: an unmodelled Go type, shown as the JSON it decodes to.
      return v === undefined ? null : structuredClone(v);
  }
}

function asObject(v: unknown): Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** intstr.IntOrString: fields Type (0 int, 1 string), IntVal, StrVal; methods String and IntValue. */
class IntOrStringView implements GoObject {
  readonly [GO_OBJECT] = true as const;
  constructor(readonly value: number | string) {}
  goTypeName(): string {
    return "intstr.IntOrString";
  }
  goField(name: string): GoValue | undefined {
    switch (name) {
      case "Type":
        return new TypedNumber("int64", typeof this.value === "string" ? 1n : 0n);
      case "IntVal":
        return new TypedNumber("int32", BigInt(typeof this.value === "number" ? this.value : 0));
      case "StrVal":
        return typeof this.value === "string" ? this.value : "";
    }
    return undefined;
  }
  goMethod(name: string) {
    if (name === "String") return goFunc("String", [], () => String(this.value), "string");
    if (name === "IntValue") {
      return goFunc(
        "IntValue",
        [],
        () => BigInt(typeof this.value === "number" ? this.value : Number.parseInt(this.value, 10) || 0),
        "int",
      );
    }
    return undefined;
  }
  goFields(): ReadonlyArray<readonly [string, GoValue]> {
    return (["Type", "IntVal", "StrVal"] as const).map((f) => [f, this.goField(f)] as const);
  }
}

/** resource.Quantity, shown through its canonical text (method String). */
class QuantityView implements GoObject {
  readonly [GO_OBJECT] = true as const;
  constructor(readonly text: string) {}
  goTypeName(): string {
    return "resource.Quantity";
  }
  goField(): GoValue | undefined {
    return undefined;
  }
  goMethod(name: string) {
    if (name === "String") return goFunc("String", [], () => this.text, "string");
    return undefined;
  }
}
