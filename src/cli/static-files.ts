/**
 * The playground's files as HTTP responses: each read once (again when it changes on disk),
 * compressed with brotli or gzip (node:zlib) when the client's Accept-Encoding asks for one and the
 * file is text of some size, each compressed form made once and kept; with an ETag per content and
 * encoding, so that a browser revalidates (Cache-Control: no-cache; the file names carry no hash)
 * and gets 304 Not Modified while the file is unchanged.
 */
import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";

export type Encoding = "br" | "gzip" | "identity";

/** Below this, compressing saves less than the headers cost. */
const MIN_COMPRESS_BYTES = 1024;

/** Content types worth compressing (text; images are compressed already). */
const COMPRESSIBLE = /^(text\/|application\/json|image\/svg\+xml)/;

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * The encoding to answer with, from an Accept-Encoding header (RFC 9110 §12.5.3): the one of br and
 * gzip with the highest q-value above 0 (br on a tie: it is smaller), `*` standing for those not
 * named; identity when neither is acceptable.
 */
export function chooseEncoding(header: string | undefined): Encoding {
  const q = new Map<string, number>();
  for (const part of (header ?? "").split(",")) {
    const [token = "", ...params] = part.split(";").map((s) => s.trim());
    if (token === "") continue;
    const qParam = params.find((p) => /^q=/i.test(p));
    const value = qParam === undefined ? 1 : Number(qParam.slice(2));
    q.set(token.toLowerCase(), Number.isFinite(value) ? value : 0);
  }
  const weight = (coding: string) => q.get(coding) ?? q.get("*") ?? 0;
  const br = weight("br");
  const gz = Math.max(weight("gzip"), q.get("x-gzip") ?? 0);
  if (br <= 0 && gz <= 0) return "identity";
  return br >= gz ? "br" : "gzip";
}

/** One file as it is served. */
export interface StaticBody {
  body: Buffer;
  encoding: Encoding;
  etag: string;
  lastModified: string;
}

interface Entry {
  mtimeMs: number;
  size: number;
  hash: string;
  lastModified: string;
  identity: Buffer;
  compressed: Map<Encoding, Promise<Buffer>>;
}

/** The files served, read and compressed on demand and kept while unchanged. */
export class StaticFiles {
  private readonly entries = new Map<string, Entry>();

  /** `file` in the encoding `acceptEncoding` asks for (and `type` allows); undefined when it cannot be read. */
  async get(file: string, type: string, acceptEncoding: string | undefined): Promise<StaticBody | undefined> {
    const entry = await this.entry(file);
    if (entry === undefined) return undefined;
    const wanted = chooseEncoding(acceptEncoding);
    const encoding =
      wanted !== "identity" && COMPRESSIBLE.test(type) && entry.size >= MIN_COMPRESS_BYTES ? wanted : "identity";
    const body = encoding === "identity" ? entry.identity : await this.compressed(entry, encoding);
    const etag = `"${entry.hash}${encoding === "identity" ? "" : `-${encoding}`}"`;
    return { body, encoding, etag, lastModified: entry.lastModified };
  }

  private async entry(file: string): Promise<Entry | undefined> {
    const info = await stat(file).catch(() => undefined);
    if (info === undefined || !info.isFile()) return undefined;
    const known = this.entries.get(file);
    if (known !== undefined && known.mtimeMs === info.mtimeMs && known.size === info.size) return known;
    const identity = await readFile(file).catch(() => undefined);
    if (identity === undefined) return undefined;
    const entry: Entry = {
      mtimeMs: info.mtimeMs,
      size: identity.length,
      hash: createHash("sha256").update(identity).digest("base64url").slice(0, 22),
      lastModified: info.mtime.toUTCString(),
      identity,
      compressed: new Map(),
    };
    this.entries.set(file, entry);
    return entry;
  }

  private compressed(entry: Entry, encoding: "br" | "gzip"): Promise<Buffer> {
    let made = entry.compressed.get(encoding);
    if (made === undefined) {
      made =
        encoding === "br"
          ? brotli(entry.identity, {
              params: {
                // 9 of 11: within a few per cent of the smallest, at a fraction of the time for a 1 MB bundle.
                [constants.BROTLI_PARAM_QUALITY]: 9,
                [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
                [constants.BROTLI_PARAM_SIZE_HINT]: entry.identity.length,
              },
            })
          : gzipAsync(entry.identity, { level: constants.Z_BEST_COMPRESSION });
      entry.compressed.set(encoding, made);
    }
    return made;
  }
}

/** Whether an If-None-Match header names `etag` (or is `*`). */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(",").some((tag) => {
    const t = tag.trim().replace(/^W\//, "");
    return t === "*" || t === etag;
  });
}
