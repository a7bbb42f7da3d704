/**
 * Scraping one metrics endpoint for the merged page: a GET on localhost with the scraper's Accept (filtered),
 * User-Agent and X-Prometheus-Scrape-Timeout-Seconds passed on, and that timeout applied. Anything but
 * 200 is a failure.
 */
import * as http from "node:http";
import type { Readable } from "node:stream";

export interface OpenScrape {
  ok: true;
  stream: Readable;
  contentType: string;
}

export interface FailedScrape {
  ok: false;
  error: string;
}

/** Headers of the scraper's request that are passed on, as Prometheus sends them. */
export function scrapeHeaders(req: http.IncomingMessage, accept: string): Record<string, string> {
  const out: Record<string, string> = { Accept: accept };
  const ua = req.headers["user-agent"];
  if (ua) out["User-Agent"] = ua;
  const timeout = req.headers["x-prometheus-scrape-timeout-seconds"];
  if (typeof timeout === "string" && timeout !== "") out["X-Prometheus-Scrape-Timeout-Seconds"] = timeout;
  return out;
}

/** The scraper's timeout, when its header parses as seconds. */
export function scrapeTimeoutMs(req: http.IncomingMessage): number | undefined {
  const t = req.headers["x-prometheus-scrape-timeout-seconds"];
  if (typeof t !== "string" || t === "") return undefined;
  const seconds = Number(t);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}

/** Starts a scrape; resolves once the answer's headers are in, with its body still to be read. */
export function openScrape(
  port: string | number,
  path: string,
  headers: Record<string, string>,
  timeoutMs: number | undefined,
): Promise<OpenScrape | FailedScrape> {
  const url = `http://localhost:${port}${path}`;
  return new Promise((resolve) => {
    const fail = (error: string) => resolve({ ok: false, error: `error scraping ${url}: ${error}` });
    let req: http.ClientRequest;
    try {
      req = http.get(url, { headers, agent: false }, (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          fail(`status code: ${res.statusCode}`);
          return;
        }
        resolve({ ok: true, stream: res, contentType: String(res.headers["content-type"] ?? "") });
      });
    } catch (e) {
      fail((e as Error).message);
      return;
    }
    if (timeoutMs !== undefined) {
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`timed out after ${timeoutMs} ms`)));
    }
    req.on("error", (e) => fail(e.message));
  });
}

/** A whole scrape: the body up to `cap` bytes (a longer one is a failure). */
export async function scrapeBody(
  port: string | number,
  path: string,
  headers: Record<string, string>,
  timeoutMs: number | undefined,
  cap: number,
): Promise<{ ok: true; body: Buffer; contentType: string } | FailedScrape> {
  const open = await openScrape(port, path, headers, timeoutMs);
  if (!open.ok) return open;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of open.stream) {
      size += (chunk as Buffer).length;
      if (size > cap) {
        open.stream.destroy();
        return { ok: false, error: `error scraping localhost:${port}${path}: body larger than ${cap} bytes` };
      }
      chunks.push(chunk as Buffer);
    }
  } catch (e) {
    return { ok: false, error: `error scraping localhost:${port}${path}: ${(e as Error).message}` };
  }
  return { ok: true, body: Buffer.concat(chunks), contentType: open.contentType };
}
