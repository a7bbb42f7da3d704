/**
 * /debug/pprof/… for a Node agent: the same paths as pilot-agent's (Go's net/http/pprof), answered with
 * what Node has — the command line, a V8 CPU profile for `seconds`, a heap snapshot.
 */
import { Session } from "node:inspector/promises";
import { getHeapSnapshot } from "node:v8";
import type { Reply } from "./reply.js";

const PROFILES: Record<string, string> = {
  cmdline: "The command line invocation of the current program",
  heap: "A V8 heap snapshot (.heapsnapshot, for Chrome DevTools)",
  profile: "CPU profile (.cpuprofile, for Chrome DevTools). Add seconds=N for the duration (default 30).",
};

const MAX_PROFILE_SECONDS = 300;

async function cpuProfile(seconds: number): Promise<string> {
  const session = new Session();
  session.connect();
  try {
    await session.post("Profiler.enable");
    await session.post("Profiler.start");
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const { profile } = await session.post("Profiler.stop");
    return JSON.stringify(profile);
  } finally {
    session.disconnect();
  }
}

function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("end", () => resolve(Buffer.concat(chunks)));
    stream.on("error", reject);
  });
}

export async function handlePprof(name: string, query: URLSearchParams): Promise<Reply> {
  const text = { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" };
  switch (name) {
    case "": {
      const rows = Object.entries(PROFILES)
        .map(([n, d]) => `<li><a href="${n}">${n}</a>: ${d}</li>`)
        .join("\n");
      return {
        status: 200,
        headers: { "Content-Type": "text/html; charset=utf-8" },
        body: `<html><head><title>/debug/pprof/</title></head><body>\n<ul>\n${rows}\n</ul>\n</body></html>\n`,
      };
    }
    case "cmdline":
      return { status: 200, headers: text, body: process.argv.join("\x00") };
    case "profile": {
      const raw = query.get("seconds");
      const seconds = raw === null ? 30 : Number(raw);
      if (!Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_PROFILE_SECONDS) {
        return { status: 400, headers: text, body: `invalid seconds ${JSON.stringify(raw)}\n` };
      }
      return {
        status: 200,
        headers: {
          "Content-Type": "application/json",
          "Content-Disposition": 'attachment; filename="agent.cpuprofile"',
        },
        body: await cpuProfile(seconds),
      };
    }
    case "heap":
      return {
        status: 200,
        headers: {
          "Content-Type": "application/json",
          "Content-Disposition": 'attachment; filename="agent.heapsnapshot"',
        },
        body: await readAll(getHeapSnapshot()),
      };
    default:
      return { status: 404, headers: text, body: "Unknown profile\n" };
  }
}
