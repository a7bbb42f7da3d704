/**
 * bootstrap-options.json of the `bootstrap` corpus: Istio's option constructors, converters and the
 * small functions around the bootstrap (downward-API parsing, node metadata, stats options, service
 * cluster, connection limits, stats tag regexes), each vector judged through the module of
 * src/agent/bootstrap that does that job.
 */
import { isDeepStrictEqual } from "node:util";
import {
  addressJSON,
  type ClientTLS,
  keepaliveJSON,
  metadataJSON,
  sanJSON,
  transportSocketJSON,
  upstreamTLSContext,
} from "../../src/agent/bootstrap/converters.js";
import { parseDownwardAPI } from "../../src/agent/bootstrap/downward-api.js";
import {
  decodeTypedMetadata,
  getNodeMetaData,
  type MetadataOptions,
  type Platform,
} from "../../src/agent/bootstrap/node-metadata.js";
import { statsOptions } from "../../src/agent/bootstrap/stats-options.js";
import { envoyDuration, serviceClusterOrDefault, templateParams } from "../../src/agent/bootstrap/template-params.js";
import { compile } from "../../src/go/regexp/regexp.js";
import { durationString } from "../../src/go/time/duration.js";
import { parseProtoDuration } from "../../src/mesh/duration.js";

type Json = Record<string, unknown>;
export type Verdict = { reason: string; expected: unknown; got: unknown } | undefined;

const UNKNOWN_PLATFORM: Platform = { metadata: {}, locality: {}, labels: undefined, isKubernetes: true };
const ABSENT = Symbol("absent");

function check(expected: unknown, got: unknown, what: string): Verdict {
  return isDeepStrictEqual(got, expected) ? undefined : { reason: `${what} differs`, expected, got };
}

/** Go values as the corpus writes them: bigints become numbers. */
function plain(v: unknown): unknown {
  if (typeof v === "bigint") return Number(v);
  if (Array.isArray(v)) return v.map(plain);
  return v;
}

const ADDRESS_KEYS: Record<string, string> = {
  "option.LightstepAddress": "lightstep",
  "option.PilotGRPCAddress": "pilot_grpc_address",
  "option.ZipkinAddress": "zipkin",
  "option.DataDogAddress": "datadog",
  "option.StatsdAddress": "statsd",
  "option.EnvoyMetricsServiceAddress": "envoy_metrics_service_address",
  "option.EnvoyAccessLogServiceAddress": "envoy_accesslog_service_address",
};

const TLS_SNI: Record<string, string> = {
  "option.EnvoyMetricsServiceTLS": "envoy_metrics_service",
  "option.EnvoyAccessLogServiceTLS": "envoy_accesslog_service",
  "option.TracingTLS": "tracer",
};

/** The value an option constructor sets, ABSENT when it skips; throws when NewTemplateParams would fail. */
function optionValue(fn: string, args: unknown[]): unknown {
  const [a, b, c] = args;
  if (fn in ADDRESS_KEYS) return a === "" ? ABSENT : addressJSON(ADDRESS_KEYS[fn] as string, a as string);
  if (fn in TLS_SNI) {
    if (a === null) return ABSENT;
    const h2 = fn === "option.TracingTLS" ? c === true : true;
    return transportSocketJSON(a as ClientTLS, TLS_SNI[fn] as string, decodeTypedMetadata(b as Json), h2);
  }
  switch (fn) {
    case "option.PilotSubjectAltName":
      return sanJSON(a as string[]);
    case "option.ConnectTimeout":
      return a === null ? ABSENT : durationString(parseProtoDuration(a as string));
    case "option.NodeType":
      return (a as string).split("~")[0];
    case "option.Region":
    case "option.Zone":
    case "option.SubZone":
      return a === "" ? ABSENT : a;
    case "option.NodeMetadata":
      return a === null ? ABSENT : metadataJSON(decodeTypedMetadata(a as Json), (b as Json) ?? {});
    case "option.EnvoyMetricsServiceTCPKeepalive":
    case "option.EnvoyAccessLogServiceTCPKeepalive":
      return a === null ? ABSENT : keepaliveJSON(a as Json);
    case "option.EnvoyStatsMatcherInclusionPrefix":
    case "option.EnvoyStatsMatcherInclusionSuffix":
    case "option.EnvoyStatsMatcherInclusionRegexp":
      return a === null || (a as unknown[]).length === 0 ? ABSENT : a;
    case "option.EnvoyStatsEvictionInterval":
      return envoyDuration(parseProtoDuration(a as string));
    case "option.SecureMetricsPort":
    case "option.SecureMergedMetricsPort":
      return a === 0 ? ABSENT : a;
    default:
      // The plain constructors (newOption): the value as given.
      return a;
  }
}

