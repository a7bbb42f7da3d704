/**
 * Go-style views of MeshConfig / ProxyConfig for templates, shaped like the protoc-gen-go structs
 * Istio's templates run on: `.ProxyConfig.HoldApplicationUntilProxyStarts.GetValue`,
 * `.ProxyConfig.InterceptionMode.String` (an enum prints as its name), `.ProxyConfig.ProxyMetadata`
 * (a `map[string]string`), `.ProxyConfig.GetTracing.GetTlsSettings.GetCaCertificates`,
 * `.MeshConfig.DefaultConfig.DiscoveryAddress`, `.ProxyConfig.StatusPort` (an int32). Every field has
 * its protobuf `GetX` getter; messages are pointers, and a nil one still answers its getters.
 */

import { isRecord } from "../go/json.js";
import { durationString } from "../go/time/duration.js";
import {
  GO_OBJECT,
  type GoFunc,
  type GoObject,
  type GoValue,
  goFunc,
  TypedNil,
  TypedNumber,
  withGoType,
} from "../template/index.js";
import { durationParts, parseProtoDuration } from "./duration.js";
import type { Msg } from "./message.js";
import { enumDef, enumName, type FieldDef, hasDefinition, type MessageDef, messageDef, refName } from "./schema.js";
import type { MeshConfig, ProxyConfig } from "./types.js";

const VIEWED = Symbol("meshinject.mesh.viewedMessage");

/** A view of a message; `VIEWED` gives back what it shows. */
interface MessageViewLike extends GoObject {
  readonly [VIEWED]: { type: string; msg: Msg | undefined };
}

/** A Go-style view of a message of the given type (`undefined` gives a nil pointer). */
export function messageView(type: string, msg: Msg | undefined): GoObject {
  return new MessageView(messageDef(type), msg);
}

/** `.MeshConfig`: a `*v1alpha1.MeshConfig`. */
export function meshConfigView(mc: MeshConfig | undefined): GoObject {
  return messageView("MeshConfig", mc);
}

/** `.ProxyConfig`: a `*v1alpha1.ProxyConfig`. */
export function proxyConfigView(pc: ProxyConfig | undefined): GoObject {
  return messageView("ProxyConfig", pc);
}

/** The ProxyConfig behind a `.ProxyConfig` view (for `protoToJSON`); undefined for anything else or a nil one. */
export function viewedProxyConfig(v: unknown): ProxyConfig | undefined {
  const viewed = viewedMessage(v);
  return viewed?.type === "ProxyConfig" ? (viewed.msg as ProxyConfig | undefined) : undefined;
}

/** The message behind a view made here (for template functions such as `protoToJSON`), else undefined. */
export function viewedMessage(v: unknown): { type: string; msg: Msg | undefined } | undefined {
  return typeof v === "object" && v !== null && VIEWED in v ? (v as MessageViewLike)[VIEWED] : undefined;
}

const GO_SCALAR: Record<string, string> = {
  string: "string",
  bool: "bool",
  int32: "int32",
  uint32: "uint32",
  int64: "int64",
  uint64: "uint64",
  double: "float64",
  float: "float32",
  bytes: "[]uint8",
};

/** The Go type of one element of a field. */
function elemGoType(field: FieldDef): string {
  const msg = refName(field.type, "message");
  if (msg !== undefined) return messageDef(msg).goType;
  const en = refName(field.type, "enum");
  if (en !== undefined) return enumDef(en).goType;
  if (field.type.startsWith("wrapper:")) return `*wrapperspb.${field.type.slice(8)}`;
  if (field.type === "duration") return "*durationpb.Duration";
  if (field.type === "raw") return field.rawGoType ?? "*structpb.Struct";
  return GO_SCALAR[field.type] ?? "interface {}";
}

function fieldGoType(field: FieldDef): string {
  if (field.map) return `map[string]${elemGoType(field)}`;
  if (field.repeated) return `[]${elemGoType(field)}`;
  return elemGoType(field);
}

