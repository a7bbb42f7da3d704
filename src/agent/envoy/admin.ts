/**
 * A client of Envoy's admin API on loopback, for what pilot-agent asks of it: drain the listeners,
 * quit, and read stats (readiness, active connections). Every call has a timeout and turns a
 * failure into an EnvoyAdminError naming the endpoint; none throws anything else.
 */
import { request } from "node:http";

export class EnvoyAdminError extends Error {
  override name = "EnvoyAdminError";
}

export interface AdminTarget {
  /** The admin address pilot-agent uses: `localhost` (or an IP). */
  host?: string;
  port: number;
  timeoutMs?: number;
}

/** Sends one request and returns the status and body; rejects with EnvoyAdminError. */
export function adminRequest(
  target: AdminTarget,
  method: "GET" | "POST",
  path: string,
): Promise<{ status: number; body: string }> {
  const host = target.host ?? "127.0.0.1";
  const what = `${method} http://${host.includes(":") ? `[${host}]` : host}:${target.port}${path}`;
  return new Promise((resolve, reject) => {
    const req = request(
      { host, port: target.port, method, path, timeout: target.timeoutMs ?? 5000, headers: { "content-length": "0" } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", (e) => reject(new EnvoyAdminError(`${what}: ${e.message}`)));
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer in ${target.timeoutMs ?? 5000} ms`)));
    req.on("error", (e) => reject(new EnvoyAdminError(`${what}: ${e.message}`)));
    req.end();
  });
}

async function expectOK(target: AdminTarget, method: "GET" | "POST", path: string): Promise<string> {
  const { status, body } = await adminRequest(target, method, path);
  if (status !== 200) {
    throw new EnvoyAdminError(`${method} ${path}: Envoy answered ${status}: ${body.trim().slice(0, 200)}`);
  }
  return body;
}

/** DrainListeners: `POST /drain_listeners?[inboundonly&]graceful[&skip_exit]`. */
export async function drainListeners(target: AdminTarget, inboundOnly: boolean, skipExit = false): Promise<void> {
  let path = "/drain_listeners?";
  if (inboundOnly) path += "inboundonly&";
  path += "graceful";
  if (skipExit) path += "&skip_exit";
  await expectOK(target, "POST", path);
}

/** `POST /quitquitquit`: Envoy exits. */
export async function quitEnvoy(target: AdminTarget): Promise<void> {
  await expectOK(target, "POST", "/quitquitquit");
}

/** `GET <path>` of the stats endpoints; the body. */
export async function getStats(target: AdminTarget, path: string): Promise<string> {
  return expectOK(target, "GET", path);
}
