/**
 * Response compression on the status server, as pilot-agent's handler wrapper does it: zstd or gzip,
 * chosen from Accept-Encoding by q value (zstd preferred on a tie), only for bodies worth compressing.
 * Node 20 has no zstd, so zstd-codec (the reference C library built to WebAssembly) does it.
 */
import { gzipSync } from "node:zlib";
import { ZstdCodec, type ZstdSimple } from "zstd-codec";

export type Encoding = "zstd" | "gzip";

/** Bodies smaller than this go out as they are. */
export const MIN_COMPRESS_BYTES = 1024;

const PREFERENCE: Encoding[] = ["zstd", "gzip"];

/** The encoding to use for a request's Accept-Encoding, or undefined for none. Pure. */
export function chooseEncoding(acceptEncoding: string | undefined): Encoding | undefined {
  if (!acceptEncoding) return undefined;
  const q = new Map<string, number>();
  for (const part of acceptEncoding.split(",")) {
    const [name, ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    if (name === "") continue;
    let weight = 1;
    for (const p of params) {
      const m = /^q\s*=\s*([0-9.]+)$/.exec(p);
      if (m) weight = Number(m[1]);
    }
    if (!Number.isNaN(weight)) q.set(name, weight);
  }
  const star = q.get("*");
  let best: Encoding | undefined;
  let bestQ = 0;
  for (const enc of PREFERENCE) {
    const w = q.get(enc) ?? star ?? 0;
    if (w > bestQ) {
      best = enc;
      bestQ = w;
    }
  }
  return best;
}

let zstd: Promise<ZstdSimple> | undefined;

function zstdCodec(): Promise<ZstdSimple> {
  zstd ??= new Promise((resolve) => ZstdCodec.run((z) => resolve(new z.Simple())));
  return zstd;
}

/** zstd decompression, for tests and clients of ours that read the status server. */
export async function zstdDecompress(body: Buffer): Promise<Buffer> {
  const out = (await zstdCodec()).decompress(body);
  if (!out) throw new Error("zstd decompression failed");
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}

export async function compress(body: Buffer, encoding: Encoding): Promise<Buffer> {
  if (encoding === "gzip") return gzipSync(body, { level: 5 });
  const out = (await zstdCodec()).compress(body, 3);
  if (!out) throw new Error("zstd compression failed");
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}