/** A scalar's Go value; `undefined` gives the zero value. */
function scalarValue(type: string, v: unknown): GoValue {
  switch (type) {
    case "string":
      return typeof v === "string" ? v : "";
    case "bool":
      return v === true;
    case "double":
      return typeof v === "number" ? v : 0;
    case "float":
      return new TypedNumber("float32", typeof v === "number" ? v : 0);
    case "int32":
    case "uint32":
    case "int64":
    case "uint64":
      return new TypedNumber(type, BigInt(typeof v === "number" ? Math.trunc(v) : 0));
    default:
      return v ?? null;
  }
}

/** One element (or the singular value) of a field as a Go value. */
function elemValue(field: FieldDef, v: unknown): GoValue {
  const msg = refName(field.type, "message");
  if (msg !== undefined) return messageView(msg, isRecord(v) ? v : undefined);
  const en = refName(field.type, "enum");
  if (en !== undefined) return new EnumView(en, v);
  if (field.type.startsWith("wrapper:")) return new WrapperView(field.type.slice(8), v);
  if (field.type === "duration") return new DurationView(typeof v === "string" ? v : undefined);
  if (field.type === "raw") return new RawView(field.rawGoType ?? "*structpb.Struct", isRecord(v) ? v : undefined);
  return scalarValue(field.type, v);
}

/** A field of a message (present or not) as Go sees it. */
function fieldValue(field: FieldDef, v: unknown): GoValue {
  if (field.map) {
    if (!isRecord(v)) return new TypedNil(fieldGoType(field));
    const out: Record<string, GoValue> = Object.create(null);
    for (const [k, x] of Object.entries(v)) out[k] = elemValue(field, x);
    return withGoType(out, fieldGoType(field));
  }
  if (field.repeated) {
    if (!Array.isArray(v)) return new TypedNil(fieldGoType(field));
    return withGoType(
      v.map((x) => elemValue(field, x)),
      fieldGoType(field),
    );
  }
  return elemValue(field, v);
}

function getter(name: string, returns: string, value: () => GoValue): GoFunc {
  return goFunc(name, [], value, returns);
}

class MessageView implements MessageViewLike {
  readonly [GO_OBJECT] = true as const;
  readonly [VIEWED]: { type: string; msg: Msg | undefined };

  constructor(
    private readonly def: MessageDef,
    private readonly msg: Msg | undefined,
  ) {
    this[VIEWED] = { type: def.name, msg };
  }

  goTypeName(): string {
    return this.def.goType;
  }

  goIsNil(): boolean {
    return this.msg === undefined;
  }

  private member(oneof: string): FieldDef | undefined {
    return this.def.fields.find((f) => f.oneof === oneof && this.msg?.[f.json] !== undefined);
  }

  private oneofValue(oneof: string): GoValue {
    const set = this.member(oneof);
    return set === undefined ? null : new OneofView(this.def, set, this.msg?.[set.json]);
  }

  goField(name: string): GoValue | undefined {
    const field = this.def.fields.find((f) => f.go === name && !f.oneof);
    if (field !== undefined) return fieldValue(field, this.msg?.[field.json]);
    if (this.def.fields.some((f) => f.oneof === name)) return this.oneofValue(name);
    return undefined;
  }

  goMethod(name: string): GoFunc | undefined {
    if (!name.startsWith("Get")) return undefined;
    const target = name.slice(3);
    const field = this.def.fields.find((f) => f.go === target);
    if (field !== undefined) {
      // A oneof member's getter answers only when that member is the one set.
      return getter(name, fieldGoType(field), () => {
        const v = this.msg?.[field.json];
        return fieldValue(field, field.oneof && v === undefined ? undefined : v);
      });
    }
    if (this.def.fields.some((f) => f.oneof === target)) {
      return getter(name, `v1alpha1.is${this.def.goType.slice(10)}_${target}`, () => this.oneofValue(target));
    }
    return undefined;
  }

