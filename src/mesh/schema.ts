/**
 * The schema registry: every message and enum of Istio's mesh protos we model, looked up by name.
 * MeshConfig and ProxyConfig are the roots; `MESH_CONFIG` / `PROXY_CONFIG` name them.
 */
import { meshEnums, meshMessages } from "./schema-mesh.js";
import { proxyEnums, proxyMessages } from "./schema-proxy.js";
import type { EnumDef, FieldDef, MessageDef } from "./schema-types.js";

export type { EnumDef, FieldDef, FieldType, MessageDef, ScalarType, WrapperType } from "./schema-types.js";
export { goName, jsonName } from "./schema-types.js";

export const MESH_CONFIG = "MeshConfig";
export const PROXY_CONFIG = "ProxyConfig";

const messages = new Map<string, MessageDef>([...proxyMessages, ...meshMessages].map((m) => [m.name, m]));
const enums = new Map<string, EnumDef>([...proxyEnums, ...meshEnums].map((e) => [e.name, e]));

/** A message definition by registry name; throws for names the schema does not have. */
export function messageDef(name: string): MessageDef {
  const def = messages.get(name);
  if (def === undefined) throw new Error(`mesh schema: unknown message ${name}`);
  return def;
}

export function enumDef(name: string): EnumDef {
  const def = enums.get(name);
  if (def === undefined) throw new Error(`mesh schema: unknown enum ${name}`);
  return def;
}

/** Whether a message or enum of that name exists. */
export function hasDefinition(name: string): boolean {
  return messages.has(name) || enums.has(name);
}

/** All message definitions (for tests and tools). */
export function allMessages(): readonly MessageDef[] {
  return [...messages.values()];
}

export function allEnums(): readonly EnumDef[] {
  return [...enums.values()];
}

/** The field of a message by JSON name or .proto name (jsonpb accepts both). */
export function findField(def: MessageDef, key: string): FieldDef | undefined {
  return def.fields.find((f) => f.json === key) ?? def.fields.find((f) => f.proto === key);
}

/** The enum value name for a number, or undefined when the enum has none. */
export function enumName(def: EnumDef, n: number): string | undefined {
  return def.values.find(([, v]) => v === n)?.[0];
}

/** The enum number for a value name, or undefined. */
export function enumNumber(def: EnumDef, name: string): number | undefined {
  return def.values.find(([k]) => k === name)?.[1];
}

/** The referenced definition name of a `message:X` / `enum:X` type, else undefined. */
export function refName(type: string, kind: "message" | "enum"): string | undefined {
  return type.startsWith(`${kind}:`) ? type.slice(kind.length + 1) : undefined;
}
