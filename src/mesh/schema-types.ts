/**
 * The shape of the protobuf schema data in schema-*.ts: messages, fields and enums of Istio's mesh
 * protos, described well enough to read and write their protobuf-JSON form and to show them to
 * templates the way protoc-gen-go's structs look.
 */

/** Scalar field types of proto3. */
export type ScalarType = "string" | "bool" | "int32" | "uint32" | "int64" | "uint64" | "double" | "float" | "bytes";

/** google.protobuf wrapper messages, written in JSON as their bare value. */
export type WrapperType =
  | "BoolValue"
  | "Int32Value"
  | "UInt32Value"
  | "Int64Value"
  | "UInt64Value"
  | "StringValue"
  | "DoubleValue"
  | "FloatValue";

/**
 * A field's element type. `message:X` and `enum:X` name a definition in the registry by its full name
 * inside `istio.mesh.v1alpha1` (`ProxyConfig.ProxyHeaders`) or with its package for other packages
 * (`networking.v1alpha3.ClientTLSSettings`). `duration` is google.protobuf.Duration; `raw` is a message
 * we do not model field by field: its JSON is kept as given (nulls removed).
 */
export type FieldType =
  | ScalarType
  | `enum:${string}`
  | `message:${string}`
  | `wrapper:${WrapperType}`
  | "duration"
  | "raw";

export interface FieldDef {
  /** The .proto name (snake_case); accepted on input as jsonpb does. */
  readonly proto: string;
  /** The JSON name (lowerCamelCase), used in our protobuf-JSON objects. */
  readonly json: string;
  /** The Go struct field name protoc-gen-go gives it (for oneof members: the name inside the wrapper struct). */
  readonly go: string;
  readonly type: FieldType;
  /** `repeated T`. */
  readonly repeated?: boolean;
  /** `map<string, T>`. */
  readonly map?: boolean;
  /** The Go name of the oneof this field belongs to (`ClusterName`). */
  readonly oneof?: string;
  /** For raw fields: the Go type name templates see (`*v1alpha3.LocalityLoadBalancerSetting`). */
  readonly rawGoType?: string;
}

export interface MessageDef {
  /** Registry name: `ProxyConfig.ProxyHeaders`, `networking.v1alpha3.ClientTLSSettings`. */
  readonly name: string;
  /** The Go type of a pointer to it, as `%T` prints: `*v1alpha1.ProxyConfig_ProxyHeaders`. */
  readonly goType: string;
  /** Fields in .proto declaration order (the order jsonpb writes them in). */
  readonly fields: readonly FieldDef[];
}

export interface EnumDef {
  readonly name: string;
  /** The Go type name: `v1alpha1.ProxyConfig_InboundInterceptionMode`. */
  readonly goType: string;
  /** Value names and numbers, in declaration order. */
  readonly values: ReadonlyArray<readonly [string, number]>;
}

/** protoc's JSON name: underscores dropped, the letter after each one upper-cased. */
export function jsonName(proto: string): string {
  // Most names have no underscore. Indexes, not a for-of over the string: the schema's few hundred
  // names are read at the start of every command, in V8's interpreter, where a string iterator
  // allocates at each character.
  if (!proto.includes("_")) return proto;
  let out = "";
  let upper = false;
  for (let i = 0; i < proto.length; i++) {
    const c = proto[i] as string;
    if (c === "_") {
      upper = true;
      continue;
    }
    out += upper ? c.toUpperCase() : c;
    upper = false;
  }
  return out;
}

const isLower = (c: string | undefined): boolean => c !== undefined && c >= "a" && c <= "z";
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";

/** protoc-gen-go's GoCamelCase: `mesh_mTLS` → `MeshMTLS`, `k8s_sa_jwt_path` → `K8SSaJwtPath`. */
export function goName(proto: string): string {
  let out = "";
  for (let i = 0; i < proto.length; i++) {
    const c = proto[i] as string;
    if (c === "_" && i === 0) out += "X";
    else if (c === "_" && isLower(proto[i + 1])) continue;
    else if (isDigit(c)) out += c;
    else {
      out += isLower(c) ? c.toUpperCase() : c;
      while (isLower(proto[i + 1])) out += proto[++i];
    }
  }
  return out;
}

export interface FieldOptions {
  repeated?: boolean;
  map?: boolean;
  /** The .proto name of the oneof. */
  oneof?: string;
  rawGoType?: string;
}

/** Declares a field from its .proto name; the JSON and Go names follow protoc's rules. */
export function field(proto: string, type: FieldType, options: FieldOptions = {}): FieldDef {
  const def: FieldDef = {
    proto,
    json: jsonName(proto),
    go: goName(proto),
    type,
    ...(options.repeated ? { repeated: true } : {}),
    ...(options.map ? { map: true } : {}),
    ...(options.oneof ? { oneof: goName(options.oneof) } : {}),
    ...(options.rawGoType ? { rawGoType: options.rawGoType } : {}),
  };
  return def;
}

/** Go package of a registry name: `v1alpha1` for the mesh package, else the last package segment. */
function goPackage(name: string): { pkg: string; local: string } {
  const m = /^networking\.(v1alpha3|v1beta1)\.(.+)$/.exec(name);
  if (m) return { pkg: m[1] as string, local: m[2] as string };
  return { pkg: "v1alpha1", local: name };
}

export function message(name: string, fields: readonly FieldDef[]): MessageDef {
  const { pkg, local } = goPackage(name);
  return { name, goType: `*${pkg}.${local.replaceAll(".", "_")}`, fields };
}

export function enumeration(name: string, values: ReadonlyArray<readonly [string, number]>): EnumDef {
  const { pkg, local } = goPackage(name);
  return { name, goType: `${pkg}.${local.replaceAll(".", "_")}`, values };
}