function judgeOption(v: Json): Verdict {
  const option = v.option as { function: string; args: unknown[] };
  const want = v.want as { value?: unknown; absent?: boolean; error?: boolean };
  let got: unknown;
  try {
    got = optionValue(option.function, option.args);
  } catch (e) {
    return want.error ? undefined : { reason: `threw ${(e as Error).message}`, expected: want, got: "error" };
  }
  if (want.error) return { reason: "should fail", expected: "error", got };
  if (want.absent) return got === ABSENT ? undefined : { reason: "should be absent", expected: "absent", got };
  return check(want.value, plain(got), "value");
}

/** The corpus's Go-reflection JSON of an UpstreamTlsContext, in proto JSON names (see the group's notes). */
function protoNamesOf(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(protoNamesOf);
  if (typeof v !== "object" || v === null) return v;
  const out: Json = {};
  for (const [k, x] of Object.entries(v as Json)) {
    if (k === "ValidationContextType" || k === "ConfigSourceSpecifier" || k === "TargetSpecifier") {
      Object.assign(out, protoNamesOf(x));
    } else if (k === "CombinedValidationContext") out.combined_validation_context = protoNamesOf(x);
    else if (k === "ApiConfigSource") out.api_config_source = protoNamesOf(x);
    else if (k === "EnvoyGrpc") out.envoy_grpc = protoNamesOf(x);
    else if (k === "api_type") out[k] = x === 2 ? "GRPC" : x;
    else if (k === "transport_api_version" || k === "resource_api_version") out[k] = x === 2 ? "V3" : x;
    else if (k === "initial_fetch_timeout" && isDeepStrictEqual(x, {})) out[k] = "0s";
    else out[k] = protoNamesOf(x);
  }
  return out;
}

function judgeTLS(v: Json): Verdict {
  const want = protoNamesOf(JSON.parse((v.want as Json).text as string));
  const got = upstreamTLSContext(v.tls as ClientTLS, v.sni as string, decodeTypedMetadata(v.meta as Json)) ?? null;
  return check(want, got, "UpstreamTlsContext");
}

function metadataOptions(mo: Json, extraEnvs: string[] = []): MetadataOptions {
  const envs = Array.isArray(mo.Envs) ? (mo.Envs as string[]).filter((e) => e !== "<process environment>") : [];
  return {
    envs: [...envs, ...extraEnvs],
    platform: UNKNOWN_PLATFORM,
    instanceIPs: (mo.InstanceIPs as string[] | undefined) ?? [],
    id: mo.ID as string,
    proxyConfig: mo.ProxyConfig as Json | undefined,
    exitOnZeroActiveConnections: mo.ExitOnZeroActiveConnections === true,
    envoySecureMetricsPort: mo.EnvoySecureMetricsPort as number | undefined,
    envoySecureMergedMetricsPort: mo.EnvoySecureMergedMetricsPort as number | undefined,
    binaryVersion: "binary",
  };
}

/** `metadata.X`, `metadata.X[key]`, `rawMetadata.X`, `metadata.Raw has|lacks`. */
function judgeNodeMetadata(v: Json): Verdict {
  const extra = Object.entries((v.processEnvAdded as Record<string, string> | undefined) ?? {}).map(
    ([k, x]) => `${k}=${x}`,
  );
  const files = (v.files as Record<string, string> | undefined) ?? {};
  const node = getNodeMetaData({
    ...metadataOptions(v.metadataOptions as Json, extra),
    labelsFile: files["./etc/istio/pod/labels"],
  });
  const typed = JSON.parse(metadataJSON(node.metadata, {})) as Json;
  for (const [path, want] of Object.entries(v.want as Json)) {
    let got: unknown;
    const m = /^metadata\.(\w+)\[(.+)\]$/.exec(path);
    if (m) got = (node.metadata[m[1] as string] as Json | undefined)?.[m[2] as string];
    else if (path === "metadata.Raw has") {
      const has = Object.fromEntries(Object.keys(want as Json).map((k) => [k, node.raw[k]]));
      const verdict = check(want, has, path);
      if (verdict) return verdict;
      continue;
    } else if (path === "metadata.Raw lacks") {
      const present = (want as string[]).filter((k) => Object.hasOwn(node.raw, k));
      if (present.length > 0) return { reason: path, expected: [], got: present };
      continue;
    } else if (path.startsWith("rawMetadata.")) got = node.raw[path.slice("rawMetadata.".length)];
    else got = typed[path.slice("metadata.".length)];
    const verdict = check(want, got, path);
    if (verdict) return verdict;
  }
  return undefined;
}

