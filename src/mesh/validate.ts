/**
 * Istio's agent-side validation (pkg/config/validation/agent): ValidateMeshConfigProxyConfig and
 * ValidateMeshConfig, with Istio's messages. Errors and warnings come back as lists of messages, the
 * leaves of Go's multierror (prefixes applied), so `errors.length` is Go's error count.
 */

import { isRecord } from "../go/json.js";
import { durationString } from "../go/time/duration.js";
import { parseProtoDuration } from "./duration.js";
import { enumValueNumber, type Msg } from "./message.js";
import { findField, messageDef } from "./schema.js";
import {
  validateFQDN,
  validatePort,
  validateProxyAddress,
  validateTrustDomain,
  validateWildcardDomain,
} from "./validate-net.js";

export interface Validation {
  errors: string[];
  warnings: string[];
}

const MS = 1_000_000n;
const SECOND = 1_000_000_000n;

function nanos(d: unknown): bigint {
  return typeof d === "string" ? parseProtoDuration(d) : 0n;
}

/** ValidateDuration: at least 1ms, whole milliseconds. */
function validateDuration(d: unknown): string | undefined {
  const n = nanos(d);
  if (n < MS) return "duration must be greater than 1ms";
  if (n % MS !== 0n) return "only durations to ms precision are supported";
  return undefined;
}

function str(m: Msg | undefined, key: string): string {
  const v = m?.[key];
  return typeof v === "string" ? v : "";
}

function num(m: Msg | undefined, key: string): number {
  const v = m?.[key];
  return typeof v === "number" ? v : 0;
}

function obj(m: Msg | undefined, key: string): Msg | undefined {
  const v = m?.[key];
  return isRecord(v) ? v : undefined;
}

/** ValidateTLS for a tracing/remote service ClientTLSSettings (config namespace ""). */
function validateClientTLS(settings: Msg): string[] {
  const errs: string[] = [];
  const mode = str(settings, "mode") || "DISABLE";
  const credentialName = str(settings, "credentialName");
  if (credentialName.startsWith("configmap://")) {
    errs.push('invalid configmap:// credentialName: namespace must match the configuration namespace ""');
  }
  if (settings.insecureSkipVerify === true) {
    const sans = settings.subjectAltNames !== undefined;
    if (mode === "SIMPLE" && (str(settings, "caCertificates") || credentialName || sans)) {
      errs.push(
        "cannot specify CaCertificates or CredentialName or SubjectAltNames when InsecureSkipVerify is set true",
      );
    }
    if (mode === "MUTUAL" && (str(settings, "caCertificates") || sans)) {
      errs.push("cannot specify CaCertificates or SubjectAltNames when InsecureSkipVerify is set true");
    }
  }
  if ((mode === "SIMPLE" || mode === "MUTUAL") && credentialName) {
    const keys = ["clientCertificate", "caCertificates", "privateKey", "caCrl"];
    if (keys.some((k) => str(settings, k))) {
      errs.push("cannot specify client certificates or CA certificate or CA CRL If credentialName is set");
    }
    return errs;
  }
  if (mode === "MUTUAL") {
    if (!str(settings, "clientCertificate")) errs.push("client certificate required for mutual tls");
    if (!str(settings, "privateKey")) errs.push("private key required for mutual tls");
  }
  return errs;
}

function validatePrivateKeyProvider(pkp: Msg): string[] {
  const errs: string[] = [];
  const provider = obj(pkp, "cryptomb") ?? obj(pkp, "qat");
  if (provider === undefined) {
    errs.push("private key provider configuration is required", "unknown private key provider");
    return errs;
  }
  if (provider.pollDelay === undefined) errs.push("pollDelay is required");
  else if (nanos(provider.pollDelay) === 0n) errs.push("pollDelay must be non zero");
  return errs;
}

