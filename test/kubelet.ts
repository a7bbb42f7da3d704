// The kubelet's part in the agent's end-to-end tests: a container's environment as the kubelet
// builds it (values with `$(VAR)` expanded, fieldRefs from the pod's fields, resourceFieldRefs as
// "2"), and the pod's files the agent reads under its --root (the downward-API podinfo, the
// secrets, the fake Envoy at ProxyConfig's default binary path).
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { formatDownwardAPI } from "../src/agent/bootstrap/downward-api.js";
import { expandVars } from "../src/agent/expand.js";
import { repoRoot } from "./meshinject-cli.js";
import { writePodSecrets } from "./pod-secrets.js";

type Json = Record<string, unknown>;

/** `container.env` over `base`, as the kubelet resolves it; `fields` maps fieldPaths to values. */
export function containerEnv(
  container: Json,
  fields: Record<string, string>,
  base: Record<string, string>,
): Record<string, string> {
  const env = { ...base };
  for (const e of (container.env as Json[] | undefined) ?? []) {
    const name = e.name as string;
    if (typeof e.value === "string") env[name] = expandVars(e.value, (n) => env[n]);
    const from = e.valueFrom as Json | undefined;
    const ref = (from?.fieldRef as Json | undefined)?.fieldPath as string | undefined;
    if (ref !== undefined && fields[ref] !== undefined) env[name] = fields[ref] as string;
    if (from?.resourceFieldRef !== undefined) env[name] = "2";
  }
  return env;
}

/** The pod's files under `root`: podinfo annotations and labels of `meta`, the secrets, the fake Envoy. */
export function writePodFiles(root: string, meta: Json): void {
  writePodSecrets(root);
  mkdirSync(join(root, "etc/istio/pod"), { recursive: true });
  writeFileSync(join(root, "etc/istio/pod/annotations"), formatDownwardAPI(meta.annotations as Record<string, string>));
  writeFileSync(join(root, "etc/istio/pod/labels"), formatDownwardAPI(meta.labels as Record<string, string>));
  mkdirSync(join(root, "usr/local/bin"), { recursive: true });
  copyFileSync(join(repoRoot, "src/agent/envoy/testdata/fake-envoy.mjs"), join(root, "usr/local/bin/envoy"));
}
