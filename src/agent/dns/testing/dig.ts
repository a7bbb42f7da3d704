/**
 * `dig` (Debian's bind9-dnsutils, installed by .ci/run) as the DNS tests' independent client: where it
 * is, the skip reason when it is not, and one run with a 3 s wait and one try unless told otherwise.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { promisify } from "node:util";

const run = promisify(execFile);

export const DIG = ["/usr/bin/dig", "/bin/dig"].find((p) => existsSync(p));
export const digSkip = DIG ? false : "dig is not installed (Debian bind9-dnsutils; .ci/run installs it)";

/** dig's output; a failed run (timeout, no server) resolves to what it printed. */
export async function dig(args: string[]): Promise<string> {
  try {
    const { stdout } = await run(DIG as string, ["+time=3", "+tries=1", ...args]);
    return stdout;
  } catch (e) {
    return (e as { stdout?: string }).stdout ?? String(e);
  }
}
