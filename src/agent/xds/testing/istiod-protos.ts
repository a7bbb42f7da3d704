/**
 * Envoy's discovery protos and Istio's NameTable/ProxyConfig for the fake istiod, read by a second
 * protobuf stack so that nothing the XDS proxy encodes is decoded by the code that encoded it:
 * `protoc` (Debian protobuf-compiler) compiles the .proto files into a descriptor set, and
 * @bufbuild/protobuf encodes and decodes with it (the proxy uses @grpc/proto-loader/protobufjs).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createFileRegistry, type DescMessage, type FileRegistry, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";

const here = dirname(fileURLToPath(import.meta.url));
const deps = join(dirname(createRequire(import.meta.url).resolve("@grpc/grpc-js-xds/package.json")), "deps");

let registry: FileRegistry | undefined;

function compile(): FileRegistry {
  const dir = mkdtempSync(join(tmpdir(), "meshinject-protoc-"));
  const out = join(dir, "set.pb");
  try {
    execFileSync(
      "protoc",
      [
        ...["envoy-api", "xds", "googleapis", "protoc-gen-validate"].map((d) => `-I${join(deps, d)}`),
        `-I${join(here, "..", "proto")}`,
        "--include_imports",
        `--descriptor_set_out=${out}`,
        "envoy/service/discovery/v3/ads.proto",
        "nds.proto",
        "proxy-config.proto",
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    return createFileRegistry(fromBinary(FileDescriptorSetSchema, readFileSync(out)));
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: Buffer };
    if (e.code === "ENOENT") throw new Error("fake istiod: protoc is not installed (Debian protobuf-compiler)");
    throw new Error(`fake istiod: protoc failed: ${e.stderr?.toString().trim() ?? e.message}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A message descriptor by full name, from the protoc-compiled set. */
export function istiodMessage(fullName: string): DescMessage {
  registry ??= compile();
  const desc = registry.getMessage(fullName);
  if (!desc) throw new Error(`fake istiod: message ${fullName} not in the descriptor set`);
  return desc;
}