/** ValidateMeshConfigProxyConfig. */
export function validateProxyConfig(pc: Msg): Validation {
  const errors: string[] = [];
  const warnings: string[] = [];
  const add = (prefix: string, errs: readonly string[]) => {
    for (const e of errs) errors.push(prefix ? `${prefix} ${e}` : e);
  };
  if (!str(pc, "configPath")) errors.push("config path must be set");
  if (!str(pc, "binaryPath")) errors.push("binary path must be set");
  if (pc.serviceCluster !== undefined) {
    if (pc.serviceCluster === "") errors.push("service cluster must be specified");
  } else if (pc.tracingServiceName === undefined) {
    errors.push("oneof service cluster or tracing service name must be specified");
  }

  const drain = validateDuration(pc.drainDuration);
  if (drain) errors.push(`invalid drain duration: ${drain}`);
  else if (nanos(pc.drainDuration) % SECOND !== 0n)
    errors.push("drain time only supports durations to seconds precision");

  const discovery = str(pc, "discoveryAddress");
  if (discovery === "") errors.push("discovery address must be set to the proxy discovery service");
  else add("invalid discovery address:", opt(validateProxyAddress(discovery)));

  const tracing = obj(pc, "tracing");
  const lightstep = obj(tracing, "lightstep");
  if (lightstep) {
    const errs: string[] = [];
    if (!str(lightstep, "address")) errs.push("address is required");
    const bad = validateProxyAddress(str(lightstep, "address"));
    if (bad) errs.push(`invalid lightstep address: ${bad}`);
    if (!str(lightstep, "accessToken")) errs.push("access token is required");
    add("invalid lightstep config:", errs);
  }
  const zipkin = obj(tracing, "zipkin");
  if (zipkin)
    add("invalid zipkin config:", opt(validateProxyAddress(str(zipkin, "address").replace("$(HOST_IP)", "127.0.0.1"))));
  const datadog = obj(tracing, "datadog");
  if (datadog)
    add(
      "invalid datadog config:",
      opt(validateProxyAddress(str(datadog, "address").replace("$(HOST_IP)", "127.0.0.1"))),
    );
  const tls = obj(tracing, "tlsSettings");
  if (tls) add("invalid tracing TLS config:", validateClientTLS(tls));
  const tags = obj(tracing, "customTags");
  if (tags) {
    const nil = Object.keys(tags).find((k) => tags[k] === null || tags[k] === undefined);
    if (nil !== undefined) errors.push(`invalid tracing custom tags: encountered nil value for custom tag: ${nil}`);
  }

  const statsd = str(pc, "statsdUdpAddress");
  if (statsd) add(`invalid statsd udp address ${JSON.stringify(statsd)}:`, opt(validateProxyAddress(statsd)));
  const metricsAddr = str(pc, "envoyMetricsServiceAddress");
  if (metricsAddr)
    add(
      `invalid envoy metrics service address ${JSON.stringify(metricsAddr)}:`,
      opt(validateProxyAddress(metricsAddr)),
    );

  const metadata = obj(pc, "proxyMetadata");
  if (metadata && Object.hasOwn(metadata, "ISTIO_META_DNS_AUTO_ALLOCATE")) {
    warnings.push(
      "'ISTIO_META_DNS_AUTO_ALLOCATE' is deprecated; review " +
        "https://istio.io/latest/docs/ops/configuration/traffic-management/dns-proxy/#dns-auto-allocation-v2 for information about replacement functionality",
    );
  }
  for (const [key, label] of [
    ["envoyMetricsService", "envoy metrics service"],
    ["envoyAccessLogService", "envoy access log service"],
  ] as const) {
    const address = str(obj(pc, key), "address");
    if (address) add(`invalid ${label} address ${JSON.stringify(address)}:`, opt(validateProxyAddress(address)));
  }

  add("invalid proxy admin port:", opt(validatePort(num(pc, "proxyAdminPort"))));
  const policyField = findField(messageDef("ProxyConfig"), "controlPlaneAuthPolicy");
  const policy = policyField ? enumValueNumber(policyField, pc.controlPlaneAuthPolicy ?? 0) : 0;
  if (policy !== 0 && policy !== 1) {
    const shown = typeof pc.controlPlaneAuthPolicy === "string" ? pc.controlPlaneAuthPolicy : String(policy);
    errors.push(`invalid authentication policy: unrecognized control plane auth policy ${JSON.stringify(shown)}`);
  }
  add("invalid status port:", opt(validatePort(num(pc, "statusPort"))));
  const pkp = obj(pc, "privateKeyProvider");
  if (pkp) add("invalid private key provider configuration:", validatePrivateKeyProvider(pkp));
  return { errors, warnings };
}

