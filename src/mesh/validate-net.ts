/**
 * The address and name checks of Istio's agent validation (pkg/config/validation/agent): proxy
 * addresses (split by Go's net.SplitHostPort), ports, DNS-1123 labels and FQDNs, IP addresses. Each
 * returns an error message (Go's text) or undefined.
 */

import { splitHostPort } from "../go/net.js";
import { parseAddr } from "../go/netip.js";
import { atoi, numErrorText } from "../go/strconv.js";

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const WILDCARD_DNS1123_LABEL = /^(\*|(\*|\*-)?[a-z0-9]([-a-z0-9]*[a-z0-9])?)$/;

export function isDNS1123Label(s: string): boolean {
  return s.length <= 63 && DNS1123_LABEL.test(s);
}

export function isWildcardDNS1123Label(s: string): boolean {
  return s.length <= 63 && WILDCARD_DNS1123_LABEL.test(s);
}

/** Go's strconv.Quote for printable text. */
const q = (s: string): string => JSON.stringify(s);

/** net.JoinHostPort: `host:port`, with an IPv6 host (any host with a colon) in brackets. */
export function joinHostPort(host: string, port: string | number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

export function validatePort(port: number | bigint): string | undefined {
  return port >= 1 && port <= 65535 ? undefined : `port number ${port} must be in the range 1..65535`;
}

function checkDNS1123Preconditions(name: string): string | undefined {
  if (name.length > 255) return `domain name ${q(name)} too long (max 255)`;
  if (name.length === 0) return "empty domain name not allowed";
  return undefined;
}

export function validateDNS1123Labels(domain: string): string | undefined {
  const parts = domain.split(".");
  const tld = parts[parts.length - 1] as string;
  if (atoi(tld).err === undefined) {
    return `domain name ${q(domain)} invalid (top level domain ${q(tld)} cannot be all-numeric)`;
  }
  for (let i = 0; i < parts.length; i++) {
    const label = parts[i] as string;
    if (i === parts.length - 1 && label === "") return undefined;
    if (!isDNS1123Label(label)) return `domain name ${q(domain)} invalid (label ${q(label)} invalid)`;
  }
  return undefined;
}

export function validateFQDN(fqdn: string): string | undefined {
  return checkDNS1123Preconditions(fqdn) ?? validateDNS1123Labels(fqdn);
}

/** ValidateWildcardDomain: an FQDN whose first label may be a wildcard. */
export function validateWildcardDomain(domain: string): string | undefined {
  const pre = checkDNS1123Preconditions(domain);
  if (pre) return pre;
  const dot = domain.indexOf(".");
  const first = dot < 0 ? domain : domain.slice(0, dot);
  if (!isWildcardDNS1123Label(first)) return `domain name ${q(domain)} invalid (label ${q(first)} invalid)`;
  return dot < 0 ? undefined : validateDNS1123Labels(domain.slice(dot + 1));
}

/** netip.ParseAddr succeeds (IPv4, IPv6, IPv6 with a zone): Go's parser, ported in go/netip. */
export function isValidIPAddress(s: string): boolean {
  return parseAddr(s).err === undefined;
}

/** ValidateProxyAddress: `host:port` with a valid port and a hostname or IP address. */
export function validateProxyAddress(hostAddr: string): string | undefined {
  const { host, port: p, err } = splitHostPort(hostAddr);
  if (err !== undefined) return `unable to split ${q(hostAddr)}: ${err}`;
  const port = atoi(p);
  if (port.err !== undefined) return `port (${p}) is not a number: ${numErrorText("Atoi", p, port.err)}`;
  const bad = validatePort(port.value);
  if (bad) return bad;
  if (validateFQDN(host) !== undefined && !isValidIPAddress(host)) {
    return `${q(host)} is not a valid hostname or an IP address`;
  }
  return undefined;
}

/** ValidateTrustDomain. */
export function validateTrustDomain(domain: string): string | undefined {
  if (domain.length === 0) return "empty domain name not allowed";
  const parts = domain.split(".");
  for (let i = 0; i < parts.length; i++) {
    const label = parts[i] as string;
    if (i === parts.length - 1 && label === "") return undefined;
    if (!isDNS1123Label(label)) return `trust domain name ${q(domain)} invalid`;
  }
  return undefined;
}