  goFields(): ReadonlyArray<readonly [string, GoValue]> {
    const out: Array<readonly [string, GoValue]> = [];
    const seen = new Set<string>();
    for (const f of this.def.fields) {
      if (f.oneof) {
        if (seen.has(f.oneof)) continue;
        seen.add(f.oneof);
        out.push([f.oneof, this.oneofValue(f.oneof)]);
      } else out.push([f.go, fieldValue(f, this.msg?.[f.json])]);
    }
    return out;
  }
}

/** The struct wrapping a set oneof member, e.g. `*v1alpha1.ProxyConfig_ServiceCluster`. */
class OneofView implements GoObject {
  readonly [GO_OBJECT] = true as const;
  constructor(
    private readonly parent: MessageDef,
    private readonly field: FieldDef,
    private readonly value: unknown,
  ) {}

  goTypeName(): string {
    const base = `${this.parent.goType}_${this.field.go}`;
    // protoc-gen-go appends "_" when a nested type already has that name (Tracing_Zipkin_).
    const clash = hasDefinition(`${this.parent.name}.${this.field.go}`);
    return clash ? `${base}_` : base;
  }

  goField(name: string): GoValue | undefined {
    return name === this.field.go ? fieldValue(this.field, this.value) : undefined;
  }

  goFields(): ReadonlyArray<readonly [string, GoValue]> {
    return [[this.field.go, fieldValue(this.field, this.value)]];
  }
}

/** An enum value: prints its name (`String`), `Number` gives the int32. */
class EnumView implements GoObject {
  readonly [GO_OBJECT] = true as const;
  private readonly number: number;
  private readonly name: string;

  constructor(
    private readonly type: string,
    value: unknown,
  ) {
    const def = enumDef(type);
    if (typeof value === "number") {
      this.number = value;
      this.name = enumName(def, value) ?? String(value);
    } else if (typeof value === "string") {
      this.name = value;
      this.number = def.values.find(([k]) => k === value)?.[1] ?? 0;
    } else {
      this.number = 0;
      this.name = enumName(def, 0) ?? "0";
    }
  }

  goTypeName(): string {
    return enumDef(this.type).goType;
  }

  /** An enum is an int32 in Go: false at its zero value. */
  goTruth(): boolean {
    return this.number !== 0;
  }

  goField(): GoValue | undefined {
    return undefined;
  }

  goMethod(name: string): GoFunc | undefined {
    if (name === "String") return getter(name, "string", () => this.name);
    if (name === "Number")
      return getter(name, "protoreflect.EnumNumber", () => new TypedNumber("int32", BigInt(this.number)));
    return undefined;
  }
}

const WRAPPED: Record<string, string> = {
  BoolValue: "bool",
  Int32Value: "int32",
  UInt32Value: "uint32",
  Int64Value: "int64",
  UInt64Value: "uint64",
  StringValue: "string",
  DoubleValue: "double",
  FloatValue: "float",
};

/** A `*wrapperspb.XValue`: `.Value`, and `GetValue` that answers the zero value on nil. */
class WrapperView implements GoObject {
  readonly [GO_OBJECT] = true as const;
  constructor(
    private readonly kind: string,
    private readonly value: unknown,
  ) {}

  goTypeName(): string {
    return `*wrapperspb.${this.kind}`;
  }

  goIsNil(): boolean {
    return this.value === undefined || this.value === null;
  }

  private typed(): GoValue {
    return scalarValue(WRAPPED[this.kind] ?? "string", this.value ?? undefined);
  }

  goField(name: string): GoValue | undefined {
    return name === "Value" ? this.typed() : undefined;
  }

