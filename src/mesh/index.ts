/**
 * Istio's mesh configuration model: MeshConfig and ProxyConfig in protobuf-JSON form (plain objects,
 * lowerCamelCase keys), their schema, defaults, merges, validation, jsonpb output and Go-style views.
 */
export {
  type ApplyOptions,
  applyJSON,
  applyMeshConfig,
  applyProxyConfig,
  applyProxyConfigToMesh,
  MeshConfigError,
  mergeProxyConfigJSON,
} from "./apply.js";
export { cleanProxyConfig, proxyConfigJSON } from "./clean.js";
export { defaultMeshConfig, defaultProxyConfig } from "./defaults.js";
export { formatProtoDuration } from "./duration.js";
export {
  type AgentInputs,
  agentMeshConfig,
  effectiveProxyConfig,
  mergeWithPrecedence,
  PROXY_CONFIG_ANNOTATION,
  type ProxyConfigResource,
  type ProxyIdentity,
  podProxyConfig,
  toMeshConfigProxyConfig,
} from "./effective.js";
export { type DecodeOptions, decodeMessage, ProtoJSONError } from "./from-json.js";
export { type Msg, messagesEqual } from "./message.js";
export { readMeshConfig } from "./read.js";
export * from "./schema.js";
export { goJSONString, protoToJSON, toProtoJSONValue } from "./to-json.js";
export type { MeshConfig, ProxyConfig } from "./types.js";
export { type Validation, validateMeshConfig, validateProxyConfig } from "./validate.js";
export { validateProxyConfigAnnotation } from "./validate-annotation.js";
export { meshConfigView, messageView, proxyConfigView, viewedMessage, viewedProxyConfig } from "./view.js";
export { MeshYamlError, readYamlObject } from "./yaml.js";
