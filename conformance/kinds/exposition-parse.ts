/**
 * Parsers that accept or reject a whole metrics page the way the vectors' `parse` checks need: the
 * Prometheus text format as Go's expfmt.TextParser judges it (a second `# TYPE` for a family, or a TYPE
 * after its samples, is an error) and OpenMetrics as Prometheus' OpenMetricsParser (one `# EOF` ending the
 * page, no blank lines, TYPE before samples, at most once per family). Errors are thrown.
 */

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\.)*"';
/** Go's strconv.ParseFloat: the special values in any case. */
const VALUE =
  "(?:[+-]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?|[+-]?(?:[iI][nN][fF](?:[iI][nN][iI][tT][yY])?)|[nN][aA][nN])";
const TEXT_SAMPLE = new RegExp(
  `^(${NAME})(?:\\{\\s*(?:${LABEL}\\s*(?:,\\s*${LABEL}\\s*)*,?\\s*)?\\})?\\s+${VALUE}(?:\\s+-?\\d+)?\\s*$`,
);
const OM_SAMPLE = new RegExp(
  `^(${NAME})(?:\\{(?:${LABEL}(?:,${LABEL})*)?\\})? ${VALUE}(?: -?\\d+(?:\\.\\d+)?)?(?: # .*)?$`,
);
const TEXT_TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);
const OM_TYPES = new Set(["counter", "gauge", "histogram", "gaugehistogram", "stateset", "info", "summary", "unknown"]);
const SUFFIXES = ["_total", "_created", "_count", "_sum", "_bucket", "_gcount", "_gsum", "_info"];

/** The family a sample belongs to among those declared (its name, or the name without a type suffix). */
function familyOf(sample: string, declared: Map<string, unknown>): string {
  if (declared.has(sample)) return sample;
  for (const s of SUFFIXES) {
    if (sample.endsWith(s) && declared.has(sample.slice(0, -s.length))) return sample.slice(0, -s.length);
  }
  return sample;
}

export function parsePrometheusText(body: string): void {
  const typed = new Map<string, string>();
  const helped = new Set<string>();
  const sampled = new Set<string>();
  body.split("\n").forEach((line, i) => {
    const where = `line ${i + 1}`;
    if (line.trim() === "") return;
    if (line.startsWith("#")) {
      const m = /^#\s+(TYPE|HELP)\s+(\S+)(?:\s+(.*))?$/.exec(line);
      if (!m) return; // a comment
      const [, kind, name, rest] = m;
      if (!new RegExp(`^${NAME}$`).test(name)) throw new Error(`${where}: invalid metric name ${name}`);
      if (kind === "TYPE") {
        if (typed.has(name) || sampled.has(name)) {
          throw new Error(`${where}: second TYPE line for metric name ${name}, or TYPE reported after samples`);
        }
        if (!TEXT_TYPES.has((rest ?? "").trim())) throw new Error(`${where}: unknown metric type ${rest}`);
        typed.set(name, (rest ?? "").trim());
      } else {
        if (helped.has(name)) throw new Error(`${where}: second HELP line for metric name ${name}`);
        helped.add(name);
      }
      return;
    }
    const m = TEXT_SAMPLE.exec(line);
    if (!m) throw new Error(`${where}: invalid sample ${JSON.stringify(line)}`);
    sampled.add(familyOf(m[1], typed));
  });
}

export function parseOpenMetrics(body: string): void {
  if (!body.endsWith("# EOF\n") && !body.endsWith("# EOF")) throw new Error("data does not end with # EOF");
  const lines = body.replace(/\n$/, "").split("\n");
  const typed = new Map<string, string>();
  const meta = new Set<string>();
  const sampled = new Set<string>();
  lines.forEach((line, i) => {
    const where = `line ${i + 1}`;
    if (line === "# EOF") {
      if (i !== lines.length - 1) throw new Error(`${where}: unexpected data after # EOF`);
      return;
    }
    if (line === "") throw new Error(`${where}: blank line`);
    if (line.startsWith("#")) {
      const m = /^# (TYPE|HELP|UNIT) (\S+)(?: (.*))?$/.exec(line);
      if (!m) throw new Error(`${where}: invalid comment ${JSON.stringify(line)}`);
      const [, kind, name, rest] = m;
      if (!new RegExp(`^${NAME}$`).test(name)) throw new Error(`${where}: invalid metric name ${name}`);
      if (sampled.has(name)) throw new Error(`${where}: metadata for ${name} after its samples`);
      const key = `${kind} ${name}`;
      if (meta.has(key)) throw new Error(`${where}: second ${kind} for ${name}`);
      meta.add(key);
      if (kind === "TYPE") {
        if (!OM_TYPES.has(rest ?? "")) throw new Error(`${where}: invalid metric type ${rest}`);
        typed.set(name, rest ?? "");
      }
      return;
    }
    const m = OM_SAMPLE.exec(line);
    if (!m) throw new Error(`${where}: invalid sample ${JSON.stringify(line)}`);
    sampled.add(familyOf(m[1], typed));
  });
}
