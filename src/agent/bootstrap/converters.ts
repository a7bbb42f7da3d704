/**
 * The text converters of Istio's bootstrap options (pkg/bootstrap/option/convert.go): how a value
 * becomes the JSON snippet the template inserts raw — an address, the pilot SAN matchers, an
 * upstream TLS transport socket, a TCP keepalive — and the node metadata's JSON.
 */

import { encodeJSON } from "../../go/encoding/json.js";
import { splitHostPort } from "../../go/net.js";
import { parseProtoDuration } from "../../mesh/duration.js";
import { encodeField, METADATA_FIELDS, type TypedMetadata } from "./metadata-fields.js";

/** A value a converter refuses (an address without a port); fails the whole rendering. */
export class BootstrapOptionError extends Error {
  override name = "BootstrapOptionError";
}

/**
 * addressConverter: `{"address": "<host>", "port_value": <port>}` as text (the port inserted as
 * written, even empty). A host written `$(HOST_IP)` becomes `hostIP` when that is set.
 */
export function addressJSON(name: string, addr: string, hostIP?: string): string {
  const { host, port, err } = splitHostPort(addr);
  if (err !== undefined) throw new BootstrapOptionError(`unable to parse ${name} address "${addr}": ${err}`);
  const address = host === "$(HOST_IP)" && hostIP ? hostIP : host;
  return `{"address": "${address}", "port_value": ${port}}`;
}

/** sanConverter: `[{"exact":"<san>"},...]`. */
export function sanJSON(sans: readonly string[] | undefined): string {
  return `[${(sans ?? []).map((s) => `{"exact":"${s}"}`).join(",")}]`;
}

/** The TLS settings of a remote service (networking ClientTLSSettings, proto3 JSON). */
export interface ClientTLS {
  mode?: string;
  clientCertificate?: string;
  privateKey?: string;
  caCertificates?: string;
  subjectAltNames?: string[];
  sni?: string;
  credentialName?: string;
  insecureSkipVerify?: boolean;
}

const SDS_CLUSTER = "sds-grpc";

/** An SDS secret config fetched from the agent over `sds-grpc`. */
function sdsSecret(name: string, initialFetchZero: boolean): Record<string, unknown> {
  const sdsConfig: Record<string, unknown> = {
    api_config_source: {
      api_type: "GRPC",
      grpc_services: [{ envoy_grpc: { cluster_name: SDS_CLUSTER } }],
      set_node_on_first_message_only: true,
      transport_api_version: "V3",
    },
    resource_api_version: "V3",
  };
  if (initialFetchZero) sdsConfig.initial_fetch_timeout = "0s";
  return { name, sds_config: sdsConfig };
}

/**
 * tlsContextConvert: the UpstreamTlsContext (proto JSON names) the agent's SDS serves for a
 * remote service's TLS settings, or undefined for no TLS. SIMPLE and MUTUAL read files through the
 * SDS `file-root:` / `file-cert:` resources; ISTIO_MUTUAL uses the workload certificate (`default`)
 * and `ROOTCA`. `meta`'s TLS_CLIENT_* paths replace the given files.
 */
