/**
 * The merged metrics page: the agent's own metrics, then Envoy's page verbatim, then the application's
 * page(s). The merge is concatenation, as pilot-agent does; only OpenMetrics' `# EOF` terminator needs
 * care when several application targets are merged. Pure: no I/O.
 */
import { FMT_TEXT, isOpenMetrics, negotiateMetricsFormat } from "./metrics-format.js";

/** What one application target gave: a body with its Content-Type, or nothing (failed, skipped). */
export type TargetScrape = { ok: true; body: Buffer; contentType: string } | { ok: false };

export interface MergeInput {
  agent: Buffer;
  /** Envoy's page, when it was scraped successfully. */
  envoy?: Buffer;
  /** One entry per configured application target, in target order; `undefined` = no application configured. */
  targets?: TargetScrape[];
}

export interface MergedPage {
  contentType: string;
  chunks: Buffer[];
}

const EOF_TRAILER = /\n[ \t\r\n]*# EOF[ \t\r\n]*$/;
const EOF_LINE = Buffer.from("# EOF\n");
const NEWLINE = Buffer.from("\n");

/** A target body without its trailing `# EOF` line (and the whitespace around it). */
export function withoutEof(body: Buffer): Buffer {
  // Only the tail can hold the terminator; look at a bounded window instead of decoding the page.
  // A page that starts with the terminator is treated as if a line break preceded it.
  const tailStart = Math.max(0, body.length - 64);
  const tail = (tailStart === 0 ? "\n" : "") + body.subarray(tailStart).toString("latin1");
  const m = EOF_TRAILER.exec(tail);
  if (!m) return body;
  return body.subarray(0, Math.max(0, tailStart + m.index + (tailStart === 0 ? 0 : 1)));
}

/**
 * The agent's own page as Go's text encoder writes it: prom-client separates metric families with blank
 * lines (which OpenMetrics forbids) and spells not-a-number "Nan" (OpenMetrics wants "NaN").
 */
export function agentPageText(text: string): string {
  return text.replace(/\n{2,}/g, "\n").replace(/ Nan$/gm, " NaN");
}

/** The response format for the targets that answered: the first one's, or text when they disagree. */
export function mergedFormat(targets: TargetScrape[] | undefined): string {
  if (targets === undefined) return FMT_TEXT;
  if (targets.length === 1) {
    const only = targets[0];
    return negotiateMetricsFormat(only.ok ? only.contentType : "");
  }
  let format: string | undefined;
  for (const t of targets) {
    if (!t.ok) continue;
    const f = negotiateMetricsFormat(t.contentType);
    if (format === undefined) format = f;
    else if (f !== format) return FMT_TEXT;
  }
  return format ?? FMT_TEXT;
}

export function mergeMetricsPage(input: MergeInput): MergedPage {
  const contentType = mergedFormat(input.targets);
  const chunks: Buffer[] = [input.agent];
  if (input.envoy) chunks.push(input.envoy);
  const targets = input.targets ?? [];
  if (targets.length === 1) {
    // A single target is passed through as it came: its own terminator ends the page.
    const only = targets[0];
    if (only.ok) chunks.push(only.body);
    return { contentType, chunks };
  }
  for (const t of targets) {
    if (!t.ok) continue;
    const body = withoutEof(t.body);
    if (body.length === 0) continue;
    chunks.push(body);
    if (body[body.length - 1] !== 0x0a) chunks.push(NEWLINE);
  }
  if (targets.length > 1 && isOpenMetrics(contentType)) chunks.push(EOF_LINE);
  return { contentType, chunks };
}
