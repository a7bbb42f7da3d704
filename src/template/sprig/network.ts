// biome-ignore-all lint/style/noNonNullAssertion: a port of Go code that indexes arrays, regex groups and function tables after checking lengths and names; `!` marks those places
/**
 * Sprig's getHostByName: resolve a name and return one of its addresses, picked at random
 * (Sprig: `addrs[rand.Intn(len(addrs))]`). When resolution fails Sprig indexes an empty list and
 * the template reports the recovered panic, `invalid argument to Intn`; so do we.
 *
 * Template functions are synchronous and must not wait on the network, so the addresses come from
 * the execution's host (host.ts): what it knows now. `Template.executeAsync` (withResolvedNames)
 * notes the names the host did not know, has the host resolve them and executes again.
 */
import { GoError, type GoFunc } from "../../go/value.js";
import { type Execution, executionFunc } from "../execution.js";

function getHostByName(run: Execution, name: string): string {
  const addrs = name === "" ? [] : run.host.lookupHost(name);
  if (addrs.length === 0) throw new GoError("invalid argument to Intn");
  return addrs[Math.floor(Math.random() * addrs.length)] as string;
}

export const networkFuncs: Record<string, GoFunc> = {
  getHostByName: executionFunc("getHostByName", ["string"], (run, n) => getHostByName(run, n as string), "string"),
};