function opt(e: string | undefined): string[] {
  return e === undefined ? [] : [e];
}

/** ValidateLocalityLbSetting (distribute/failover consistency) on the raw setting. */
function validateLocalityLb(lb: Msg | undefined): string[] {
  if (lb === undefined) return [];
  const distribute = Array.isArray(lb.distribute) ? (lb.distribute as Msg[]) : [];
  const failover = Array.isArray(lb.failover) ? (lb.failover as Msg[]) : [];
  if (distribute.length > 0 && failover.length > 0)
    return ["can not simultaneously specify 'distribute' and 'failover'"];
  const errs: string[] = [];
  for (const d of distribute) {
    let total = 0;
    for (const w of Object.values(isRecord(d.to) ? d.to : {})) {
      const weight = typeof w === "number" ? w : 0;
      if (weight <= 0 || weight > 100) return ["locality weight must be in range [1, 100]"];
      total += weight;
    }
    if (total !== 100) return [`total locality weight ${total} != 100`];
  }
  for (const f of failover) {
    if (f.from === f.to) errs.push("locality lb failover settings must specify different regions");
    if (String(f.from ?? "").includes("/") || String(f.to ?? "").includes("/")) {
      errs.push("locality lb failover only specify region");
    }
    if (String(f.from ?? "").includes("*") || String(f.to ?? "").includes("*")) {
      errs.push("locality lb failover region should not contain '*' wildcard");
    }
  }
  return errs;
}

/** ValidateMeshConfig (the checks ApplyMeshConfig fails on). */
export function validateMeshConfig(mc: Msg): Validation {
  const errors: string[] = [];
  const warnings: string[] = [];
  const port = validatePort(num(mc, "proxyListenPort"));
  if (port) errors.push(`invalid proxy listen port: ${port}`);

  const connect = validateDuration(mc.connectTimeout);
  if (connect) errors.push(`invalid connect timeout: ${connect}`);
  else {
    const n = nanos(mc.connectTimeout);
    if (n < MS || n > 3_600n * SECOND) {
      errors.push(`invalid connect timeout: time ${durationString(n)} must be >1ms and <1h0m0s`);
    }
  }
  const detection = nanos(mc.protocolDetectionTimeout);
  if (detection !== 0n && detection % MS !== 0n) {
    errors.push("invalid protocol detection timeout: only durations to ms precision are supported");
  }

  const pc = obj(mc, "defaultConfig");
  if (pc === undefined) errors.push("missing default config");
  else {
    const v = validateProxyConfig(pc);
    errors.push(...v.errors);
    warnings.push(...v.warnings);
  }
  errors.push(...validateLocalityLb(obj(mc, "localityLbSetting")));

  const settings = Array.isArray(mc.serviceSettings) ? (mc.serviceSettings as Msg[]) : [];
  settings.forEach((s, i) => {
    for (const h of Array.isArray(s.hosts) ? (s.hosts as string[]) : []) {
      const bad = validateWildcardDomain(h);
      if (bad) errors.push(`serviceSettings[${i}], host \`${h}\`: ${bad}`);
    }
  });

  const td = validateTrustDomain(str(mc, "trustDomain"));
  if (td) errors.push(`trustDomain: ${td}`);
  const aliases = Array.isArray(mc.trustDomainAliases) ? (mc.trustDomainAliases as string[]) : [];
  aliases.forEach((a, i) => {
    const bad = validateTrustDomain(a);
    if (bad) errors.push(`trustDomainAliases[${i}], domain \`${a}\` : ${bad}`);
  });

  const mtls = obj(mc, "meshMTLS");
  if (mtls && Array.isArray(mtls.ecdhCurves) && mtls.ecdhCurves.length > 0) {
    errors.push("mesh TLS does not support ECDH curves configuration");
  }
  return { errors, warnings };
}

/** ValidateFQDN re-exported for callers validating hosts. */
export { validateFQDN };
