/**
 * Where the agent's bearer token comes from (Istio's security/pkg/credentialfetcher `NewCredFetcher`
 * and plugin/token.go), chosen by `CREDENTIAL_FETCHER_TYPE`:
 *
 * - `JWT` or empty: the token file (`./var/run/secrets/tokens/istio-token`), read on every call since
 *   the kubelet rotates it, trimmed; a missing or unreadable file gives no token (a warning, no
 *   error), so the call goes out without `authorization` and other authentication (a client
 *   certificate) may still succeed. An empty path means no fetcher at all.
 * - `Mock`: the fixed token `test_token` (Istio's test plugin).
 * - `GoogleComputeEngine`: refused at start (see docs/istio-parity.md: the GCE metadata server is
 *   not something meshinject talks to).
 * - anything else: `invalid credential fetcher type …`.
 */
import { readFileSync } from "node:fs";

export interface CredentialFetcher {
  /** The platform credential; "" means none (no authorization header). */
  token(): string;
}

export function credentialFetcher(
  type: string,
  jwtPath: string,
  warn: (message: string) => void = () => {},
): CredentialFetcher | undefined {
  switch (type) {
    case "JWT":
    case "":
      if (jwtPath === "") return undefined; // no cred fetcher - using certificates only
      return {
        token() {
          try {
            return readFileSync(jwtPath, "utf8").trim();
          } catch (error) {
            warn(`failed to fetch token from file: ${(error as Error).message}`);
            return "";
          }
        },
      };
    case "Mock":
      return { token: () => "test_token" };
    case "GoogleComputeEngine":
      throw new Error(
        "failed to create credential fetcher: credential fetcher type GoogleComputeEngine is not supported by meshinject",
      );
    default:
      throw new Error(`failed to create credential fetcher: invalid credential fetcher type ${type}`);
  }
}
