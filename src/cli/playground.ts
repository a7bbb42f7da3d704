/**
 * `meshinject playground [--port 8080] [--host 127.0.0.1] [--open]`: serves the injection playground
 * (the static web app `npm run build:web` writes to dist/web/) over HTTP on loopback. GET and HEAD
 * only, files of that folder only, each with its content type, compressed when the browser asks and
 * revalidated by ETag (static-files.ts); everything else is 404/405.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import type { CliIo } from "./io.js";
import { matchesEtag, StaticFiles } from "./static-files.js";

export class PlaygroundError extends Error {
  override name = "PlaygroundError";
}

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".png": "image/png",
  ".svg": "image/svg+xml",
  ".txt": "text/plain; charset=utf-8",
  ".map": "application/json",
};

/** dist/web/ beside the compiled CLI (dist/cli/), or under the repository when run from src/. */
function defaultWebRoot(): string {
  for (const rel of ["../web/", "../../dist/web/"]) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(join(dir, "index.html"))) return dir;
  }
  throw new PlaygroundError("playground: dist/web/index.html not found; build it with `npm run build:web`");
}

/** The file under `root` a request path names, or undefined when it points outside. */
function fileFor(root: string, urlPath: string): string | undefined {
  let path: string;
  try {
    path = decodeURIComponent(urlPath.split("?")[0] ?? "/");
  } catch {
    return undefined;
  }
  if (path.endsWith("/")) path += "index.html";
  const file = normalize(join(root, path));
  return file.startsWith(normalize(root).replace(/\/?$/, sep)) ? file : undefined;
}

export interface PlaygroundServer {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/** Starts serving `root` on host:port (port 0: any free one). */
export async function startPlaygroundServer(root: string, port: number, host = "127.0.0.1"): Promise<PlaygroundServer> {
  const files = new StaticFiles();
  const server = createServer(async (req, res) => {
    if (req.method !== "GET" && req.method !== "HEAD") {
      res
        .writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain; charset=utf-8" })
        .end("method not allowed\n");
      return;
    }
    const file = fileFor(root, req.url ?? "/");
    const type = file === undefined ? "" : (CONTENT_TYPES[extname(file)] ?? "application/octet-stream");
    const served = file === undefined ? undefined : await files.get(file, type, req.headers["accept-encoding"]);
    if (served === undefined) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found\n");
      return;
    }
    const caching = {
      etag: served.etag,
      "last-modified": served.lastModified,
      // Revalidated each time (the names carry no content hash): a 304 while the file is unchanged.
      "cache-control": "no-cache",
      vary: "accept-encoding",
    };
    if (matchesEtag(req.headers["if-none-match"], served.etag)) {
      res.writeHead(304, caching).end();
      return;
    }
    res.writeHead(200, {
      "content-type": type,
      "content-length": served.body.length,
      ...(served.encoding === "identity" ? {} : { "content-encoding": served.encoding }),
      "x-content-type-options": "nosniff",
      ...caching,
    });
    res.end(req.method === "HEAD" ? undefined : served.body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (e: NodeJS.ErrnoException) =>
      reject(new PlaygroundError(`playground: cannot listen on ${host}:${port}: ${e.code ?? e.message}`)),
    );
    server.listen(port, host, resolve);
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${shown}:${address.port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function openBrowser(url: string, io: CliIo): void {
  const command = process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer" : "xdg-open";
  const child = spawn(command, [url], { stdio: "ignore", detached: true });
  child.on("error", () => io.stderr.write(`meshinject: could not start ${command}; open ${url}\n`));
  child.unref();
}

/** Adds `playground` to the program. The server runs until SIGINT or SIGTERM, which end the process. */
export function registerPlayground(program: Command, io: CliIo): void {
  program
    .command("playground")
    .description("serve the injection playground (a static web app; injection runs in the browser)")
    .option("--port <port>", "HTTP port", "8080")
    .option("--host <address>", "address to listen on (loopback by default)", "127.0.0.1")
    .option("--open", "open the page in the default browser")
    .action(async (opts: { port: string; host: string; open?: boolean }) => {
      const port = Number(opts.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        throw new PlaygroundError(`playground: --port must be 0..65535, got ${JSON.stringify(opts.port)}`);
      }
      const { url, close } = await startPlaygroundServer(defaultWebRoot(), port, opts.host);
      io.stdout.write(`meshinject playground: ${url}\n`);
      if (opts.open) openBrowser(url, io);
      const stop = () => void close().then(() => process.exit(0));
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
}
