/**
 * A TCP probe: one connect, closed at once — for the probe proxy (from 127.0.0.6 / ::6) and the workload
 * health checker (from the default address) alike.
 */
import * as net from "node:net";
import type { Cancellation } from "./cancel.js";
import { family } from "./http-client.js";

/** Undefined when it connected, else why not (`timeoutError` when `timeoutMs` passed first; 0 = no timeout). */
export function connectOnce(o: {
  host: string;
  port: number;
  localAddress?: string;
  timeoutMs: number;
  timeoutError: () => Error;
  cancel?: Cancellation;
}): Promise<Error | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect({
      host: o.host,
      port: o.port,
      ...(o.localAddress === undefined ? {} : { localAddress: o.localAddress, family: family(o.localAddress) }),
    });
    const timer = o.timeoutMs > 0 ? setTimeout(() => socket.destroy(o.timeoutError()), o.timeoutMs) : undefined;
    o.cancel?.onCancel(() => socket.destroy(new Error("the prober went away")));
    socket.once("connect", () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(undefined);
    });
    socket.once("error", (e) => {
      clearTimeout(timer);
      resolve(e);
    });
  });
}
