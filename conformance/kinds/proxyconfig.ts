/**
 * The `proxyconfig` kind (see the corpus's FORMAT.md): pilot-agent's proxy config resolution, the
 * ApplyProxyConfig / ApplyMeshConfig merges, EffectiveProxyConfig with ProxyConfig resources, the
 * injector's PROXY_CONFIG value and ProxyConfig validation. Each vector file is judged by its own
 * rules; results are compared under the corpus's comparison rule (proxyconfig-compare.ts).
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { cloneJson } from "../../src/go/json.js";
import {
  agentMeshConfig,
  applyMeshConfig,
  applyProxyConfigToMesh,
  defaultMeshConfig,
  effectiveProxyConfig,
  type MeshConfig,
  mergeWithPrecedence,
  type ProxyConfig,
  proxyConfigJSON,
  toMeshConfigProxyConfig,
  validateProxyConfig,
} from "../../src/mesh/index.js";
import type { Failure, KindOptions, KindResult } from "../result.js";
import { shown } from "../result.js";
import { canonical, compareMessages, deepEqual } from "./proxyconfig-compare.js";

type Json = Record<string, unknown>;

interface Vector {
  id: string;
  name: string;
  [key: string]: unknown;
}

/** What judging one vector gives: undefined when it passes, else the reason and both sides. */
type Verdict = { reason: string; expected: string; got: string } | undefined;

const show = (v: unknown): string => shown(JSON.stringify(v) ?? "undefined");

function differs(reason: string, expected: unknown, got: unknown): Verdict {
  return { reason, expected: show(expected), got: show(got) };
}

function compare(type: string, got: unknown, want: unknown): Verdict {
  const why = compareMessages(type, got, want);
  return why === undefined ? undefined : differs(why, want, got);
}

function obj(v: unknown): Json {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : {};
}

// ---------------------------------------------------------------------------------------------
// agent-proxyconfig.json

function judgeAgent(v: Vector): Verdict {
  const inputs = obj(v.inputs);
  const mc = agentMeshConfig({
    meshConfigFile: inputs.meshConfigFile as string | undefined,
    proxyConfigEnv: inputs.proxyConfigEnv as string | undefined,
    proxyConfigAnnotation: inputs.proxyConfigAnnotation as string | undefined,
  });
  return compare("ProxyConfig", mc.defaultConfig, obj(v.want).proxyConfig);
}

// ---------------------------------------------------------------------------------------------
// apply-proxy-config.json, apply-mesh-config.json

function setPath(target: Json, path: string, value: unknown): void {
  const keys = path.split(".");
  let cur = target;
  for (const k of keys.slice(0, -1)) {
    if (typeof cur[k] !== "object" || cur[k] === null) cur[k] = {};
    cur = cur[k] as Json;
  }
  cur[keys[keys.length - 1] as string] = cloneJson(value);
}

function baseMesh(spec: unknown): MeshConfig {
  const base = obj(spec);
  if (base.meshConfig !== "defaults") return canonical("MeshConfig", base.meshConfig ?? {}).msg as MeshConfig;
  const mc = defaultMeshConfig() as Json;
  for (const [path, value] of Object.entries(obj(base.set))) setPath(mc, path, value);
  for (const [key, value] of Object.entries(obj(base.replaceTopLevel))) mc[key] = cloneJson(value);
  return canonical("MeshConfig", mc).msg as MeshConfig;
}

/** The values at a dotted path; `name[*]` maps the rest of the path over a list. */
function valueAt(root: unknown, path: string): unknown {
  const [head, ...rest] = path.split(".");
  if (head === undefined || head === "") return root;
  const list = head.endsWith("[*]");
  const key = list ? head.slice(0, -3) : head;
  const v = obj(root)[key];
  if (list) return Array.isArray(v) ? v.map((x) => valueAt(x, rest.join("."))) : undefined;
  return rest.length === 0 ? v : valueAt(v, rest.join("."));
}

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null || v === "" || v === 0 || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === "object" && Object.keys(v as object).length === 0;
}