export function upstreamTLSContext(
  tls: ClientTLS,
  sni: string,
  meta: TypedMetadata,
): Record<string, unknown> | undefined {
  const mode = tls.mode ?? "DISABLE";
  const metaString = (k: string) => (typeof meta[k] === "string" ? (meta[k] as string) : "");
  const orDefault = (k: string, v: string) => metaString(k) || v;
  const validation = (root: string | undefined, istio: boolean): Record<string, unknown> => {
    const defaultValidation: Record<string, unknown> = {};
    if (tls.subjectAltNames && tls.subjectAltNames.length > 0) {
      defaultValidation.match_subject_alt_names = tls.subjectAltNames.map((s) => ({ exact: s }));
    }
    const combined: Record<string, unknown> = { default_validation_context: defaultValidation };
    if (istio) combined.validation_context_sds_secret_config = sdsSecret("ROOTCA", true);
    else if (root) combined.validation_context_sds_secret_config = sdsSecret(`file-root:${root}`, false);
    return combined;
  };
  switch (mode) {
    case "SIMPLE": {
      const ctx: Record<string, unknown> = {
        common_tls_context: {
          combined_validation_context: validation(
            tls.caCertificates ? orDefault("TLS_CLIENT_ROOT_CERT", tls.caCertificates) : undefined,
            false,
          ),
          alpn_protocols: ["h2"],
        },
      };
      if (tls.sni) ctx.sni = tls.sni;
      return ctx;
    }
    case "MUTUAL": {
      const common: Record<string, unknown> = {};
      const cert = orDefault("TLS_CLIENT_CERT_CHAIN", tls.clientCertificate ?? "");
      const key = orDefault("TLS_CLIENT_KEY", tls.privateKey ?? "");
      if (tls.clientCertificate && tls.privateKey) {
        common.tls_certificate_sds_secret_configs = [sdsSecret(`file-cert:${cert}~${key}`, false)];
      }
      common.combined_validation_context = validation(
        tls.caCertificates ? orDefault("TLS_CLIENT_ROOT_CERT", tls.caCertificates) : undefined,
        false,
      );
      common.alpn_protocols = ["h2"];
      const ctx: Record<string, unknown> = { common_tls_context: common };
      if (tls.sni) ctx.sni = tls.sni;
      return ctx;
    }
    case "ISTIO_MUTUAL":
      return {
        common_tls_context: {
          tls_certificate_sds_secret_configs: [sdsSecret("default", true)],
          combined_validation_context: validation(undefined, true),
          alpn_protocols: ["istio", "h2"],
        },
        sni: tls.sni || sni,
      };
    default:
      return undefined;
  }
}

/** Compact JSON with object keys sorted (protojson of the struct, as the option stores it). */
export function sortedJSON(v: unknown): string {
  return encodeJSON(v, { escapeHTML: true });
}

/**
 * transportSocketConverter: the `envoy.transport_sockets.tls` socket as text, "" for no TLS. ALPN
 * is dropped unless the service speaks HTTP/2.
 */
export function transportSocketJSON(tls: ClientTLS | undefined, sni: string, meta: TypedMetadata, h2: boolean): string {
  if (tls === undefined) return "";
  const ctx = upstreamTLSContext(tls, sni, meta);
  if (ctx === undefined) return "";
  const common = ctx.common_tls_context as Record<string, unknown>;
  if (!h2) delete common.alpn_protocols;
  return sortedJSON({
    name: "envoy.transport_sockets.tls",
    typed_config: {
      "@type": "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext",
      ...ctx,
    },
  });
}

/** A TCP keepalive (networking TcpKeepalive, proto3 JSON). */
export interface TCPKeepalive {
  probes?: number;
  time?: string;
  interval?: string;
}

/** keepaliveConverter: `{"tcp_keepalive":{...}}` with the parts that are set (whole seconds). */
export function keepaliveJSON(k: TCPKeepalive): string {
  const ka: Record<string, unknown> = {};
  const seconds = (d: string | undefined) => (d === undefined ? 0n : parseProtoDuration(d) / 1_000_000_000n);
  if (k.probes && k.probes > 0) ka.keepalive_probes = { value: k.probes };
  const time = seconds(k.time);
  if (time > 0n) ka.keepalive_time = { value: Number(time) };
  const interval = seconds(k.interval);
  if (interval > 0n) ka.keepalive_interval = { value: Number(interval) };
  return sortedJSON({ tcp_keepalive: ka });
}

/** The typed metadata as json.Marshal writes it (omitempty applied), as a JSON value. */
export function typedMetadataJSON(meta: TypedMetadata): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, kind] of METADATA_FIELDS) {
    const v = encodeField(kind, meta[key]);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

/** marshalMetadata: the typed metadata plus every raw key it does not have, keys sorted. */
export function metadataJSON(meta: TypedMetadata, raw: Readonly<Record<string, unknown>>): string {
  const out = typedMetadataJSON(meta);
  for (const [k, v] of Object.entries(raw)) if (!Object.hasOwn(out, k)) out[k] = v;
  return sortedJSON(out);
}
