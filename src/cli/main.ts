#!/usr/bin/env node
// Entry point of the `meshinject` binary (package.json "bin"); everything else is in program.ts.
import { processIo } from "./io.js";
import { main } from "./program.js";

process.exitCode = await main(process.argv, processIo());
