// The proxy image's /usr/local/bin/pilot-agent (deploy/proxy/pilot-agent) made runnable from this
// checkout: the folder it is installed in (/opt/meshinject) replaced by the repository, and, for a
// baseline or a probe of the node command line it builds, the agent replaced by another script.
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "./meshinject-cli.js";

export const PROXY_WRAPPER = join(repoRoot, "deploy", "proxy", "pilot-agent");
const INSTALL_DIR = "/opt/meshinject";
const AGENT = `${INSTALL_DIR}/dist/cli/main.js agent`;

/**
 * Writes the wrapper to `path` (executable): it runs this checkout's dist/cli/main.js, or `script`
 * (with the wrapper's arguments) in its place. Fails if the wrapper no longer runs the agent from
 * /opt/meshinject.
 */
export function writeProxyWrapper(path: string, script?: string): string {
  const text = readFileSync(PROXY_WRAPPER, "utf8");
  if (!text.includes(AGENT)) throw new Error(`${PROXY_WRAPPER} no longer runs ${AGENT}`);
  const here = repoRoot.replace(/\/$/, "");
  const runnable = (script === undefined ? text : text.replace(AGENT, script)).replaceAll(INSTALL_DIR, here);
  writeFileSync(path, runnable);
  chmodSync(path, 0o755);
  return path;
}

/**
 * The fixed V8 flags the wrapper gives node (those on its `exec node` line other than the heap limit,
 * which depends on the container), so that a bench running the agent in a process of its own runs it
 * as the image does.
 */
export function proxyImageNodeFlags(): string[] {
  const text = readFileSync(PROXY_WRAPPER, "utf8").replace(/\\\n\s*/g, " ");
  const exec = /^exec node (.*)$/m.exec(text);
  if (!exec) throw new Error(`${PROXY_WRAPPER} no longer has an "exec node" line`);
  return exec[1].split(/\s+/).filter((word) => /^--[a-z0-9-]+(=\S+)?$/.test(word));
}
