// biome-ignore-all lint/style/noNonNullAssertion: tests index results and tables whose entries the assertions are about; a missing one fails the test either way
// Runs the shared conformance vectors that are a single call of one of this folder's encoding, crypto,
// semver and url functions (`{{f "a" 1}}` or `{{"a" | f}}`), without the template engine. The vectors
// are read at run time from ../shared and never copied here; the test is skipped when they are absent.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { test } from "node:test";
import type { GoFunc } from "../../go/value.js";
import { cryptoFuncs } from "./crypto.js";
import { encodingFuncs } from "./encoding.js";
import { semverFuncs } from "./semver.js";
import { urlFuncs } from "./url.js";

const DIR = new URL("../../../../shared/conformance/gotemplate/", import.meta.url);
const FILES = ["sprig-encoding.json", "sprig-misc.json"];
const FUNCS: Record<string, GoFunc> = { ...encodingFuncs, ...cryptoFuncs, ...semverFuncs, ...urlFuncs };

interface Vector {
  name: string;
  template: string;
  expect: { output?: string; error?: boolean };
}

const ARG = String.raw`"(?:[^"\\]|\\.)*"|-?\d+`;
const CALL = new RegExp(String.raw`^\{\{ ?([A-Za-z0-9]+)((?: (?:${ARG}))*) ?\}\}$`);
const PIPE = new RegExp(String.raw`^\{\{ ?(${ARG}) \| ([A-Za-z0-9]+) ?\}\}$`);

function literal(text: string): unknown {
  return text.startsWith('"') ? JSON.parse(text) : BigInt(text);
}

/** The function and arguments of a single-call template, or undefined. */
function simpleCall(template: string): [GoFunc, unknown[]] | undefined {
  const call = CALL.exec(template);
  if (call && FUNCS[call[1]!]) {
    const args = Array.from(call[2]!.matchAll(new RegExp(ARG, "g")), (m) => literal(m[0]));
    return [FUNCS[call[1]!]!, args];
  }
  const pipe = PIPE.exec(template);
  if (pipe && FUNCS[pipe[2]!]) return [FUNCS[pipe[2]!]!, [literal(pipe[1]!)]];
  return undefined;
}

test("simple-call vectors", {
  skip:
    !existsSync(new URL(FILES[0]!, DIR)) &&
    'the gotemplate conformance vectors are absent: they are generated with Go and placed beside the clone as ../shared/conformance (README, "Conformance")',
}, () => {
  let ran = 0;
  for (const file of FILES) {
    const vectors = JSON.parse(readFileSync(new URL(file, DIR), "utf8")) as Vector[];
    for (const v of vectors) {
      const call = simpleCall(v.template);
      if (!call) continue;
      const [fn, args] = call;
      if (fn.params.length !== args.length) continue;
      ran++;
      if (v.expect.error) {
        assert.throws(() => fn.fn(...args), v.name);
      } else {
        assert.equal(String(fn.fn(...args)), v.expect.output, v.name);
      }
    }
  }
  assert.ok(ran >= 15, `ran ${ran} vectors`);
});
