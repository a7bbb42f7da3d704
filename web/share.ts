/**
 * The page state in the URL fragment: JSON, deflated with the browser's CompressionStream
 * ("deflate-raw"), in base64url. The fragment never leaves the browser.
 */
import type { PlaygroundState } from "./playground.js";

const PREFIX = "#s=";

async function pipe(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const out = new Response(new Blob([bytes as BlobPart]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}

function toBase64Url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array {
  const s = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

export async function encodeState(state: PlaygroundState): Promise<string> {
  const json = new TextEncoder().encode(JSON.stringify(state));
  return PREFIX + toBase64Url(await pipe(json, new CompressionStream("deflate-raw")));
}

/** The state a fragment carries, or undefined when it carries none (or a damaged one). */
export async function decodeState(hash: string): Promise<Partial<PlaygroundState> | undefined> {
  if (!hash.startsWith(PREFIX)) return undefined;
  try {
    const json = await pipe(fromBase64Url(hash.slice(PREFIX.length)), new DecompressionStream("deflate-raw"));
    const parsed: unknown = JSON.parse(new TextDecoder().decode(json));
    return typeof parsed === "object" && parsed !== null ? (parsed as Partial<PlaygroundState>) : undefined;
  } catch {
    return undefined;
  }
}
