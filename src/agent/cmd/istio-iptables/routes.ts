/**
 * tools/common/tproxy `ConfigureRoutes`, after the rules are programmed (skipped with `--dry-run`):
 * with IPv6, the inbound passthrough address ::6/128 on `lo`; in TPROXY mode (with inbound ports),
 * a policy rule sending packets with the TPROXY mark to the route table, and a local route for every
 * address in that table. Istio speaks netlink; this runs iproute2's `ip`, which the proxy image
 * installs, with the same requests. "File exists" answers are ignored, as Istio ignores them.
 */
import { spawn } from "node:child_process";
import type { CaptureConfig } from "../../capture/config.js";
import type { Logger } from "../../process/log.js";

export class RouteError extends Error {
  override name = "RouteError";
}

function ip(args: readonly string[]): Promise<{ ok: boolean; message: string }> {
  return new Promise((resolve) => {
    const child = spawn("ip", args, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    child.on("error", (e) => resolve({ ok: false, message: e.message }));
    child.on("close", (code) => resolve({ ok: code === 0, message: stderr.trim() }));
  });
}

async function ipIgnoringExists(args: readonly string[], what: string): Promise<void> {
  const r = await ip(args);
  if (!r.ok && !r.message.toLowerCase().includes("file exists")) throw new RouteError(`${what}: ${r.message}`);
}

/** An integer as Go's strconv.Atoi reads it (decimal, optional sign), or undefined. */
function atoi(text: string): number | undefined {
  return /^[+-]?\d+$/.test(text) ? Number(text) : undefined;
}

export async function configureRoutes(cfg: CaptureConfig, log: Logger): Promise<void> {
  if (cfg.DryRun) {
    log.info("skipping configuring routes due to dry run mode");
    return;
  }
  if (cfg.EnableIPv6) {
    await ipIgnoringExists(["-6", "addr", "add", "::6/128", "dev", "lo"], "failed to add IPv6 inbound address");
    log.info("Added ::6 address on the loopback iface");
  }
  if (cfg.InboundPortsInclude === "" || cfg.InboundInterceptionMode !== "TPROXY") return;
  const table = atoi(cfg.InboundTProxyRouteTable);
  if (table === undefined)
    throw new RouteError(`failed to parse InboundTProxyRouteTable: ${JSON.stringify(cfg.InboundTProxyRouteTable)}`);
  const mark = atoi(cfg.InboundTProxyMark);
  if (mark === undefined)
    throw new RouteError(`failed to parse InboundTProxyMark: ${JSON.stringify(cfg.InboundTProxyMark)}`);
  const families = cfg.EnableIPv6 ? ["-4", "-6"] : ["-4"];
  for (const family of families) {
    const r = await ip([family, "rule", "add", "fwmark", String(mark), "lookup", String(table)]);
    if (!r.ok) throw new RouteError(`failed to configure netlink rule: ${r.message}`);
  }
  for (const [family, dst] of [["-4", "0.0.0.0/0"], ...(cfg.EnableIPv6 ? [["-6", "::/0"]] : [])] as const) {
    await ipIgnoringExists(
      [family, "route", "add", "local", dst, "dev", "lo", "table", String(table)],
      "failed to add route",
    );
  }
}
