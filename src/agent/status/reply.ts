/**
 * Writing the status server's answers: whole bodies with their length, or bodies that include upstream
 * streams (Envoy's metrics page is copied through as it arrives, as pilot-agent does), compressed with
 * zstd or gzip when the client asks and the body is worth it.
 */

import type * as http from "node:http";
import type { Readable, Writable } from "node:stream";
import { createGzip } from "node:zlib";
import { chooseEncoding, compress, MIN_COMPRESS_BYTES } from "./compression.js";

/** A streamed part, with what to do when it breaks off (the answer is then cut short). */
export interface StreamPart {
  stream: Readable;
  onError(e: Error): void;
}

export type BodyPart = Buffer | StreamPart;

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: Buffer | string | BodyPart[];
}

export function textError(status: number, message: string): Reply {
  return {
    status,
    headers: { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" },
    body: `${message}\n`,
  };
}

function parts(body: Reply["body"]): BodyPart[] {
  if (Array.isArray(body)) return body;
  if (typeof body === "string") return [Buffer.from(body)];
  return body ? [body] : [];
}

/** Writes with back-pressure; throws when the destination is gone, so that copying stops. */
async function write(out: Writable, chunk: Buffer): Promise<void> {
  if (out.destroyed) throw new ClientGone();
  if (out.write(chunk)) return;
  await drainedOrClosed(out);
  if (out.destroyed) throw new ClientGone();
}

function drainedOrClosed(out: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      out.off("drain", done);
      out.off("close", done);
      resolve();
    };
    out.on("drain", done);
    out.on("close", done);
  });
}

class ClientGone extends Error {
  constructor() {
    super("the client went away");
  }
}

/** Copies the parts in order; a part that breaks off is reported and skipped. A gone client stops it all. */
async function copyParts(list: BodyPart[], out: Writable): Promise<void> {
  try {
    for (const p of list) {
      if (Buffer.isBuffer(p)) {
        await write(out, p);
        continue;
      }
      try {
        for await (const chunk of p.stream) await write(out, chunk as Buffer);
      } catch (e) {
        if (e instanceof ClientGone) throw e;
        p.onError(e as Error);
      }
    }
  } catch (e) {
    if (!(e instanceof ClientGone)) throw e;
    for (const p of list) if (!Buffer.isBuffer(p)) p.stream.destroy();
  }
}

async function collect(list: BodyPart[]): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await copyParts(list, {
    write: (c: Buffer) => {
      chunks.push(c);
      return true;
    },
  } as unknown as Writable);
  return Buffer.concat(chunks);
}

export async function sendReply(req: http.IncomingMessage, res: http.ServerResponse, reply: Reply): Promise<void> {
  let list = parts(reply.body);
  const headers: Record<string, string> = { ...reply.headers };
  const streamed = list.some((p) => !Buffer.isBuffer(p));
  if (req.method === "HEAD") {
    for (const p of list) if (!Buffer.isBuffer(p)) p.stream.destroy();
    res.writeHead(reply.status, headers);
    res.end();
    return;
  }
  // A small whole body (every probe answer) is never compressed: no need to read Accept-Encoding.
  if (!streamed && list.reduce((n, b) => n + (b as Buffer).length, 0) < MIN_COMPRESS_BYTES) {
    const body = list.length === 1 ? (list[0] as Buffer) : Buffer.concat(list as Buffer[]);
    headers["Content-Length"] = String(body.length);
    res.writeHead(reply.status, headers);
    res.end(body);
    return;
  }
  const encoding = chooseEncoding(req.headers["accept-encoding"]);
  if (!streamed || encoding === "zstd") {
    // zstd here compresses whole buffers, so a streamed body is gathered first.
    let body = streamed ? await collect(list) : Buffer.concat(list as Buffer[]);
    if (body.length >= MIN_COMPRESS_BYTES) {
      headers.Vary = "Accept-Encoding";
      if (encoding) {
        body = await compress(body, encoding);
        headers["Content-Encoding"] = encoding;
      }
    }
    headers["Content-Length"] = String(body.length);
    res.writeHead(reply.status, headers);
    res.end(body);
    return;
  }
  headers.Vary = "Accept-Encoding";
  if (encoding === "gzip") headers["Content-Encoding"] = "gzip";
  res.writeHead(reply.status, headers);
  if (encoding === "gzip") {
    const gzip = createGzip({ level: 5 });
    gzip.pipe(res);
    await copyParts(list, gzip);
    gzip.end();
  } else {
    await copyParts(list, res);
    res.end();
  }
  list = [];
}
