#!/usr/bin/env node
// The `meshinject` binary as installed: dist/cli/main.js (package.json "bin"), copied there by
// scripts/build.mjs beside the CommonJS bundles of src/cli (whose main.ts is the same entry when run
// from source): agent.js for `agent` (src/cli/agent-main.ts), program.js for the commands that run
// servers (SERVER_COMMANDS), everyday.js, the same program without those servers' code, for every
// other command. Its one job is to load that
// bundle with V8's compiled code kept between runs, which shortens every start after the first:
//   - Node 22.1+ does it itself (module.enableCompileCache, a folder under the OS's temp dir);
//   - older Node has no such cache, so the bundle is compiled here with vm.Script and the code V8
//     compiled for it while the command ran (cachedData, functions compiled lazily included) is
//     written once to a folder under the OS's temp dir, keyed by the bundle's path, size and time,
//     V8's version and the command. Anything that fails here falls back to compiling as usual.
// NODE_DISABLE_COMPILE_CACHE=1 turns either off, and so does --enable-source-maps (stack traces then
// name the source files; the bundles are minified). Plain CommonJS: it runs before anything else.
"use strict";
const Module = require("node:module");
const path = require("node:path");

/** The commands run from program.js; scripts/build.mjs checks that its list is the same. */
const SERVER_COMMANDS = new Set(["serve"]);

/** `agent` runs from its own bundle (src/cli/agent-main.ts), the others from program.js or everyday.js. */
function bundleFor(command) {
  if (command === "agent") return "agent.js";
  return SERVER_COMMANDS.has(command) ? "program.js" : "everyday.js";
}

const program = path.join(__dirname, bundleFor(process.argv[2]));

function loadWithCodeCache() {
  const fs = require("node:fs");
  const os = require("node:os");
  const vm = require("node:vm");
  const stat = fs.statSync(program);
  const uid = typeof process.getuid === "function" ? `-${process.getuid()}` : "";
  const dir = path.join(os.tmpdir(), `meshinject-compile-cache${uid}`);
  const safe = (text) => text.replace(/[^A-Za-z0-9.-]/g, "_");
  // One file per bundle build and command: a command's cache holds the code its own run compiled,
  // so that a first run of another (`--help`) does not leave kube-inject compiling most of its code.
  const bundle = `${safe(program)}_`;
  const build = `${bundle}${safe(`${stat.size}|${stat.mtimeMs}|${process.versions.v8}|${process.arch}`)}_`;
  const command = /^[a-z][a-z-]{0,31}$/.test(process.argv[2] ?? "") ? process.argv[2] : "other";
  const file = path.join(dir, `${build}${command}.bin`);
  let cachedData;
  try {
    cachedData = fs.readFileSync(file);
  } catch {
    cachedData = undefined;
  }
  const script = new vm.Script(Module.wrap(fs.readFileSync(program, "utf8")), {
    filename: program,
    cachedData,
    // No importModuleDynamically: Node 20 does not call it for code that came from cachedData, so
    // the build turns the bundle's dynamic imports into require() and fails if one is left.
  });
  if (cachedData === undefined || script.cachedDataRejected) {
    process.once("exit", () => {
      try {
        fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
        const temp = `${file}.${process.pid}`;
        fs.writeFileSync(temp, script.createCachedData());
        fs.renameSync(temp, file);
        // The caches of this bundle's earlier builds (or of another Node) are of no more use.
        for (const name of fs.readdirSync(dir)) {
          if (name.startsWith(bundle) && !name.startsWith(build) && name.endsWith(".bin")) {
            fs.rmSync(path.join(dir, name), { force: true });
          }
        }
      } catch {
        // No cache this time.
      }
    });
  }
  const mod = new Module(program, module);
  mod.filename = program;
  mod.paths = Module._nodeModulePaths(__dirname);
  script.runInThisContext().call(mod.exports, mod.exports, Module.createRequire(program), mod, program, __dirname);
  mod.loaded = true;
  return mod.exports;
}

function loadProgram() {
  if (process.env.NODE_DISABLE_COMPILE_CACHE || process.sourceMapsEnabled) return require(program);
  if (typeof Module.enableCompileCache === "function") {
    Module.enableCompileCache();
    return require(program);
  }
  let loaded;
  try {
    loaded = loadWithCodeCache();
  } catch {
    loaded = undefined;
  }
  return loaded ?? require(program);
}

const cli = loadProgram();
cli.main(process.argv, cli.processIo()).then((code) => {
  process.exitCode = code;
});
