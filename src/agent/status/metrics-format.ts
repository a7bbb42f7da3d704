/**
 * Prometheus exposition formats on the merged metrics endpoint: what the agent asks its scrape targets for
 * (the client's Accept, filtered to formats that can be concatenated) and how it labels the merged answer.
 * Media types are parsed as Go's mime.ParseMediaType does. Pure: no I/O.
 */

export const FMT_TEXT = "text/plain; version=0.0.4; charset=utf-8";
export const FMT_OPENMETRICS_1_0_0 = "application/openmetrics-text; version=1.0.0; charset=utf-8";
export const FMT_OPENMETRICS_0_0_1 = "application/openmetrics-text; version=0.0.1; charset=utf-8";
const OPENMETRICS_TYPE = "application/openmetrics-text";

/** What is asked when the client's Accept cannot be used. */
export const TEXT_ACCEPT = "text/plain;version=0.0.4";
const OPENMETRICS_ACCEPT = "application/openmetrics-text;version=0.0.1";

/** Media types Envoy's /stats/prometheus may be asked for (it serves text only). */
export const ENVOY_ACCEPTED = ["text/*", "text/plain"] as const;
/** Media types an application may be asked for (never protobuf: it cannot be concatenated). */
export const APP_ACCEPTED = ["text/*", "text/plain", OPENMETRICS_TYPE] as const;

export interface MediaType {
  type: string;
  params: Record<string, string>;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Go's mime.ParseMediaType, for the shapes HTTP headers carry; throws on what Go rejects. */
export function parseMediaType(text: string): MediaType {
  const semi = text.indexOf(";");
  const base = (semi < 0 ? text : text.slice(0, semi)).trim().toLowerCase();
  const slash = base.indexOf("/");
  const major = slash < 0 ? base : base.slice(0, slash);
  if (major === "" || !TOKEN.test(major)) throw new Error("mime: no media type");
  if (slash >= 0 && !TOKEN.test(base.slice(slash + 1))) throw new Error("mime: expected token after slash");
  const params: Record<string, string> = {};
  let rest = semi < 0 ? "" : text.slice(semi);
  while (rest.length > 0) {
    rest = rest.trimStart();
    if (rest === "") break;
    if (rest[0] !== ";") throw new Error("mime: invalid media parameter");
    rest = rest.slice(1).trimStart();
    if (rest === "") break; // a trailing semicolon is tolerated
    const m = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+)\s*=\s*/.exec(rest);
    if (!m) throw new Error("mime: invalid media parameter");
    rest = rest.slice(m[0].length);
    let value: string;
    if (rest.startsWith('"')) {
      let i = 1;
      value = "";
      for (; i < rest.length && rest[i] !== '"'; i++) {
        if (rest[i] === "\\" && i + 1 < rest.length) i++;
        value += rest[i];
      }
      if (i >= rest.length) throw new Error("mime: invalid media parameter");
      rest = rest.slice(i + 1);
    } else {
      const v = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/.exec(rest);
      if (!v) throw new Error("mime: invalid media parameter");
      value = v[0];
      rest = rest.slice(value.length);
    }
    const key = m[1].toLowerCase();
    if (key in params) throw new Error("mime: duplicate parameter name");
    params[key] = value;
  }
  return { type: base, params };
}

/** Go's mime.FormatMediaType: `type; k=v; …` with the parameters in sorted order, values quoted when needed. */
export function formatMediaType(type: string, params: Record<string, string>): string {
  let out = type.toLowerCase();
  for (const key of Object.keys(params).sort()) {
    const v = params[key];
    out += `; ${key.toLowerCase()}=${TOKEN.test(v) ? v : `"${v.replace(/(["\\])/g, "\\$1")}"`}`;
  }
  return out;
}

/** The format of the merged answer, from the application's Content-Type. */
export function negotiateMetricsFormat(contentType: string): string {
  try {
    const mt = parseMediaType(contentType);
    if (mt.type === OPENMETRICS_TYPE) {
      const version = mt.params.version ?? "";
      if (version === "1.0.0") return FMT_OPENMETRICS_1_0_0;
      if (version === "0.0.1" || version === "") return FMT_OPENMETRICS_0_0_1;
    }
  } catch {
    // unparsable: text
  }
  return FMT_TEXT;
}

export function isOpenMetrics(format: string): boolean {
  return format.startsWith(OPENMETRICS_TYPE);
}

/**
 * The Accept header to send to a scrape target: the client's entries whose media type the target may
 * serve (wildcards expanded to text or OpenMetrics), re-ranked with descending q values; text when
 * nothing usable is left or the header does not parse.
 */
export function filterAccept(accept: string | undefined, allowed: readonly string[]): string {
  if (accept === undefined || accept.trim() === "") return TEXT_ACCEPT;
  const kept: MediaType[] = [];
  const seen = new Set<string>();
  const add = (text: string) => {
    if (seen.has(text)) return;
    seen.add(text);
    kept.push(parseMediaType(text));
  };
  try {
    for (const entry of accept.split(",")) {
      const mt = parseMediaType(entry);
      delete mt.params.q;
      if (mt.type === "*/*" || mt.type === "*") {
        if (allowed.includes("text/plain")) add(TEXT_ACCEPT);
      } else if (mt.type === "application/*") {
        if (allowed.includes(OPENMETRICS_TYPE)) add(OPENMETRICS_ACCEPT);
      } else if (allowed.includes(mt.type)) {
        kept.push(mt);
      }
    }
  } catch {
    return TEXT_ACCEPT;
  }
  if (kept.length === 0) return TEXT_ACCEPT;
  return kept.map((mt, i) => formatMediaType(mt.type, { ...mt.params, q: `0.${kept.length - i}` })).join(", ");
}
