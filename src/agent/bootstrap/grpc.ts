/**
 * The bootstrap file for proxyless gRPC (Istio's grpcxds.GenerateBootstrap), pure: the xDS server
 * (the agent's XDS socket, else the discovery address), the node with its *typed* metadata only,
 * the file-watcher certificate provider over the agent's certificate folder, and the server
 * listener name template. pilot-agent writes it to GRPC_XDS_BOOTSTRAP for pods injected with the
 * `grpc-agent` template.
 */
import { joinPath } from "../../go/path.js";
import { typedMetadataJSON } from "./converters.js";
import type { Node } from "./node-metadata.js";

export interface GRPCBootstrapOptions {
  node: Node;
  /** The agent's xDS proxy socket; the discovery address is used when it is empty. */
  xdsUdsPath: string;
  discoveryAddress: string;
  /** Where the agent writes cert-chain.pem, key.pem and root-cert.pem; no certificate provider when empty. */
  certDir: string;
}

function sorted(v: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) {
    const x = v[k];
    out[k] = typeof x === "object" && x !== null && !Array.isArray(x) ? sorted(x as Record<string, unknown>) : x;
  }
  return out;
}

/** The bootstrap as a JSON value, keys in the order Go writes them. */
export function grpcBootstrap(options: GRPCBootstrapOptions): Record<string, unknown> {
  const { node } = options;
  const serverURI = options.xdsUdsPath !== "" ? `unix:///${options.xdsUdsPath}` : options.discoveryAddress;
  const locality: Record<string, string> = {};
  if (node.locality.region) locality.region = node.locality.region;
  if (node.locality.zone) locality.zone = node.locality.zone;
  if (node.locality.subZone) locality.sub_zone = node.locality.subZone;
  const out: Record<string, unknown> = {
    xds_servers: [{ server_uri: serverURI, channel_creds: [{ type: "insecure" }], server_features: ["xds_v3"] }],
    node: {
      id: node.id,
      // Written through a protobuf Struct: keys sorted.
      metadata: sorted(typedMetadataJSON(node.metadata)),
      locality,
      UserAgentVersionType: null,
    },
  };
  if (options.certDir !== "") {
    out.certificate_providers = {
      default: {
        plugin_name: "file_watcher",
        config: {
          // path.Join: cleaned, so `/data/` and `./data` name the files as Istio does.
          certificate_file: joinPath(options.certDir, "cert-chain.pem"),
          private_key_file: joinPath(options.certDir, "key.pem"),
          ca_certificate_file: joinPath(options.certDir, "root-cert.pem"),
          refresh_interval: "900s",
        },
      },
    };
  }
  out.server_listener_resource_name_template = "xds.istio.io/grpc/lds/inbound/%s";
  return out;
}

/** The file text: Go's json.MarshalIndent with two spaces (HTML characters escaped). */
export function grpcBootstrapText(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
