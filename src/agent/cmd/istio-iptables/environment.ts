/**
 * What istio-iptables finds out where it runs (tools/common/config `FillConfigFromEnvironment`,
 * after the flags): the pod's address and family from the interfaces (`getLocalIP`, which decides
 * EnableIPv6), and with DNS capture but not `--capture-all-dns` the name servers of
 * /etc/resolv.conf, split by family (pkg/util/net `IPsSplitV4V6`, unparsable ones skipped); and
 * for an empty proxy uid, the uid of ENVOY_USER (`lookupUid`, given to the flag reader).
 */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { networkInterfaces } from "node:os";
import type { CaptureConfig } from "../../capture/config.js";
import { detectLocalIP } from "../../capture/validate.js";
import { formatAddr, ipsSplitV4V6 } from "../../netip.js";

export class EnvironmentError extends Error {
  override name = "EnvironmentError";
}

/** The addresses of every interface, in the order the system lists them (Go's net.InterfaceAddrs). */
function interfaceAddrs(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address));
}

/** The `nameserver` entries of a resolv.conf text (miekg/dns ClientConfigFromReader keeps each one's first word). */
export function resolvConfServers(text: string): string[] {
  const servers: string[] = [];
  for (const line of text.split("\n")) {
    const words = line.trim().split(/\s+/);
    if (words[0] === "nameserver" && words[1] !== undefined) servers.push(words[1]);
  }
  return servers;
}

/** Go's user.Lookup as its pure-Go form reads it: the uid of `user` in /etc/passwd, if listed. */
export function lookupUid(user: string, passwd = "/etc/passwd"): string | undefined {
  let text: string;
  try {
    text = readFileSync(passwd, "utf8");
  } catch {
    return undefined;
  }
  for (const line of text.split("\n")) {
    const fields = line.split(":");
    if (fields.length >= 3 && fields[0] === user && user !== "") return fields[2];
  }
  return undefined;
}

/** Fills the run-time facts into `cfg` (in place). */
export async function fillFromEnvironment(cfg: CaptureConfig, resolvConf = "/etc/resolv.conf"): Promise<void> {
  let local: ReturnType<typeof detectLocalIP>;
  try {
    local = detectLocalIP(interfaceAddrs(), cfg.DualStack);
  } catch (e) {
    throw new EnvironmentError("no valid local IP address found", { cause: e });
  }
  cfg.HostIP = formatAddr(local.addr);
  cfg.EnableIPv6 = local.isIPv6;
  if (cfg.RedirectDNS && !cfg.CaptureAllDNS) {
    let text: string;
    try {
      text = await readFile(resolvConf, "utf8");
    } catch (e) {
      throw new EnvironmentError(`failed to load ${resolvConf}: ${(e as Error).message}`);
    }
    const { v4, v6 } = ipsSplitV4V6(resolvConfServers(text));
    cfg.DNSServersV4 = v4;
    cfg.DNSServersV6 = v6;
  }
}
