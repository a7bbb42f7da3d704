/**
 * `protoc` (Debian's protobuf-compiler, the C++ protobuf library) as the independent encoder and
 * decoder of the agent's tests: messages the agent sends are decoded by `protoc --decode` against
 * Envoy's protos (shipped in @grpc/grpc-js-xds's deps) and Istio's CA proto, and messages a fake
 * peer sends are built with `protoc --encode` — never by the protobufjs code under test.
 *
 * protoc prints text format; `parseTextFormat` reads it into a small tree (written by hand: no
 * package in the tree reads protobuf text format, and the subset protoc prints is small).
 */
import { execFileSync } from "node:child_process";
import { INCLUDE_DIRS as INCLUDES } from "../proto-files.js";

/** The proto files each test decodes against (with the types the Any payloads carry). Same .proto files as the agent loads, read by protoc. */
export const SDS_PROTOS = [
  "envoy/service/discovery/v3/discovery.proto",
  "envoy/extensions/transport_sockets/tls/v3/secret.proto",
];
export const CA_PROTOS = ["ca.proto"];

function protoc(mode: "--decode" | "--encode", type: string, files: string[], input: Buffer | string): Buffer {
  return execFileSync("protoc", [`${mode}=${type}`, ...INCLUDES.map((d) => `-I${d}`), ...files], {
    input,
    maxBuffer: 16 << 20,
    stdio: ["pipe", "pipe", "pipe"],
  });
}

/** protoc's text rendering of `bytes` as `type`. */
export function protocDecode(type: string, files: string[], bytes: Uint8Array): string {
  return protoc("--decode", type, files, Buffer.from(bytes)).toString("utf8");
}

/** The wire bytes of a message given in text format, encoded by protoc. */
export function protocEncode(type: string, files: string[], text: string): Buffer {
  return protoc("--encode", type, files, text);
}

/** A text-format string literal for `s` (bytes as octal escapes, so any content survives). */
export function textString(s: string | Uint8Array): string {
  const bytes = typeof s === "string" ? Buffer.from(s, "utf8") : Buffer.from(s);
  let out = '"';
  for (const b of bytes)
    out +=
      b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c
        ? String.fromCharCode(b)
        : `\\${b.toString(8).padStart(3, "0")}`;
  return `${out}"`;
}

export type TextValue = string | Buffer | TextMessage;
/** One message: its fields in order (repeated fields repeat; Any payloads appear under `[type_url]`). */
export type TextMessage = [string, TextValue][];

/** Reads protoc's text output: `name: scalar`, `name { … }`, `[type.googleapis.com/…] { … }`. */
export function parseTextFormat(text: string): TextMessage {
  let i = 0;
  const skip = () => {
    while (i < text.length && /\s/.test(text[i] as string)) i++;
  };
  const readString = (): Buffer => {
    const quote = text[i++];
    const out: number[] = [];
    while (i < text.length && text[i] !== quote) {
      const c = text[i++] as string;
      if (c !== "\\") {
        out.push(...Buffer.from(c, "utf8"));
        continue;
      }
      const e = text[i++] as string;
      if (/[0-7]/.test(e)) {
        let oct = e;
        while (oct.length < 3 && /[0-7]/.test(text[i] ?? "")) oct += text[i++];
        out.push(Number.parseInt(oct, 8));
      } else if (e === "x") {
        let hex = "";
        while (hex.length < 2 && /[0-9a-fA-F]/.test(text[i] ?? "")) hex += text[i++];
        out.push(Number.parseInt(hex, 16));
      } else
        out.push(({ n: 10, r: 13, t: 9, '"': 34, "'": 39, "\\": 92 } as Record<string, number>)[e] ?? e.charCodeAt(0));
    }
    i++;
    return Buffer.from(out);
  };
  const readMessage = (close: string | undefined): TextMessage => {
    const fields: TextMessage = [];
    for (;;) {
      skip();
      if (i >= text.length || text[i] === close) {
        i++;
        return fields;
      }
      let name: string;
      if (text[i] === "[") {
        const end = text.indexOf("]", i);
        name = text.slice(i, end + 1);
        i = end + 1;
      } else {
        const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i));
        if (!m) throw new Error(`text format: unexpected ${JSON.stringify(text.slice(i, i + 20))}`);
        name = m[0];
        i += name.length;
      }
      skip();
      if (text[i] === ":") {
        i++;
        skip();
      }
      if (text[i] === "{") {
        i++;
        fields.push([name, readMessage("}")]);
      } else if (text[i] === '"' || text[i] === "'") {
        const parts = [readString()];
        skip();
        while (text[i] === '"' || text[i] === "'") {
          parts.push(readString());
          skip();
        }
        fields.push([name, Buffer.concat(parts)]);
      } else {
        const m = /^[^\s}]+/.exec(text.slice(i));
        const token = m?.[0] ?? "";
        i += token.length;
        fields.push([name, token]);
      }
    }
  };
  return readMessage(undefined);
}

/** The first value of a dotted path of field names (`a.b.c`), or undefined. */
export function field(message: TextMessage, path: string): TextValue | undefined {
  let node: TextValue | undefined = message;
  for (const part of path.split(".")) {
    if (!Array.isArray(node)) return undefined;
    node = node.find(([name]) => name === part)?.[1];
  }
  return node;
}

/** Every value of one field name directly in `message`. */
export function fields(message: TextMessage, name: string): TextValue[] {
  return message.filter(([n]) => n === name).map(([, v]) => v);
}
