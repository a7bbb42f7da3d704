/**
 * The `annotations` kind: which pod annotations the injector refuses (see the corpus's FORMAT.md).
 * `annotation-validation.json` validates one annotation alone and compares "no error" with `valid`
 * (plus, with `wantErrorContains`, that the lower-cased message contains it);
 * `annotation-map-validation.json` validates a whole annotation map.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { AnnotationValidationError, annotationFailures } from "../../src/inject/annotations.js";
import type { Failure, KindOptions, KindResult } from "../result.js";
import { shown } from "../result.js";

interface SingleVector {
  id: string;
  name: string;
  annotation: string;
  value: string;
  valid: boolean;
  wantErrorContains?: string;
}

interface MapVector {
  id: string;
  name: string;
  annotations: Record<string, string>;
  valid: boolean;
}

interface Verdict {
  pass: boolean;
  reason?: string;
  expected: string;
  got: string;
}

/** The joined error message for the annotations, or undefined when all are accepted. */
function validationMessage(annotations: Record<string, string>): string | undefined {
  const failures = annotationFailures(annotations);
  return failures.length === 0 ? undefined : new AnnotationValidationError(failures).message;
}

function describe(message: string | undefined): string {
  return message === undefined ? "valid" : `invalid: ${shown(message)}`;
}

export function judgeSingle(v: SingleVector): Verdict {
  const message = validationMessage({ [v.annotation]: v.value });
  const expected = v.valid
    ? "valid"
    : `invalid${v.wantErrorContains === undefined ? "" : ` (message containing ${shown(v.wantErrorContains)})`}`;
  const got = describe(message);
  if ((message === undefined) !== v.valid) {
    return { pass: false, reason: v.valid ? "refused a valid value" : "accepted an invalid value", expected, got };
  }
  if (message !== undefined && v.wantErrorContains !== undefined) {
    if (!message.toLowerCase().includes(v.wantErrorContains.toLowerCase())) {
      return { pass: false, reason: "error message lacks the expected text", expected, got };
    }
  }
  return { pass: true, expected, got };
}

export function judgeMap(v: MapVector): Verdict {
  const message = validationMessage(v.annotations);
  const expected = v.valid ? "valid" : "invalid";
  const got = describe(message);
  if ((message === undefined) !== v.valid) {
    return {
      pass: false,
      reason: v.valid ? "refused valid annotations" : "accepted invalid annotations",
      expected,
      got,
    };
  }
  return { pass: true, expected, got };
}

async function vectorsOf<T>(dir: string, file: string): Promise<T[]> {
  const parsed = JSON.parse(await readFile(join(dir, file), "utf8")) as { vectors?: unknown };
  if (!Array.isArray(parsed.vectors)) throw new Error(`${file}: expected an object with a "vectors" array`);
  return parsed.vectors as T[];
}

export async function runAnnotations(dir: string, _options: KindOptions): Promise<KindResult> {
  const failures: Failure[] = [];
  const counts: string[] = [];
  let passed = 0;
  let total = 0;
  const families: Array<[string, (v: never) => Verdict]> = [
    ["annotation-validation.json", judgeSingle as (v: never) => Verdict],
    ["annotation-map-validation.json", judgeMap as (v: never) => Verdict],
  ];
  for (const [file, judge] of families) {
    const vectors = await vectorsOf<{ id: string; name: string }>(dir, file);
    let familyPassed = 0;
    for (const v of vectors) {
      const verdict = judge(v as never);
      if (verdict.pass) familyPassed++;
      else {
        failures.push({
          file,
          name: `${v.id} ${v.name}`,
          expected: verdict.expected,
          got: verdict.got,
          reason: verdict.reason ?? "failed",
        });
      }
    }
    passed += familyPassed;
    total += vectors.length;
    counts.push(`${file.replace(/\.json$/, "")} ${familyPassed}/${vectors.length}`);
  }
  return { passed, total, details: counts.join(", "), failures };
}
