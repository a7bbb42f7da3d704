// `npm run build` (and package.json's `prepare`): compiles src/ into dist/ with tsc, copies the
// built-in configuration files, and writes the declarations that CommonJS TypeScript projects
// resolve through the `require` condition (dist/cjs/, marked `"type": "commonjs"`, so that
// `import { inject } from "meshinject"` type-checks under `module: node16`; at run time Node
// 20.19+ `require()`s the ES module itself).
//
// The build is skipped when dist/ was built from the same inputs (a hash of src/ without tests,
// the tsconfig files, the lock file and this script, kept in dist/.build-inputs): `npm ci` runs `prepare`, so
// `npm ci && npm run build` would otherwise compile twice. `--force` builds regardless.
//
// The `meshinject` binary (dist/cli/main.js, package.json "bin") is an esbuild bundle of src/cli
// (see bundleCli below); the library (dist/index.js, dist/template/) is tsc's output, module by module.
// Plain JavaScript, as it runs before anything is compiled.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const stampFile = join(dist, ".build-inputs");

/** Every file under `dir`, sorted, as paths relative to the repository. */
function filesUnder(dir) {
  const out = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out.sort();
}

/** A hash of what dist/ is built from. */
function inputsHash() {
  const hash = createHash("sha256");
  const inputs = [
    ...filesUnder("src").filter((f) => !f.endsWith(".test.ts")),
    "tsconfig.json",
    "tsconfig.build.json",
    "package-lock.json",
    relative(root, fileURLToPath(import.meta.url)),
    join("scripts", "cli-entry.cjs"),
  ];
  for (const file of inputs) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(root, file)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

/**
 * The packages bundled into the CLI: pure JavaScript, loaded by the everyday commands (kube-inject,
 * check-inject, capture-rules, proxy-config, template render). The others stay imports of
 * node_modules, loaded only by the commands that use them (serve, agent, certs, --from-cluster):
 * gRPC and protobufjs read files beside their own modules, pino starts worker threads by file name.
 */
const BUNDLED_PACKAGES = new Set(["commander", "yaml", "semver", "re2js", "@noble/hashes", "diff", "bcryptjs"]);

/**
 * The CLI as CommonJS files in dist/cli/ (marked `"type": "commonjs"` there; tsc does not emit
 * src/cli, see tsconfig.build.json): two bundles of src/cli/program.ts and all it uses, and main.js,
 * the entry (scripts/cli-entry.cjs), which loads one of them with V8's compiled code kept between
 * runs. A command then loads one file instead of ~150 modules, and each command's own modules are
 * initialised only when it runs (esbuild turns their dynamic imports into lazy initialisers).
 * CommonJS rather than ES modules: under Node 20 the ES module loader alone (fs/promises, readline,
 * the import facades of Node's built-ins, one asynchronous job per module) costs a good part of a
 * short command's start.
 *
 * The three bundles:
 *   - agent.js, `agent` alone (src/cli/agent-main.ts): the sidecar's process;
 *   - program.js, every other command; main.js loads it for SERVER_COMMANDS (`serve`);
 *   - everyday.js, the same program without what those two load when they run (the webhook
 *     server and its workers, the agent and its servers: SERVER_STACK_IMPORTS), which the other
 *     commands never touch; they still register (help lists them), and a run of one of them from
 *     this bundle would stop with an internal error naming the module. A short command reads and
 *     V8 deserialises every byte of its bundle, and on a small machine those bytes are a good part
 *     of its start.
 * Identifiers are minified too (a third fewer bytes); for a stack trace with source names, run with
 * NODE_OPTIONS=--enable-source-maps, which main.js honours by loading the bundle the usual way.
 *
 * Modules that find files relative to themselves (`new URL("./defaults/...", import.meta.url)`) keep
 * doing so: in each bundled source file `import.meta.url` is replaced by the URL its tsc output has
 * (dist/X/Y.js, computed from the bundle's folder), where the build copies those files.
 */
/** The commands main.js runs from program.js (scripts/cli-entry.cjs has the same list). */
const SERVER_COMMANDS = ["serve"];

/**
 * What everyday.js leaves out: the dynamic imports of these modules (a file under src/cli, and the
 * specifiers it imports, or `*` for all of them), which only SERVER_COMMANDS and `agent` reach.
 */
const SERVER_STACK_IMPORTS = {
  "program.ts": ["./agent-main.js"],
  "serve.ts": ["*"],
};

/**
 * What program.js leaves out: `agent`, which main.js runs from agent.js, the bundle of
 * src/cli/agent-main.ts: the sidecar's process holds the agent's code and none of the other commands'
 * (commander, the injector, its templates, YAML), and reads and compiles a third of the bytes.
 */
const AGENT_IMPORTS = {
  "program.ts": ["./agent-main.js"],
};

/**
 * The packages agent.js leaves to node_modules; it bundles the others it uses (gRPC, protobufjs,
 * prom-client, @peculiar/x509 and its ASN.1 modules, dns-packet): the sidecar then reads and
 * compiles one file of minified code instead of some two hundred modules at every start, and keeps
 * less source text in its heap. zstd-codec is a WebAssembly build loaded when a scrape asks for zstd;
 * @opentelemetry/api is prom-client's optional dependency (exemplars), looked up at run time.
 */
const AGENT_EXTERNAL = ["zstd-codec", "@opentelemetry/api"];

async function bundleCli() {
  const { build } = await import("esbuild");
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const outdir = join(dist, "cli");
  const src = join(root, "src");
  const external = Object.keys(pkg.dependencies ?? {}).filter((name) => !BUNDLED_PACKAGES.has(name));
  /**
   * Our source files as the bundle needs them:
   *   - `import.meta.url` becomes the URL of the file's tsc output (see above);
   *   - `await import("<package or node: module>")` becomes a require() of it, resolved when the
   *     promise is: main.js runs the bundle through vm.Script with V8's cached code on Node 20,
   *     and Node calls no dynamic-import handler for code that came from the cache (every run but
   *     a cache's first would fail with ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING). Node 20.19+
   *     require()s ES modules too (package.json's engines). The build fails if a bundle is left
   *     with an import() of any kind.
   */
  const sourceAsBuilt = {
    name: "source-as-built",
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        if (!args.path.startsWith(src)) return undefined;
        const text = readFileSync(args.path, "utf8");
        let contents = text.replace(
          /\bawait import\(("(?:node:|@)?[a-z][^"]*")\)/g,
          (_, specifier) => `await Promise.resolve().then(() => require(${specifier}))`,
        );
        if (contents.includes("import.meta.url")) {
          const built = relative(outdir, join(dist, relative(src, args.path)).replace(/\.ts$/, ".js"));
          const url = `require("node:url").pathToFileURL(require("node:path").join(__dirname, ${JSON.stringify(built)})).href`;
          contents = contents.replaceAll("import.meta.url", url);
        }
        return contents === text ? undefined : { contents, loader: "ts" };
      });
    },
  };
  /**
   * A bundled module with eager statements replaced by code that loads the same module when it is
   * first used: `replacements` are [eager, onUse] pairs; the build fails if the module no longer has
   * one of the eager texts.
   */
  const loadOnUse = (name, filter, replacements, loader = "js") => ({
    name,
    setup(b) {
      b.onLoad({ filter }, (args) => {
        let text = readFileSync(args.path, "utf8");
        for (const [eager, onUse] of replacements) {
          if (!text.includes(eager)) throw new Error(`${args.path}: no longer has ${eager}`);
          text = text.replace(eager, onUse);
        }
        return { contents: text, loader };
      });
    },
  });
  // commander needs node:child_process only to run an executable subcommand (we have none); loading
  // it is a good part of commander's start-up, so the bundled copy requires it when first used.
  const commanderSpawnOnUse = loadOnUse("commander-spawn-on-use", /[\\/]commander[\\/]lib[\\/]command\.js$/, [
    [
      "const childProcess = require('node:child_process');",
      "const childProcess = { spawn: (...a) => require('node:child_process').spawn(...a) };",
    ],
  ]);
  // bcryptjs imports node:crypto only as a fallback for Web Crypto's getRandomValues (which Node 20
  // has); loading node:crypto at the start of every command costs more than the rest of bcryptjs, so
  // the bundled copy requires it when that fallback is first reached (the library and the browser
  // build keep the package as published).
  const bcryptCryptoOnUse = loadOnUse("bcryptjs-crypto-on-use", /[\\/]bcryptjs[\\/]index\.js$/, [
    [
      'import nodeCrypto from "crypto";',
      "const nodeCrypto = { randomBytes: (n) => require('node:crypto').randomBytes(n) };",
    ],
  ]);
  // Go's regexp (src/go/regexp/regexp.ts) compiles with re2js, whose start-up (its Unicode tables)
  // is a few milliseconds of every command that injects, though only templates calling Sprig's regex
  // functions use it: the bundled copy loads re2js at the first compile.
  const re2jsOnUse = loadOnUse(
    "re2js-on-use",
    /[\\/]src[\\/]go[\\/]regexp[\\/]regexp\.ts$/,
    [
      ['import { type Matcher, RE2JS } from "re2js";', 'import type { Matcher, RE2JS } from "re2js";'],
      ["RE2JS.compile(t.withoutNames)", '(require("re2js") as typeof import("re2js")).RE2JS.compile(t.withoutNames)'],
    ],
    "ts",
  );
  /** Each dynamic import `imports` names becomes a module that fails when it is run. */
  const without = (bundle, imports, why) => ({
    name: `without-${bundle}`,
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind !== "dynamic-import" || !args.importer.startsWith(join(src, "cli"))) return undefined;
        const left = imports[relative(join(src, "cli"), args.importer)];
        if (left === undefined || !(left.includes("*") || left.includes(args.path))) return undefined;
        return { path: `${relative(src, args.importer)}: ${args.path}`, namespace: `left-out-of-${bundle}` };
      });
      b.onLoad({ filter: /.*/, namespace: `left-out-of-${bundle}` }, (args) => ({
        contents: `throw new Error(${JSON.stringify(`${args.path} is not in ${bundle}; ${why}`)});`,
        loader: "js",
      }));
    },
  });
  const runs = `main.js runs ${SERVER_COMMANDS.join(" and ")} from program.js and agent from agent.js`;
  const common = {
    bundle: true,
    format: "cjs",
    platform: "node",
    target: `node${pkg.engines.node.replace(/^>=/, "")}`,
    entryPoints: [join(src, "cli", "program.ts")],
    external,
    sourcemap: true,
    // Fewer bytes to read and for V8 to deserialise at every start (see above).
    minify: true,
    logLevel: "warning",
  };
  const plugins = [sourceAsBuilt, commanderSpawnOnUse, bcryptCryptoOnUse, re2jsOnUse];
  await build({
    ...common,
    outfile: join(outdir, "program.js"),
    plugins: [without("program.js", AGENT_IMPORTS, runs), ...plugins],
  });
  await build({
    ...common,
    outfile: join(outdir, "everyday.js"),
    plugins: [without("everyday.js", SERVER_STACK_IMPORTS, runs), ...plugins],
  });
  await build({
    ...common,
    entryPoints: [join(src, "cli", "agent-main.ts")],
    outfile: join(outdir, "agent.js"),
    external: AGENT_EXTERNAL,
    plugins,
  });
  for (const bundle of ["program.js", "everyday.js", "agent.js"]) {
    // (A method named `import`, `x.import(...)` or `import(e){`, is not a dynamic import.)
    const left = /(?<![.\w$])import\([^)]*\)(?!\s*\{)/.exec(readFileSync(join(outdir, bundle), "utf8"));
    if (left !== null) throw new Error(`dist/cli/${bundle}: a dynamic import is left (${left[0]}); see sourceAsBuilt`);
  }
  const entryText = readFileSync(join(root, "scripts", "cli-entry.cjs"), "utf8");
  const listed = /const SERVER_COMMANDS = new Set\((\[[^\]]*\])\)/.exec(entryText)?.[1];
  if (listed === undefined || JSON.stringify(JSON.parse(listed)) !== JSON.stringify(SERVER_COMMANDS)) {
    throw new Error(
      `scripts/cli-entry.cjs: SERVER_COMMANDS must be ${JSON.stringify(SERVER_COMMANDS)}, as in build.mjs`,
    );
  }
  const entry = join(outdir, "main.js");
  writeFileSync(entry, entryText);
  chmodSync(entry, 0o755);
  writeFileSync(
    join(outdir, "package.json"),
    `${JSON.stringify({ type: "commonjs", description: "the meshinject CLI bundle (see scripts/build.mjs)" }, null, 2)}\n`,
  );
}

