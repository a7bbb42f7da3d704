/** What a conformance kind reports for one corpus folder, and how the runner prints it. */

/** One vector that did not pass (or, in `notes`, passed with a remark such as an inexact message). */
export interface Failure {
  /** The vector file (or case folder) within the corpus. */
  file: string;
  /** The vector's name. */
  name: string;
  expected: string;
  got: string;
  reason: string;
}

export interface KindResult {
  passed: number;
  total: number;
  /** Extra grades, printed in parentheses after the count. */
  details?: string;
  failures: Failure[];
  /** Remarks on passing vectors, listed with --verbose after the failures. */
  notes?: Failure[];
}

export interface KindOptions {
  /** Which injection path to judge, for kinds that have several (istio-inject). */
  mode?: "kube-inject" | "webhook";
  /** Time budget per vector. */
  budgetMs: number;
}

/** Judges every vector of one corpus folder. */
export type KindRunner = (dir: string, options: KindOptions) => Promise<KindResult>;

/** `conformance KIND NAME: P/T passed (details)` */
export function summaryLine(kind: string, name: string, result: KindResult): string {
  const details = result.details ? ` (${result.details})` : "";
  return `conformance ${kind} ${name}: ${result.passed}/${result.total} passed${details}`;
}

const MAX_SHOWN = 400;

/** JSON-quotes a value for display, shortening very long ones. */
export function shown(text: string): string {
  const quoted = JSON.stringify(text);
  if (quoted.length <= MAX_SHOWN) return quoted;
  return `${quoted.slice(0, MAX_SHOWN)}… (${quoted.length - MAX_SHOWN} more chars)`;
}

/** The --verbose listing: one block per failure, then one per note. */
export function verboseLines(result: KindResult): string[] {
  const lines: string[] = [];
  const block = (label: string, f: Failure) => {
    lines.push(`  ${label} ${f.file} ${JSON.stringify(f.name)}: ${f.reason}`);
    lines.push(`    expected: ${f.expected}`);
    lines.push(`    got:      ${f.got}`);
  };
  for (const f of result.failures) block("FAIL", f);
  for (const f of result.notes ?? []) block("NOTE", f);
  return lines;
}
