/**
 * The parts of Go's `net` package that work on address text alone: SplitHostPort, as Go 1.21 has it
 * (the Go Istio builds with; a later Go also refuses an unbracketed host with a `%` zone).
 */

/** A split `host:port`, or Go's *net.AddrError text (host and port are then empty). */
export interface HostPort {
  host: string;
  port: string;
  err: string | undefined;
}

/** *net.AddrError's Error(): `address <addr>: <why>`, or just `<why>` when the address is empty. */
function addrError(why: string, addr: string): HostPort {
  return { host: "", port: "", err: addr === "" ? why : `address ${addr}: ${why}` };
}

/**
 * Go's net.SplitHostPort: `host:port`, `[host]:port` or `[host%zone]:port` into host (brackets
 * removed) and port. The port is the text after the last colon, not checked (it may be empty).
 */
export function splitHostPort(hostport: string): HostPort {
  const i = hostport.lastIndexOf(":");
  if (i < 0) return addrError("missing port in address", hostport);
  let host: string;
  // Before these positions there can be no '[' resp. ']'.
  let j = 0;
  let k = 0;
  if (hostport[0] === "[") {
    // The first ']' must come just before the last ':'.
    const end = hostport.indexOf("]");
    if (end < 0) return addrError("missing ']' in address", hostport);
    if (end + 1 === hostport.length) return addrError("missing port in address", hostport);
    if (end + 1 !== i) {
      const why = hostport[end + 1] === ":" ? "too many colons in address" : "missing port in address";
      return addrError(why, hostport);
    }
    host = hostport.slice(1, end);
    j = 1;
    k = end + 1;
  } else {
    host = hostport.slice(0, i);
    if (host.includes(":")) return addrError("too many colons in address", hostport);
  }
  if (hostport.indexOf("[", j) >= 0) return addrError("unexpected '[' in address", hostport);
  if (hostport.indexOf("]", k) >= 0) return addrError("unexpected ']' in address", hostport);
  return { host, port: hostport.slice(i + 1), err: undefined };
}