const force = process.argv.includes("--force");
const hash = inputsHash();
const current =
  existsSync(stampFile) &&
  readFileSync(stampFile, "utf8").trim() === hash &&
  existsSync(join(dist, "index.js")) &&
  existsSync(join(dist, "cjs", "index.d.ts"));
if (current && !force) {
  console.log("dist/ is up to date with src/ (npm run build -- --force rebuilds)");
  process.exit(0);
}

rmSync(stampFile, { force: true });
// The CLI's folder is rebuilt whole, so no chunk of an earlier bundle is left behind.
rmSync(join(dist, "cli"), { recursive: true, force: true });
execFileSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"], {
  cwd: root,
  stdio: "inherit",
});
cpSync(join(root, "src", "inject", "defaults"), join(dist, "inject", "defaults"), { recursive: true });
// The protos the agent loads at run time (src/agent/protos.ts), and the .proto files they come from.
cpSync(join(root, "src", "agent", "protos.json"), join(dist, "agent", "protos.json"));
for (const room of ["sds", "xds"]) {
  cpSync(join(root, "src", "agent", room, "proto"), join(dist, "agent", room, "proto"), { recursive: true });
}

await bundleCli();

// The declarations again, in a folder whose package.json says CommonJS.
const cjs = join(dist, "cjs");
rmSync(cjs, { recursive: true, force: true });
for (const file of filesUnder("dist").filter((f) => f.endsWith(".d.ts") && !f.startsWith(join("dist", "cjs")))) {
  const target = join(cjs, relative("dist", file));
  mkdirSync(dirname(target), { recursive: true });
  cpSync(join(root, file), target);
}
writeFileSync(
  join(cjs, "package.json"),
  `${JSON.stringify({ type: "commonjs", description: "type declarations for require() (see scripts/build.mjs)" }, null, 2)}\n`,
);
writeFileSync(stampFile, `${hash}\n`);
