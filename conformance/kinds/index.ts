/** The conformance kinds that have a runner, by the `kind` of their corpus.json. */
import type { KindRunner } from "../result.js";
import { runGotemplate } from "./gotemplate.js";

export const kinds: Record<string, KindRunner> = {
  gotemplate: runGotemplate,
};