function statsTagRegexJudge(bootstrap: () => Promise<Json>): (v: Json) => Promise<Verdict> {
  return async (v) => {
    const statsConfig = (await bootstrap()).stats_config as Json | undefined;
    const tags = (statsConfig?.stats_tags as { tag_name: string; regex: string }[] | undefined) ?? [];
    const tag = tags.find((t) => t.tag_name === v.tagName);
    if (tag === undefined) return { reason: "no such stats tag", expected: v.tagName, got: "absent" };
    const subject = v.subject as string;
    const m = compile(tag.regex).findAllIndex(subject, 1)[0];
    const group = (g: number) => {
      const [start, end] = [m?.[2 * g] ?? -1, m?.[2 * g + 1] ?? -1];
      return start < 0 ? undefined : subject.slice(start, end);
    };
    return check((v.want as Json).groups, m === undefined ? null : [group(1), group(2)], "capture groups");
  };
}

/** The judge of each group by name; `bootstrap` renders a default bootstrap (for its stats tags) when asked. */
export function optionJudges(bootstrap: () => Promise<Json>): Record<string, (v: Json) => Verdict | Promise<Verdict>> {
  return {
    options: judgeOption,
    tlsContextConvert: judgeTLS,
    parseDownwardAPI: (v) => check(v.want, parseDownwardAPI(v.input as string), "map"),
    getNodeMetaData: judgeNodeMetadata,
    setIstioVersion: (v) => {
      const version = (v.meta as Json).ISTIO_VERSION;
      const envs = typeof version === "string" ? [`ISTIO_META_ISTIO_VERSION=${version}`] : [];
      const node = getNodeMetaData({ envs, instanceIPs: [], id: "test", binaryVersion: v.binaryVersion as string });
      return check((v.want as Json).ISTIO_VERSION, node.metadata.ISTIO_VERSION, "ISTIO_VERSION");
    },
    statsOptions: (v) => {
      const node = getNodeMetaData(metadataOptions(v.metadataOptions as Json));
      return check(
        (v.want as Json)["templateParams.inclusionSuffix"],
        statsOptions(node.metadata).inclusionSuffix,
        "inclusionSuffix",
      );
    },
    requiredStatsRegex: (v) => {
      const node = getNodeMetaData(metadataOptions({ ID: "test", ProxyConfig: {} }));
      const required = statsOptions(node.metadata).inclusionRegexps.at(-1) ?? "";
      if (required !== v.goRegexp) return { reason: "required regexp", expected: v.goRegexp, got: required };
      const matches = compile(required).matchString(v.subject as string);
      return check((v.want as Json).matches, matches, "match");
    },
    serviceClusterOrDefault: (v) =>
      check(v.want, serviceClusterOrDefault(v.input as string, decodeTypedMetadata(v.metadata as Json)), "cluster"),
    zoneAwareRouting: (v) => {
      const params = templateParams({ node: getNodeMetaData(metadataOptions(v.metadataOptions as Json)) });
      return check(
        (v.want as Json)["templateParams.enable_self_discovery"],
        params.enable_self_discovery ?? false,
        "enable_self_discovery",
      );
    },
    globalDownstreamMaxConnections: (v) => {
      const n = v.node as Json;
      const node = { id: "", metadata: decodeTypedMetadata(n.Metadata as Json), raw: {}, locality: {}, warnings: [] };
      const params = templateParams({ node, compliancePolicy: v.compliancePolicy as string });
      return check(
        (v.want as Json)["templateParams.global_downstream_max_connections"],
        plain(params.global_downstream_max_connections),
        "limit",
      );
    },
    statsTagRegex: statsTagRegexJudge(bootstrap),
  };
}