function judgeChecks(result: MeshConfig, checks: Json[]): Verdict {
  for (const c of checks) {
    const path = String(c.path);
    const got = valueAt(result, path);
    if ("equals" in c && !deepEqual(got, c.equals)) return differs(`${path} differs`, c.equals, got);
    if (c.absent === true && got !== undefined) return differs(`${path} should be absent`, "absent", got);
    if (c.empty === true && !isEmpty(got)) return differs(`${path} should be empty`, "empty", got);
    if (typeof c.length === "number" && (!Array.isArray(got) || got.length !== c.length)) {
      return differs(`${path} length differs`, c.length, got);
    }
  }
  return undefined;
}

function applyOperation(operation: string, yaml: string, base: MeshConfig): MeshConfig {
  switch (operation) {
    case "ApplyProxyConfig":
      return applyProxyConfigToMesh(yaml, base);
    case "ApplyMeshConfig":
      return applyMeshConfig(yaml, base);
    case "ApplyMeshConfigDefaults":
      return applyMeshConfig(yaml, defaultMeshConfig());
    default:
      throw new Error(`unknown operation ${operation}`);
  }
}

function judgeApply(v: Vector): Verdict {
  const operation = String(v.operation);
  const base = operation === "ApplyMeshConfigDefaults" ? defaultMeshConfig() : baseMesh(v.base);
  const snapshot = cloneJson(base);
  const steps = Array.isArray(v.steps) ? (v.steps as string[]) : [String(v.yaml ?? "")];
  let result = base;
  for (const step of steps) result = applyOperation(operation, step, result);
  const want = obj(v.want);
  if (Array.isArray(want.checks)) return judgeChecks(result, want.checks as Json[]);
  if (want.baseUnchanged === true) {
    return deepEqual(base, snapshot) ? undefined : differs("the base was modified", snapshot, base);
  }
  if ("defaultConfigEquals" in want) return compare("ProxyConfig", result.defaultConfig, want.defaultConfigEquals);
  if ("meshConfigEquals" in want) return compare("MeshConfig", result, want.meshConfigEquals);
  if (Array.isArray(want.compareFields)) {
    const fields = want.compareFields as string[];
    const pick = (m: unknown) => Object.fromEntries(fields.map((f) => [f, obj(m)[f]]));
    return compare("MeshConfig", pick(result), pick(want.fieldsEqual));
  }
  if ("localityZone" in want) {
    for (const [key, expect] of Object.entries(obj(want.localityZone))) {
      const e = obj(expect);
      const got = (result as Json)[key];
      if ((got !== undefined) !== e.present) return differs(`${key} presence differs`, e, got);
      if (e.enabledTrue === true && obj(got).enabled !== true) return differs(`${key}.enabled should be true`, e, got);
    }
    return undefined;
  }
  return differs("vector has no judgeable want", want, result);
}

// ---------------------------------------------------------------------------------------------
// effective-proxy-config.json

