/**
 * `--run-validation` (Istio's tools/istio-iptables/pkg/validation): proves that the capture works
 * by connecting from 127.0.0.1 to 127.0.0.6:<--iptables-probe-port> (::1 to ::6 for an IPv6 pod),
 * where nothing listens, while listening on Envoy's outbound and inbound ports on 127.0.0.1: the
 * outbound rules must redirect the connection to one of them. The client retries every second; the
 * check fails after `--probe-timeout`.
 *
 * Istio's server recognises the probe by its original destination (the SO_ORIGINAL_DST socket
 * option), which Node cannot read. Here the server recognises it by its source: the accepted
 * connection's remote address and port are the local address and port of a connection the client
 * made to the probe address, so it reached the listener only by being redirected. The server
 * answers it with the probe port, as Istio's echoes the original port.
 */
import { connect, createServer, type Server, type Socket } from "node:net";
import type { Logger } from "../../process/log.js";

export interface ValidationConfig {
  /** The addresses to listen on: `127.0.0.1:<ProxyPort>`, `127.0.0.1:<InboundCapturePort>` (or ::1). */
  listen: { host: string; port: number }[];
  /** Where the client connects: 127.0.0.6 (or ::6) and the probe port. */
  probe: { host: string; port: number };
  /** The client's source address: 127.0.0.1 (or ::1). */
  clientHost: string;
  timeoutMs: number;
}

export class ValidationError extends Error {
  override name = "ValidationError";
}

/** NewValidator's addresses for a pod whose address is `hostIP`. */
export function validationConfig(
  isIPv6: boolean,
  proxyPort: string,
  inboundPort: string,
  probePort: number,
  timeoutMs: number,
): ValidationConfig {
  const listenHost = isIPv6 ? "::1" : "127.0.0.1";
  return {
    listen: [proxyPort, inboundPort].map((p) => ({ host: listenHost, port: Number(p) })),
    probe: { host: isIPv6 ? "::6" : "127.0.0.6", port: probePort },
    clientHost: listenHost,
    timeoutMs,
  };
}

const key = (address: string | undefined, port: number | undefined) => `${address}|${port}`;

/** Runs the validation: resolves when a probe was redirected to a listener, rejects otherwise. */
export async function runValidation(config: ValidationConfig, log: Logger): Promise<void> {
  log.info(
    "Starting iptables validation. This check verifies that iptables rules are properly established for the network.",
  );
  const probeSources = new Set<string>();
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  let clientTimer: NodeJS.Timeout | undefined;
  let deadline: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      deadline = setTimeout(() => reject(new ValidationError("validation timeout")), config.timeoutMs);
      // Accepted connections not (yet) known as the probe's: the client may learn its port after the server.
      const unmatched = new Map<string, Socket>();
      const passed = (conn: Socket) => {
        conn.end(String(config.probe.port));
        resolve();
      };
      const onConnection = (conn: Socket) => {
        sockets.add(conn);
        conn.on("error", () => {});
        const from = key(conn.remoteAddress, conn.remotePort);
        if (probeSources.has(from)) passed(conn);
        else unmatched.set(from, conn);
      };
      let listening = 0;
      let pending = config.listen.length;
      const listened = () => {
        pending--;
        if (pending > 0) return;
        if (listening === 0) {
          reject(
            new ValidationError(`no listener available: ${config.listen.map((l) => `${l.host}:${l.port}`).join(",")}`),
          );
          return;
        }
        probe();
      };
      for (const addr of config.listen) {
        log.info(`Listening on ${addr.host.includes(":") ? `[${addr.host}]` : addr.host}:${addr.port}`);
        const server = createServer(onConnection);
        servers.push(server);
        server.once("error", (e) => {
          log.error(`Error on listening: ${e.message}`);
          listened();
        });
        server.listen({ host: addr.host, port: addr.port, exclusive: true }, () => {
          listening++;
          listened();
        });
      }
      // The client: one attempt a second until the check ends.
      const probe = () => {
        const client = connect({ host: config.probe.host, port: config.probe.port, localAddress: config.clientHost });
        sockets.add(client);
        client.on("connect", () => {
          const from = key(client.localAddress, client.localPort);
          probeSources.add(from);
          const accepted = unmatched.get(from);
          if (accepted !== undefined) passed(accepted);
          client.destroy();
        });
        client.on("error", (e) =>
          log.error(`Error connecting to ${config.probe.host}:${config.probe.port}: ${e.message}`),
        );
        clientTimer = setTimeout(probe, 1000);
      };
    });
    log.info("Validation passed, iptables rules established");
  } catch (e) {
    log.error(`Validation failed: ${(e as Error).message}`);
    throw e;
  } finally {
    clearTimeout(deadline);
    clearTimeout(clientTimer);
    for (const s of sockets) s.destroy();
    for (const s of servers) s.close();
  }
}
