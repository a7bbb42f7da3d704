/**
 * Writes src/agent/protos.json, the protos the running agent loads (src/agent/protos.ts): the types
 * reachable from its services and `Any` payloads (AGENT_PROTO_ROOTS) out of the .proto files of
 * src/agent/proto-files.ts, as protobufjs JSON, with what does not change the wire format left out
 * (comments, validation rules and other annotations). Parsing those files at every start took a good
 * part of the agent's start-up and kept the whole Envoy API tree (several hundred types and their
 * option trees) in its heap; the agent uses about a hundred types. src/agent/protos.test.ts checks that
 * the file is what this script writes now.
 *
 *   node --import tsx scripts/agent-protos.ts        # rewrites src/agent/protos.json
 */
import { existsSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";
import { AGENT_PROTO_ROOTS, INCLUDE_DIRS, PROTO_FILES } from "../src/agent/proto-files.js";

type Json = Record<string, unknown>;

/** Field options that change the encoding or the decoded shape; the others are dropped. */
const KEPT_FIELD_OPTIONS = ["packed", "proto3_optional", "default"];

function parsedRoot(): protobuf.Root {
  // google/protobuf/descriptor.proto (imported by the option annotations) from protobufjs's own copy,
  // as @grpc/proto-loader provides it.
  const descriptor = createRequire(import.meta.url)("protobufjs/google/protobuf/descriptor.json");
  protobuf.common("descriptor", descriptor.nested.google.nested.protobuf.nested);
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => {
    for (const dir of INCLUDE_DIRS) {
      const candidate = join(dir, target);
      if (existsSync(candidate)) return candidate;
    }
    return target;
  };
  root.loadSync(PROTO_FILES, { keepCase: false });
  root.resolveAll();
  return root;
}

/** The full names of the types, enums and services `roots` reach through fields and methods. */
function reachable(root: protobuf.Root, roots: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const visit = (o: protobuf.ReflectionObject | null) => {
    if (o === null || seen.has(o.fullName)) return;
    seen.add(o.fullName);
    if (o instanceof protobuf.Type) for (const f of o.fieldsArray) visit(f.resolve().resolvedType);
    if (o instanceof protobuf.Service)
      for (const m of o.methodsArray) {
        m.resolve();
        visit(m.resolvedRequestType);
        visit(m.resolvedResponseType);
      }
  };
  for (const name of roots) visit(root.lookup(name));
  return seen;
}

/** A reflection object as JSON without what the wire format ignores, and with only `keep` nested in it. */
function slim(o: protobuf.ReflectionObject, keep: Set<string>): Json | undefined {
  const nested = (ns: protobuf.NamespaceBase): Json | undefined => {
    const out: Json = {};
    for (const child of ns.nestedArray) {
      const json = slim(child, keep);
      if (json !== undefined) out[child.name] = json;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  };
  if (o instanceof protobuf.Type) {
    const inner = keep.has(o.fullName) ? undefined : nested(o);
    if (!keep.has(o.fullName)) return inner === undefined ? undefined : { nested: inner };
    const fields: Json = {};
    for (const f of o.fieldsArray) {
      const options = Object.fromEntries(
        Object.entries(f.options ?? {}).filter(([k]) => KEPT_FIELD_OPTIONS.includes(k)),
      );
      fields[f.name] = {
        ...(f.repeated && !(f instanceof protobuf.MapField)
          ? { rule: "repeated" }
          : f.required
            ? { rule: "required" }
            : {}),
        ...(f instanceof protobuf.MapField ? { keyType: f.keyType } : {}),
        type: f.resolvedType === null ? f.type : f.resolvedType.fullName,
        id: f.id,
        ...(Object.keys(options).length === 0 ? {} : { options }),
      };
    }
    const oneofs: Json = {};
    for (const one of o.oneofsArray) oneofs[one.name] = { oneof: one.oneof };
    const within = nested(o);
    return {
      ...(Object.keys(oneofs).length === 0 ? {} : { oneofs }),
      fields,
      ...(within === undefined ? {} : { nested: within }),
    };
  }
  if (o instanceof protobuf.Enum) return keep.has(o.fullName) ? { values: { ...o.values } } : undefined;
  if (o instanceof protobuf.Service) {
    if (!keep.has(o.fullName)) return undefined;
    const methods: Json = {};
    for (const m of o.methodsArray)
      methods[m.name] = {
        requestType: m.resolvedRequestType?.fullName ?? m.requestType,
        ...(m.requestStream ? { requestStream: true } : {}),
        responseType: m.resolvedResponseType?.fullName ?? m.responseType,
        ...(m.responseStream ? { responseStream: true } : {}),
      };
    return { methods };
  }
  if (o instanceof protobuf.Namespace) {
    const inner = nested(o);
    return inner === undefined ? undefined : { nested: inner };
  }
  return undefined;
}

/** The JSON protos.json holds. */
export function agentProtosJson(): Json {
  const root = parsedRoot();
  return slim(root, reachable(root, AGENT_PROTO_ROOTS)) ?? {};
}

export const AGENT_PROTOS_FILE = fileURLToPath(new URL("../src/agent/protos.json", import.meta.url));

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(AGENT_PROTOS_FILE, `${JSON.stringify(agentProtosJson(), null, 2)}\n`);
  console.log(`wrote ${AGENT_PROTOS_FILE}`);
}
