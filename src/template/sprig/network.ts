// biome-ignore-all lint/style/noNonNullAssertion: a port of Go code that indexes arrays, regex groups and function tables after checking lengths and names; `!` marks those places
/**
 * Sprig's getHostByName: resolve a name and return one of its addresses, picked at random
 * (Sprig: `addrs[rand.Intn(len(addrs))]`). When resolution fails Sprig indexes an empty list and
 * the template reports the recovered panic, `invalid argument to Intn`; so do we.
 *
 * Template functions are synchronous and node's resolver is not. The lookup runs in a short-lived
 * worker thread (dns.lookup, i.e. getaddrinfo: /etc/hosts, then DNS, much as Go's resolver does)
 * while this thread blocks on Atomics.wait; the answer comes back through a MessagePort read with
 * receiveMessageOnPort. A lookup that takes longer than LOOKUP_TIMEOUT_MS counts as a failure.
 */
import { MessageChannel, receiveMessageOnPort, Worker } from "node:worker_threads";
import { GoError, type GoFunc, goFunc } from "../value.js";

const LOOKUP_TIMEOUT_MS = 10_000;

const WORKER_SOURCE = `
const { workerData } = require("node:worker_threads");
const dns = require("node:dns");
const { name, signal, port } = workerData;
dns.lookup(name, { all: true }, (err, addresses) => {
  port.postMessage(err ? [] : addresses.map((a) => a.address));
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
});
`;

/** All addresses of `name`, or [] when it does not resolve (or the lookup times out). */
export function lookupHostSync(name: string): string[] {
  if (name === "") return [];
  const signal = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { name, signal, port: port2 },
    transferList: [port2],
  });
  try {
    Atomics.wait(signal, 0, 0, LOOKUP_TIMEOUT_MS);
    const reply = receiveMessageOnPort(port1);
    return Array.isArray(reply?.message) ? (reply.message as string[]) : [];
  } finally {
    port1.close();
    void worker.terminate();
  }
}

function getHostByName(name: string): string {
  const addrs = lookupHostSync(name);
  if (addrs.length === 0) throw new GoError("invalid argument to Intn");
  return addrs[Math.floor(Math.random() * addrs.length)]!;
}

export const networkFuncs: Record<string, GoFunc> = {
  getHostByName: goFunc("getHostByName", ["string"], (n) => getHostByName(n as string), "string"),
};
