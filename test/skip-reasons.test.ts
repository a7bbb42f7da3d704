// A skipped test says why: node:test prints the reason given as `skip: "..."`, and a bare `true`
// (or `!condition`) leaves a reader of the test report guessing.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { repoRoot } from "./meshinject-cli.js";

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== "node_modules") out.push(...testFiles(path));
    else if (entry.name.endsWith(".test.ts")) out.push(path);
  }
  return out;
}

test("every skipped test gives a reason", () => {
  const bare: string[] = [];
  for (const folder of ["src", "test", "conformance", "bench"]) {
    for (const file of testFiles(join(repoRoot, folder))) {
      for (const [i, line] of readFileSync(file, "utf8").split("\n").entries()) {
        // `skip: true`, `skip: !cond` with no reason after `&&`, `.skip(` without a message.
        if (/skip:\s*(true\b|![^,}]*[,}])/.test(line) && !/skip:\s*!.*&&\s*["'`]/.test(line)) {
          bare.push(`${relative(repoRoot, file)}:${i + 1}: ${line.trim()}`);
        }
        if (/\b(it|test|describe)\.skip\(\s*["'`][^"'`]*["'`]\s*,\s*(\(|async)/.test(line)) {
          bare.push(`${relative(repoRoot, file)}:${i + 1}: ${line.trim()}`);
        }
      }
    }
  }
  assert.deepEqual(bare, []);
});

// What a user reads (the README, docs/, deploy/, the reasons of skipped tests) says what they need
// to do or know, not how or where the project was made.
const MAKING = [
  /\(CI has it\)/,
  /has not been built here/,
  /development machines?/,
  /as indexed for the search tools/,
  /how it was checked here/,
  /\bwere not run\b/,
  /\bon that machine\b/,
];

function docFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...docFiles(path));
    else if (/\.(md|ya?ml)$|Dockerfile$/.test(entry.name)) out.push(path);
  }
  return out;
}

test("the README, docs/, deploy/ and skip reasons do not speak of their making", () => {
  const found: string[] = [];
  const files = [
    join(repoRoot, "README.md"),
    join(repoRoot, "Dockerfile"),
    ...docFiles(join(repoRoot, "docs")),
    ...docFiles(join(repoRoot, "deploy")),
  ];
  for (const folder of ["src", "test", "conformance", "bench"]) files.push(...testFiles(join(repoRoot, folder)));
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const isTest = file.endsWith(".test.ts");
    for (const [i, line] of text.split("\n").entries()) {
      // In tests, only the skip reasons are read by users (in the test report).
      if (isTest && !/skip/.test(line) && !/^\s*["'`]/.test(line)) continue;
      for (const phrase of MAKING) {
        if (phrase.test(line)) found.push(`${relative(repoRoot, file)}:${i + 1}: ${line.trim()}`);
      }
    }
  }
  assert.deepEqual(found, []);
});
