#!/usr/bin/env node
// Entry point of the `meshinject` binary (package.json "bin"); everything else is in program.ts.
import module from "node:module";

// Node 22.1+ keeps V8's compiled code of the modules loaded from here on between runs (in a folder
// under the OS's temporary directory), which shortens every start after the first; older Node has
// no such cache. TypeScript's tsc does the same.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

// Loaded after the cache is on. Not awaited at the top level: the bundle is CommonJS (scripts/build.mjs).
import("./program.js").then(({ main }) => main(process.argv));
