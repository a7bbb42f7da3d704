#!/usr/bin/env node
// Entry point of the `meshinject` binary (package.json "bin"); everything else is in program.ts.
import { main } from "./program.js";

await main(process.argv);
