/**
 * The `app-probe` kind: app probe rewriting at injection (see the corpus's FORMAT.md). One family per
 * file; each vector is judged by the function of src/inject/probes.ts it names. The golden family
 * replays the probe step of `TestInjection` cases on the containers the golden files show: the
 * proxy container is present when the output has one, the annotations are the input's with the
 * template's additions, and a re-injected pod's proxy keeps its earlier `ISTIO_KUBE_APP_PROBERS`.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { type PodLike as Pod, PROXY_CONTAINER as PROXY_CONTAINER_NAME } from "../../src/inject/pod.js";
import {
  APP_PROBERS_ENV,
  type ProbeContainer as Container,
  dumpAppProbers,
  type EnvVar,
  findSidecar,
  mergeOrAppendProbers,
  patchRewriteProbe,
  shouldRewriteAppHTTPProbers,
  withRewrittenAppProbes,
} from "../../src/inject/probes.js";
import type { Failure, KindOptions, KindResult } from "../result.js";
import { shown } from "../result.js";

type Json = Record<string, unknown>;

interface Verdict {
  pass: boolean;
  reason?: string;
  expected: string;
  got: string;
  /** Golden family: whether the env text matched byte for byte. */
  exactText?: boolean;
}

const show = (v: unknown) => shown(JSON.stringify(v) ?? "undefined");

function equal(expected: unknown, got: unknown, what: string): Verdict {
  const pass = isDeepStrictEqual(got, expected);
  return { pass, reason: pass ? undefined : `${what} differs`, expected: show(expected), got: show(got) };
}

function judgeFindSidecar(v: Json): Verdict {
  return equal(v.want, findSidecar(v.pod as Pod) ?? null, "container");
}

function judgeShouldRewrite(v: Json): Verdict {
  const got = shouldRewriteAppHTTPProbers(v.annotations as Record<string, string> | null, v.specSetting !== false);
  return equal(v.want, got, "decision");
}

function judgeDump(v: Json): Verdict {
  const want = (v.want as Json).appProbers ?? null;
  const text = dumpAppProbers(v.pod as Pod, v.statusPort as number);
  return equal(want, text === undefined ? null : JSON.parse(text), "prober JSON");
}

function judgePatch(v: Json): Verdict {
  const got = patchRewriteProbe(v.annotations as Record<string, string>, v.pod as Pod, v.statusPort as number);
  return equal((v.want as Json).pod, got, "pod");
}

function judgeMerge(v: Json): Verdict {
  const got = mergeOrAppendProbers(v.previouslyInjected === true, v.env as EnvVar[], v.probers as string);
  return equal((v.want as Json).env, got, "env");
}

/** `values.sidecarInjectorWebhook.rewriteAppHTTPProbe` from the case's --set flags (Istio's default: true). */
function rewriteSetting(settings: Json | undefined): boolean {
  for (const flag of (settings?.setFlags as string[] | undefined) ?? []) {
    const m = /^values\.sidecarInjectorWebhook\.rewriteAppHTTPProbe=(.*)$/.exec(flag);
    if (m) return m[1] !== "false";
  }
  return true;
}

function judgeGolden(v: Json): Verdict {
  const input = v.input as { containers: Container[] };
  const want = v.want as { containers: Container[]; appProbersText: string | null; appProbers?: unknown };
  const annotations = {
    ...((v.podAnnotations as Record<string, string>) ?? {}),
    ...((v.outputPodAnnotations as Record<string, string>) ?? {}),
  };
  const containers: Container[] = structuredClone(input.containers);
  if (v.sidecarInOutput === true) {
    const env: EnvVar[] =
      typeof v.existingAppProbers === "string" ? [{ name: APP_PROBERS_ENV, value: v.existingAppProbers }] : [];
    containers.push({ name: PROXY_CONTAINER_NAME, env });
  }
  const statusPort = typeof v.observedStatusPort === "number" ? v.observedStatusPort : 15020;
  const pod = withRewrittenAppProbes(
    { metadata: { annotations }, spec: { containers } },
    statusPort,
    rewriteSetting(v.settings as Json | undefined),
  );
  const outContainers = ((pod.spec?.containers ?? []) as Container[]).filter((c) => c.name !== PROXY_CONTAINER_NAME);
  const proxy = ((pod.spec?.containers ?? []) as Container[]).find((c) => c.name === PROXY_CONTAINER_NAME);
  const text = proxy?.env?.find((e) => e.name === APP_PROBERS_ENV)?.value ?? null;
  const expected = `containers ${show(want.containers)}, env ${show(want.appProbersText)}`;
  const got = `containers ${show(outContainers)}, env ${show(text)}`;
  if (!isDeepStrictEqual(outContainers, want.containers)) {
    return { pass: false, reason: "rewritten containers differ", expected, got };
  }
  const wantParsed = want.appProbersText === null ? null : JSON.parse(want.appProbersText);
  if (!isDeepStrictEqual(text === null ? null : JSON.parse(text), wantParsed)) {
    return { pass: false, reason: "prober JSON differs", expected, got };
  }
  return { pass: true, expected, got, exactText: text === want.appProbersText };
}

const FAMILIES: ReadonlyArray<[string, (v: Json) => Verdict]> = [
  ["find-sidecar.json", judgeFindSidecar],
  ["should-rewrite.json", judgeShouldRewrite],
  ["dump-app-probers.json", judgeDump],
  ["patch-rewrite-probe.json", judgePatch],
  ["merge-probers.json", judgeMerge],
  ["injection-goldens.json", judgeGolden],
];

export async function runAppProbe(dir: string, _options: KindOptions): Promise<KindResult> {
  const failures: Failure[] = [];
  const notes: Failure[] = [];
  const counts: string[] = [];
  let passed = 0;
  let total = 0;
  let exact = 0;
  let goldens = 0;
  for (const [file, judge] of FAMILIES) {
    const parsed = JSON.parse(await readFile(join(dir, file), "utf8")) as { vectors?: Json[] };
    if (!Array.isArray(parsed.vectors)) throw new Error(`${file}: expected an object with a "vectors" array`);
    let familyPassed = 0;
    for (const v of parsed.vectors) {
      let verdict: Verdict;
      try {
        verdict = judge(v);
      } catch (e) {
        verdict = { pass: false, reason: "threw", expected: "", got: (e as Error).stack ?? String(e) };
      }
      const entry = {
        file,
        name: `${String(v.id)} ${String(v.name ?? "")}`,
        expected: verdict.expected,
        got: verdict.got,
      };
      if (!verdict.pass) {
        failures.push({ ...entry, reason: verdict.reason ?? "failed" });
        continue;
      }
      familyPassed++;
      if (verdict.exactText !== undefined) {
        goldens++;
        if (verdict.exactText) exact++;
        else notes.push({ ...entry, reason: "env text not byte-identical" });
      }
    }
    passed += familyPassed;
    total += parsed.vectors.length;
    counts.push(`${file.replace(/\.json$/, "")} ${familyPassed}/${parsed.vectors.length}`);
  }
  counts.push(`golden env text exact ${exact}/${goldens}`);
  return { passed, total, details: counts.join(", "), failures, notes };
}