function judgeEffective(v: Vector): Verdict {
  const input = obj(v.input);
  const want = obj(v.want);
  const operation = String(v.operation);
  if (operation === "toMeshConfigProxyConfig") {
    return compare("ProxyConfig", toMeshConfigProxyConfig(obj(input.proxyConfigCR)), want.proxyConfig);
  }
  if (operation.startsWith("mergeWithPrecedence")) {
    const read = (x: unknown) =>
      x === null || x === undefined ? null : (canonical("ProxyConfig", x).msg as ProxyConfig);
    return compare("ProxyConfig", mergeWithPrecedence(read(input.first), read(input.second)), want.proxyConfig);
  }
  if (operation === "EffectiveProxyConfig") {
    const mesh = canonical("MeshConfig", input.meshConfig).msg as MeshConfig;
    const snapshot = cloneJson(mesh);
    const resources = (Array.isArray(input.proxyConfigs) ? (input.proxyConfigs as Json[]) : []).map((r) => ({
      name: String(r.name),
      namespace: String(r.namespace),
      spec: obj(r.spec),
      creationTime: typeof r.creationOffsetSeconds === "number" ? r.creationOffsetSeconds : 0,
    }));
    const proxy = obj(input.proxy);
    const pc = effectiveProxyConfig(
      mesh,
      {
        namespace: String(proxy.namespace ?? ""),
        labels: (proxy.labels as Record<string, string> | null) ?? null,
        annotations: (proxy.annotations as Record<string, string> | null) ?? null,
      },
      resources,
    );
    const verdict = compare("ProxyConfig", pc, want.proxyConfig);
    if (verdict) return verdict;
    if (want.meshConfigUnchanged === true && !deepEqual(mesh, snapshot)) {
      return differs("the mesh config was modified", snapshot, mesh);
    }
    return undefined;
  }
  return differs(`unknown operation ${operation}`, "", "");
}

// ---------------------------------------------------------------------------------------------
// injector-proxy-config-env.json

function judgeInjectorEnv(v: Vector): Verdict {
  const input = canonical("ProxyConfig", obj(v.input).proxyConfig).msg as ProxyConfig;
  const want = obj(v.want);
  const text = proxyConfigJSON(input);
  if (text !== want.proxyConfigEnvJson) return differs("PROXY_CONFIG differs", want.proxyConfigEnvJson, text);
  if (want.roundTripEqualsInput === true) {
    const back = applyProxyConfigToMesh(text, defaultMeshConfig()).defaultConfig;
    const verdict = compare("ProxyConfig", back, obj(v.input).proxyConfig);
    if (verdict) return { ...verdict, reason: `round trip: ${verdict.reason}` };
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// validate-proxy-config.json

function judgeValidate(v: Vector): Verdict {
  const input = canonical("ProxyConfig", obj(v.input).proxyConfig, true).msg;
  const want = obj(v.want);
  const { errors, warnings } = validateProxyConfig(input);
  const got = { valid: errors.length === 0, warning: warnings.length > 0, errorCount: errors.length, errors };
  if (got.valid !== want.valid) return differs("validity differs", want, got);
  if (typeof want.warning === "boolean" && got.warning !== want.warning) return differs("warning differs", want, got);
  if (typeof want.errorCount === "number" && got.errorCount !== want.errorCount) {
    return differs("error count differs", want, got);
  }
  return undefined;
}

const JUDGES: Record<string, (v: Vector) => Verdict> = {
  "agent-proxyconfig.json": judgeAgent,
  "apply-proxy-config.json": judgeApply,
  "apply-mesh-config.json": judgeApply,
  "effective-proxy-config.json": judgeEffective,
  "injector-proxy-config-env.json": judgeInjectorEnv,
  "validate-proxy-config.json": judgeValidate,
};

export async function runProxyconfig(dir: string, _options: KindOptions): Promise<KindResult> {
  const files = (await readdir(dir)).filter((f) => f.endsWith(".json") && f !== "corpus.json" && f !== "defaults.json");
  const failures: Failure[] = [];
  let passed = 0;
  let total = 0;
  for (const file of files.sort()) {
    const data = JSON.parse(await readFile(join(dir, file), "utf8")) as { vectors?: Vector[] };
    const judge = JUDGES[file];
    for (const vector of data.vectors ?? []) {
      total++;
      const name = `${vector.id} ${vector.name}`;
      if (judge === undefined) {
        failures.push({ file, name, expected: "", got: "", reason: "no judge for this vector file" });
        continue;
      }
      let verdict: Verdict;
      try {
        verdict = judge(vector);
      } catch (e) {
        verdict = { reason: "threw", expected: "", got: (e as Error).message };
      }
      if (verdict === undefined) passed++;
      else failures.push({ file, name, ...verdict });
    }
  }
  return { passed, total, failures };
}
