/**
 * A unified diff per document between a YAML stream and what a command made of it (kube-inject,
 * uninject): documents are paired in order, workloads compared as Kubernetes writes them (so the
 * diff shows what changed, not how the input was laid out), unchanged ones left out, and each
 * diff's header names the document (`FILE document N (Kind "name")`). Pure; the diff is jsdiff's.
 */

import { createTwoFilesPatch } from "diff";
import { readYaml } from "../go/yaml/read.js";
import { writeYaml } from "../go/yaml/write.js";
import { splitYamlStream } from "./stream.js";
import { marshalTyped } from "./typed.js";
import { describeObject, isInjectable } from "./workloads.js";

function typedDoc(doc: unknown): unknown {
  if (typeof doc !== "object" || doc === null || !isInjectable(doc)) return doc;
  const o = doc as Record<string, unknown>;
  if (o.kind !== "List") return marshalTyped(o, String(o.kind));
  return marshalTyped({ ...o, items: Array.isArray(o.items) ? o.items.map(typedDoc) : o.items }, "List");
}

/**
 * A workload document as kube-inject writes one (typed: fields in the API's order, empty ones
 * dropped), so that a diff against the output shows what changed rather than how it is laid out;
 * other documents, and those that do not read, as they are.
 */
export function asWritten(raw: string): string {
  try {
    const doc = readYaml(raw);
    return typeof doc === "object" && doc !== null && isInjectable(doc) ? writeYaml(typedDoc(doc)) : raw;
  } catch {
    return raw;
  }
}

function describeRaw(raw: string): string {
  try {
    const doc = readYaml(raw);
    return typeof doc === "object" && doc !== null && "kind" in doc ? ` (${describeObject(doc)})` : "";
  } catch {
    return "";
  }
}

/**
 * The unified diff of one document (`index`: 0-based) and what a command made of it ("" when they
 * are the same); `before` is the raw input document, `after` the output one without its `---`.
 */
export function documentDiff(name: string, index: number, before: string, after: string, context = 3): string {
  // A document the command copied through is no change, however it is laid out.
  if (after === before) return "";
  const a = asWritten(before);
  if (a === after) return "";
  const what = `document ${index + 1}${describeRaw(after || a)}`;
  return createTwoFilesPatch(`a/${name}`, `b/${name}`, a, after, what, what, {
    context,
    headerOptions: { includeIndex: false, includeUnderline: false, includeFileHeaders: true },
  });
}

/**
 * The unified diffs of the documents that differ, concatenated ("" when none does). `output` must
 * hold one document for each of `input`'s, in the same order, as kube-inject writes them.
 */
export function documentDiffs(name: string, input: string, output: string, context = 3): string {
  const before = splitYamlStream(input);
  const after = splitYamlStream(output);
  let out = "";
  for (let i = 0; i < Math.max(before.length, after.length); i++) {
    out += documentDiff(name, i, before[i] ?? "", after[i] ?? "", context);
  }
  return out;
}

/**
 * The unified diff of two YAML texts of one object ("" when they are the same), headed by `label`
 * (`Pod shop/web-1`) with each side's description (`running`, `injected now`).
 */
export function objectDiff(
  label: string,
  before: string,
  after: string,
  beforeName: string,
  afterName: string,
): string {
  if (before === after) return "";
  return createTwoFilesPatch(
    `${label} (${beforeName})`,
    `${label} (${afterName})`,
    before,
    after,
    undefined,
    undefined,
    {
      context: 3,
      headerOptions: { includeIndex: false, includeUnderline: false, includeFileHeaders: true },
    },
  );
}

/** ANSI colours for a terminal: removed lines red, added green, hunk headers cyan, file headers bold. */
export function colourDiff(diff: string): string {
  return diff
    .split("\n")
    .map((line) => {
      if (line.startsWith("---") || line.startsWith("+++")) return `\u001b[1m${line}\u001b[0m`;
      if (line.startsWith("@@")) return `\u001b[36m${line}\u001b[0m`;
      if (line.startsWith("-")) return `\u001b[31m${line}\u001b[0m`;
      if (line.startsWith("+")) return `\u001b[32m${line}\u001b[0m`;
      return line;
    })
    .join("\n");
}
