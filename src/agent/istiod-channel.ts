/**
 * How the agent dials istiod (the CA and the discovery server alike, as pilot-agent does): TLS
 * verified against istiod's root certificate with the server name taken from the address unless
 * given (plaintext only when no root is given), and per call the pod's token as
 * `authorization: Bearer …` (read anew each time: the kubelet rotates it) plus the `ClusterID`
 * header. Error messages name the token file, never its content.
 */
import { readFileSync } from "node:fs";
import { type ChannelCredentials, type ChannelOptions, credentials, Metadata } from "@grpc/grpc-js";

/** The pod's istiod token (the istio-token projected volume), under the agent's root. */
export const TOKEN_PATH = "var/run/secrets/tokens/istio-token";
/** Where the istio-ca-root-cert config map is mounted (pilot-agent's CA root default). */
export const CA_ROOT_CERT = "var/run/secrets/istio/root-cert.pem";

export interface IstiodDial {
  address: string;
  /** PEM roots istiod's serving certificate must chain to; absent: plaintext. */
  rootCertPem?: string | Buffer;
  /** TLS name to verify (default: the host of `address`). */
  serverName?: string;
}

export function istiodChannel(dial: IstiodDial): { credentials: ChannelCredentials; options: ChannelOptions } {
  const host = dial.address.replace(/:\d+$/, "").replace(/^\[|\]$/g, "");
  const name = dial.serverName ?? host;
  return {
    credentials: dial.rootCertPem ? credentials.createSsl(Buffer.from(dial.rootCertPem)) : credentials.createInsecure(),
    options: { "grpc.ssl_target_name_override": name, "grpc.default_authority": name },
  };
}

/** The headers of every call to istiod; throws a one-line error when the token file cannot be used. */
export function istiodMetadata(who: string, tokenPath: string | undefined, clusterId: string): Metadata {
  const md = new Metadata();
  if (tokenPath !== undefined) {
    let token: string;
    try {
      token = readFileSync(tokenPath, "utf8").trim();
    } catch (error) {
      throw new Error(`${who}: cannot read token file ${tokenPath}: ${(error as NodeJS.ErrnoException).code ?? error}`);
    }
    if (!token) throw new Error(`${who}: token file ${tokenPath} is empty`);
    md.set("authorization", `Bearer ${token}`);
  }
  md.set("ClusterID", clusterId);
  return md;
}
