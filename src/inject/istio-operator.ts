/**
 * An IstioOperator install file (`istioctl install -f iop.yaml`) as the injector's configuration,
 * offline: what `istioctl kube-inject --operatorFileName` takes from it. The installer starts from
 * the profile (`spec.profile`, default "default"), merges the file's `spec.values` and
 * `spec.meshConfig` over it, and maps `spec.hub`, `spec.tag`, `spec.revision` and
 * `spec.components.cni.enabled` into the values; the `values` and `mesh` texts returned here are
 * that, over the built-in default (itself Istio's default profile).
 */

import { isRecord } from "../go/json.js";
import { readYaml } from "../go/yaml/read.js";
import { writeYaml } from "../go/yaml/write.js";
import { ConfigError } from "./config.js";
import type { Json } from "./pod.js";

/**
 * The parts of Istio's installation profiles that reach injection (values and mesh config), as
 * overlays on the default profile; the rest of a profile (gateways, autoscaling, other charts) does
 * not change an injected pod. Facts from Istio's manifests/profiles and helm-profiles.
 */
const PROFILES: Readonly<Record<string, { values?: Json; meshConfig?: Json }>> = {
  default: {},
  minimal: {},
  empty: {},
  stable: {},
  demo: {
    meshConfig: {
      accessLogFile: "/dev/stdout",
      extensionProviders: [
        {
          name: "otel",
          envoyOtelAls: { service: "opentelemetry-collector.observability.svc.cluster.local", port: 4317 },
        },
        { name: "skywalking", skywalking: { service: "tracing.istio-system.svc.cluster.local", port: 11800 } },
        {
          name: "otel-tracing",
          opentelemetry: { port: 4317, service: "opentelemetry-collector.observability.svc.cluster.local" },
        },
      ],
    },
    values: { global: { proxy: { resources: { requests: { cpu: "10m", memory: "40Mi" } } } } },
  },
  preview: { meshConfig: { defaultConfig: { proxyMetadata: { ISTIO_META_DNS_CAPTURE: "true" } } } },
  ambient: {
    meshConfig: { defaultConfig: { proxyMetadata: { ISTIO_META_ENABLE_HBONE: "true" } } },
    values: { global: { variant: "distroless" }, pilot: { env: { PILOT_ENABLE_AMBIENT: "true" } } },
  },
  openshift: { values: { global: { platform: "openshift" }, pilot: { cni: { enabled: true, provider: "multus" } } } },
  remote: { values: { global: { externalIstiod: true, omitSidecarInjectorConfigMap: true } } },
};

/** What an IstioOperator file makes of the built-in configuration. */
export interface OperatorConfig {
  /** The `values` key (JSON). */
  values: string;
  /** The `mesh` key (YAML). */
  mesh: string;
  /** `spec.revision`, "" when the file names none. */
  revision: string;
  /** `spec.profile`, "default" when the file names none. */
  profile: string;
}

/**
 * The installer's merge (mergo with override, as Helm's mustMergeOverwrite): maps merge key by key,
 * anything else in `over` (lists, scalars, null) replaces what `base` has.
 */
function mergeOverwrite(base: unknown, over: unknown): unknown {
  if (!isRecord(base) || !isRecord(over)) return structuredClone(over);
  const out: Json = structuredClone(base);
  for (const [k, v] of Object.entries(over))
    out[k] = Object.hasOwn(out, k) ? mergeOverwrite(out[k], v) : structuredClone(v);
  return out;
}

function objectAt(root: Json, path: readonly string[]): Json {
  let at = root;
  for (const key of path) {
    if (!isRecord(at[key])) at[key] = {};
    at = at[key] as Json;
  }
  return at;
}

function field(spec: Json, name: string, file: string): Json | undefined {
  const v = spec[name];
  if (v === undefined || v === null) return undefined;
  if (!isRecord(v)) throw new ConfigError(`${file}: spec.${name} must be a map`);
  return v;
}

/** The scalar at spec.NAME as the text Go reads it into a string field; undefined when absent. */
function text(spec: Json, name: string, file: string): string | undefined {
  const v = spec[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v === "object") throw new ConfigError(`${file}: spec.${name} must be a string`);
  return String(v);
}

/**
 * Reads an IstioOperator file over the built-in `values` (JSON) and `mesh` (YAML) texts. Throws
 * ConfigError naming the file and field for a file that is not an IstioOperator or is malformed.
 */
export function applyIstioOperator(
  iopText: string,
  file: string,
  defaults: { values: string; mesh: string },
): OperatorConfig {
  let doc: unknown;
  try {
    doc = readYaml(iopText);
  } catch (e) {
    throw new ConfigError(`${file}: invalid YAML: ${(e as Error).message}`);
  }
  if (!isRecord(doc) || doc.kind !== "IstioOperator") {
    const kind = isRecord(doc) && typeof doc.kind === "string" ? `kind ${doc.kind}` : "no kind";
    throw new ConfigError(
      `${file}: not an IstioOperator (${kind}); --operatorFileName takes an IstioOperator install file`,
    );
  }
  const spec = doc.spec === undefined || doc.spec === null ? {} : doc.spec;
  if (!isRecord(spec)) throw new ConfigError(`${file}: spec must be a map`);
  const profileName = text(spec, "profile", file) ?? "default";
  const profile = PROFILES[profileName];
  if (profile === undefined) {
    throw new ConfigError(
      `${file}: spec.profile ${JSON.stringify(profileName)} is not one of ${Object.keys(PROFILES).join(", ")}`,
    );
  }
  const values = mergeOverwrite(
    mergeOverwrite(JSON.parse(defaults.values) as unknown, profile.values ?? {}),
    field(spec, "values", file) ?? {},
  ) as Json;
  const hub = text(spec, "hub", file);
  const tag = text(spec, "tag", file);
  const revision = text(spec, "revision", file) ?? "";
  if (hub !== undefined) objectAt(values, ["global"]).hub = hub;
  if (tag !== undefined) objectAt(values, ["global"]).tag = tag;
  if (revision !== "") values.revision = revision;
  const components = field(spec, "components", file);
  const cni = components?.cni;
  if (isRecord(cni) && typeof cni.enabled === "boolean") objectAt(values, ["pilot", "cni"]).enabled = cni.enabled;

  const mesh = mergeOverwrite(
    mergeOverwrite(readYaml(defaults.mesh) ?? {}, profile.meshConfig ?? {}),
    field(spec, "meshConfig", file) ?? {},
  );
  return { values: `${JSON.stringify(values, null, 2)}\n`, mesh: writeYaml(mesh), revision, profile: profileName };
}
