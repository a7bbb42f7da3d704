/**
 * Static types for MeshConfig and ProxyConfig in protobuf-JSON form. Only the fields code reads
 * directly are spelled out; every other field is reachable through the index signature (the schema
 * in schema-*.ts is the full description).
 */

export interface ProxyConfig {
  [field: string]: unknown;
  configPath?: string;
  binaryPath?: string;
  serviceCluster?: string;
  tracingServiceName?: string | number;
  drainDuration?: string;
  discoveryAddress?: string;
  proxyAdminPort?: number;
  controlPlaneAuthPolicy?: string | number;
  statNameLength?: number;
  concurrency?: number;
  interceptionMode?: string | number;
  tracing?: Record<string, unknown>;
  proxyMetadata?: Record<string, string>;
  statusPort?: number;
  terminationDrainDuration?: string;
  holdApplicationUntilProxyStarts?: boolean;
  image?: { imageType?: string };
}

export interface MeshConfig {
  [field: string]: unknown;
  proxyListenPort?: number;
  proxyInboundListenPort?: number;
  enableTracing?: boolean;
  trustDomain?: string;
  rootNamespace?: string;
  enablePrometheusMerge?: boolean;
  enableAutoMtls?: boolean;
  defaultConfig?: ProxyConfig;
  outboundTrafficPolicy?: { mode?: string | number };
  inboundTrafficPolicy?: { mode?: string | number };
  trustDomainAliases?: string[];
  extensionProviders?: Array<Record<string, unknown>>;
  defaultProviders?: { tracing?: string[]; metrics?: string[]; accessLogging?: string[] };
}