  goMethod(name: string): GoFunc | undefined {
    const t = WRAPPED[this.kind] ?? "string";
    const goT = GO_SCALAR[t] ?? t;
    return name === "GetValue" ? getter(name, goT, () => this.typed()) : undefined;
  }

  goFields(): ReadonlyArray<readonly [string, GoValue]> {
    return [["Value", this.typed()]];
  }
}

/** A `*durationpb.Duration`: Seconds, Nanos, their getters and AsDuration (a time.Duration). */
class DurationView implements GoObject {
  readonly [GO_OBJECT] = true as const;
  private readonly nanos: bigint;

  constructor(private readonly text: string | undefined) {
    this.nanos = text === undefined ? 0n : parseProtoDuration(text);
  }

  goTypeName(): string {
    return "*durationpb.Duration";
  }

  goIsNil(): boolean {
    return this.text === undefined;
  }

  goField(name: string): GoValue | undefined {
    const { seconds, nanos } = durationParts(this.nanos);
    if (name === "Seconds") return new TypedNumber("int64", seconds);
    if (name === "Nanos") return new TypedNumber("int32", BigInt(nanos));
    return undefined;
  }

  goMethod(name: string): GoFunc | undefined {
    const { seconds, nanos } = durationParts(this.nanos);
    switch (name) {
      case "GetSeconds":
        return getter(name, "int64", () => new TypedNumber("int64", seconds));
      case "GetNanos":
        return getter(name, "int32", () => new TypedNumber("int32", BigInt(nanos)));
      case "AsDuration":
        return getter(name, "time.Duration", () => new GoDuration(this.nanos));
      default:
        return undefined;
    }
  }

  goFields(): ReadonlyArray<readonly [string, GoValue]> {
    const { seconds, nanos } = durationParts(this.nanos);
    return [
      ["Seconds", new TypedNumber("int64", seconds)],
      ["Nanos", new TypedNumber("int32", BigInt(nanos))],
    ];
  }
}

/** A time.Duration: prints as Go does (`45s`, `1m0s`). */
class GoDuration implements GoObject {
  readonly [GO_OBJECT] = true as const;
  constructor(private readonly nanos: bigint) {}

  goTypeName(): string {
    return "time.Duration";
  }

  goField(): GoValue | undefined {
    return undefined;
  }

  goMethod(name: string): GoFunc | undefined {
    switch (name) {
      case "String":
        return getter(name, "string", () => durationString(this.nanos));
      case "Seconds":
        return getter(name, "float64", () => Number(this.nanos) / 1e9);
      case "Milliseconds":
        return getter(name, "int64", () => new TypedNumber("int64", this.nanos / 1_000_000n));
      case "Nanoseconds":
        return getter(name, "int64", () => new TypedNumber("int64", this.nanos));
      default:
        return undefined;
    }
  }
}

/** A message we keep as raw JSON: fields by Go name (`Enabled` → `enabled`), values as decoded JSON. */
class RawView implements GoObject {
  readonly [GO_OBJECT] = true as const;
  constructor(
    private readonly type: string,
    private readonly json: Record<string, unknown> | undefined,
  ) {}

  goTypeName(): string {
    return this.type;
  }

  goIsNil(): boolean {
    return this.json === undefined;
  }

  private lookup(goName: string): GoValue {
    const key = goName.charAt(0).toLowerCase() + goName.slice(1);
    return (this.json?.[key] as GoValue) ?? null;
  }

  goField(name: string): GoValue | undefined {
    return /^[A-Z]/.test(name) ? this.lookup(name) : undefined;
  }

  goMethod(name: string): GoFunc | undefined {
    return name.startsWith("Get") && name.length > 3
      ? getter(name, "interface {}", () => this.lookup(name.slice(3)))
      : undefined;
  }

  goFields(): ReadonlyArray<readonly [string, GoValue]> {
    return Object.entries(this.json ?? {}).map(([k, v]) => [k.charAt(0).toUpperCase() + k.slice(1), v as GoValue]);
  }
}
