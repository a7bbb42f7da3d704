// The istio-inject conformance corpus for tests that walk all its cases: where it is, the reason to
// skip when it is absent, and its cases (sorted by name) that a filter keeps.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type IstioInjectCase, readCase } from "../conformance/kinds/istio-inject-case.js";

export const ISTIO_INJECT_CORPUS = fileURLToPath(new URL("../../shared/conformance/istio-inject", import.meta.url));

/** Why the corpus tests are skipped, or undefined when the corpus is there. */
export const corpusAbsent: string | undefined = existsSync(ISTIO_INJECT_CORPUS)
  ? undefined
  : `the conformance corpus ${ISTIO_INJECT_CORPUS} is absent: it is generated from Istio's sources and placed beside the clone as ../shared/conformance (README, "Conformance")`;

export interface CorpusCase {
  name: string;
  dir: string;
  meta: IstioInjectCase;
}

/** The corpus's cases that `keep` accepts, by name. */
export function corpusCases(keep: (meta: IstioInjectCase) => boolean): CorpusCase[] {
  return readdirSync(ISTIO_INJECT_CORPUS, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => ({
      name: e.name,
      dir: join(ISTIO_INJECT_CORPUS, e.name),
      meta: readCase(join(ISTIO_INJECT_CORPUS, e.name)),
    }))
    .filter((c) => keep(c.meta))
    .sort((a, b) => a.name.localeCompare(b.name));
}
