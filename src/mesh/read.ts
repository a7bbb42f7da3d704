/**
 * Reading a user's mesh configuration (the `mesh` key of the `istio` ConfigMap, YAML or JSON): applied
 * over DefaultMeshConfig() as Istio's ReadMeshConfig / ApplyMeshConfigDefaults do.
 */
import { type ApplyOptions, applyMeshConfig } from "./apply.js";
import { defaultMeshConfig } from "./defaults.js";
import type { MeshConfig } from "./types.js";

export function readMeshConfig(text: string, options: ApplyOptions = {}): MeshConfig {
  return applyMeshConfig(text, defaultMeshConfig(), options);
}
