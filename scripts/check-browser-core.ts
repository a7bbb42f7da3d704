/**
 * CI check: the pure core (src/template, src/kube, src/mesh, src/inject, src/go, src/report and the
 * pure parts of src/agent) must build for the browser. Every non-test module there is an entry
 * point of one esbuild bundle with `platform: "browser"`; any import of a Node built-in (`node:fs`,
 * `crypto`, ...) fails the build, and this script exits 1 naming the importer and the line.
 *
 *   node --import tsx scripts/check-browser-core.ts
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import * as esbuild from "esbuild";

/**
 * The core folders, and the Node-only edges inside them: the agent's subcommands (cmd/), the options
 * of its servers (options/, apart from the pure env readers), its servers and processes (the DNS
 * proxy over UDP/TCP, Envoy's supervision and admin client, the application probes and the VM health
 * checker, the process runtime, the status server, the SDS server and its CA client, the XDS proxy,
 * and the gRPC plumbing and proto files they share, their test fakes). Every other module of
 * src/agent (bootstrap, capture, ...) is core.
 */
export const CORE_DIRS = ["src/template", "src/kube", "src/mesh", "src/inject", "src/go", "src/report", "src/agent"];
export const NODE_EDGES = [
  "src/agent/cmd/",
  "src/agent/dns/",
  "src/agent/envoy/",
  "src/agent/health/",
  "src/agent/options/agent-options.ts",
  "src/agent/options/dns.ts",
  "src/agent/options/files.ts",
  "src/agent/options/sds.ts",
  "src/agent/options/status.ts",
  "src/agent/options/xds.ts",
  "src/agent/probe/",
  "src/agent/process/",
  "src/agent/status/",
  "src/agent/sds/",
  "src/agent/xds/",
  "src/agent/testing/",
  "src/agent/istiod-channel.ts",
  "src/agent/proto-files.ts",
  "src/agent/protos.ts",
  "src/agent/uds-grpc.ts",
];

function modules(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...modules(path));
    else if (name.endsWith(".ts") && !name.endsWith(".test.ts") && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

function coreEntryPoints(root = "."): string[] {
  return CORE_DIRS.flatMap((d) => modules(join(root, d))).filter(
    (p) => !NODE_EDGES.some((edge) => p.startsWith(join(root, edge))),
  );
}

/**
 * The Node built-ins the core imports, as esbuild's "file:line: Could not resolve ..." lines ([] when
 * browser-safe). esbuild resolves for the browser as bundlers do (a package's own `browser` field
 * applies, e.g. bcryptjs maps its optional `crypto` fallback to nothing); a Node built-in left over
 * cannot be resolved and fails the build.
 */
async function nodeImportsOfCore(root = "."): Promise<string[]> {
  try {
    await esbuild.build({
      absWorkingDir: root === "." ? process.cwd() : root,
      entryPoints: coreEntryPoints(root),
      bundle: true,
      write: false,
      platform: "browser",
      format: "esm",
      outdir: "out",
      logLevel: "silent",
    });
    return [];
  } catch (e) {
    const errors = (e as { errors?: esbuild.Message[] }).errors;
    if (errors === undefined) throw e;
    return errors.map((m) => `${m.location ? `${m.location.file}:${m.location.line}: ` : ""}${m.text}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const found = await nodeImportsOfCore();
  if (found.length > 0) {
    console.error(`check-browser-core: the core imports Node built-ins:\n${found.join("\n")}`);
    process.exit(1);
  }
  console.log(`check-browser-core: ${coreEntryPoints().length} core modules build for the browser`);
}
