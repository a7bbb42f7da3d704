#!/usr/bin/env node
// Entry point of `meshinject` run from source (tsx); everything else is in program.ts. The built
// binary, dist/cli/main.js, is scripts/cli-entry.cjs, which loads the bundle of program.ts.
import { processIo } from "./io.js";
import { main } from "./program.js";

process.exitCode = await main(process.argv, processIo());
