/**
 * /etc/resolv.conf as miekg/dns `ClientConfigFromReader` reads it, which is what pilot-agent forwards
 * to: `nameserver` lines that hold an IP address, the `search` list (or `domain`), and options; the
 * port is always 53.
 */
import { splitHostPort } from "../../go/net.js";
import { parseAddr } from "../netip.js";

export interface ResolvConf {
  servers: string[];
  search: string[];
  port: string;
  ndots: number;
  timeoutSeconds: number;
  attempts: number;
}

export function parseResolvConf(text: string): ResolvConf {
  const c: ResolvConf = { servers: [], search: [], port: "53", ndots: 1, timeoutSeconds: 5, attempts: 2 };
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const f = line.split(/\s+/);
    switch (f[0]) {
      case "nameserver": {
        const name = f[1];
        if (name === undefined) break;
        try {
          parseAddr(name);
          c.servers.push(name);
        } catch {
          // A name that is not an address (or a link-local one with a zone Go would accept) is skipped.
        }
        break;
      }
      case "domain":
        if (f[1] !== undefined) c.search = [f[1]];
        break;
      case "search":
        c.search = f.slice(1);
        break;
      case "options":
        for (const opt of f.slice(1)) {
          const [key, value] = opt.split(":", 2);
          const n = Number(value);
          if (!Number.isInteger(n) || value === undefined) continue;
          if (key === "ndots") c.ndots = Math.min(Math.max(n, 0), 15);
          else if (key === "timeout") c.timeoutSeconds = Math.max(n, 1);
          else if (key === "attempts") c.attempts = Math.max(n, 1);
        }
        break;
    }
  }
  return c;
}

/**
 * A DNS listen or upstream address: `host:port` / `[v6]:port` split as Go's net.SplitHostPort, with a
 * decimal port 0-65535; throws a one-line error naming the address.
 */
export function dnsAddress(address: string): { host: string; port: number } {
  const { host, port, err } = splitHostPort(address);
  const n = /^\d+$/.test(port) ? Number(port) : Number.NaN;
  if (err !== undefined || !(n <= 65535)) throw new Error(`DNS address ${JSON.stringify(address)}: must be host:port`);
  return { host, port: n };
}
