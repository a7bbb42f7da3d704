/**
 * A pod's file system for SDS tests: a temporary root with the token and istiod's root certificate
 * where pilot-agent finds them, and the security options the agent would read from `env` there.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { CA_ROOT_CERT, TOKEN_PATH } from "../../istiod-channel.js";
import { securityOptionsFromEnv } from "../../options/sds.js";
import type { SecurityOptions } from "../security-options.js";

export const TOKEN = "header.payload.signature-secret-token";

export interface TestPod {
  root: string;
  write(rel: string, text: string): string;
  security(env?: Record<string, string>): SecurityOptions;
  remove(): void;
}

export function testPod(caRootPem: string, caAddress: string): TestPod {
  const root = mkdtempSync(join(tmpdir(), "meshinject-sds-"));
  const pod: TestPod = {
    root,
    write(rel, text) {
      const path = join(root, rel);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
      return path;
    },
    security(env = {}) {
      return securityOptionsFromEnv(
        { POD_NAMESPACE: "ns1", SERVICE_ACCOUNT: "sa1", ...env },
        { root, discoveryAddress: caAddress, exists: () => false },
      );
    },
    remove() {
      rmSync(root, { recursive: true, force: true });
    },
  };
  pod.write(TOKEN_PATH, TOKEN);
  pod.write(CA_ROOT_CERT, caRootPem);
  return pod;
}
