/**
 * The built-in injector configuration: what `meshinject kube-inject` uses when no configuration is
 * given, equivalent to a default Istio install (profile "default", control plane in istio-system,
 * revision "default"). The documents live beside this module, in `defaults/`, as our own text:
 *
 *   sidecar.tmpl, gateway.tmpl, grpc-simple.tmpl, grpc-agent.tmpl  the pod-injection templates
 *   values.json                                                    the `values` key
 *   mesh.yaml                                                      the `mesh` key of ConfigMap istio
 *
 * They are package assets read at run time, next to the compiled module (the build copies them to
 * dist/inject/defaults/). Under Node they are read with the host's file system (fetched through
 * `process.getBuiltinModule`, so this module imports nothing from Node); a browser bundle has no
 * files and hands the texts in with {@link installDefaultAssets} (the web build imports them as text).
 *
 * A named revision (`istioctl install --revision canary`) is a second control plane, `istiod-canary`:
 * its values carry `revision: canary` (the templates build CA_ADDR from it) and its mesh config
 * points proxies at `istiod-canary` for XDS. The built-in default for a revision says the same.
 */

import { rememberBuiltInConfig } from "./built-in-config.js";
import { ConfigError } from "./config.js";

let cached: DefaultConfigFiles | undefined;

/** The built-in templates, in the order they are listed in the `config` document. */
export const DEFAULT_TEMPLATE_NAMES = ["sidecar", "gateway", "grpc-simple", "grpc-agent"] as const;

/** The three texts a user would otherwise put in the ConfigMaps or pass as files. */
export interface DefaultConfigFiles {
  /** The `config` key of ConfigMap istio-sidecar-injector (YAML): policy, defaults, templates. */
  config: string;
  /** The `values` key of ConfigMap istio-sidecar-injector (JSON). */
  values: string;
  /** The `mesh` key of ConfigMap istio (YAML), before MeshConfig defaults are applied. */
  mesh: string;
}

/** The names of the asset files in `defaults/`. */
export const DEFAULT_ASSET_NAMES = [
  ...DEFAULT_TEMPLATE_NAMES.map((n) => `${n}.tmpl`),
  "values.json",
  "mesh.yaml",
] as const;

let installed: Readonly<Record<string, string>> | undefined;

/** Gives the asset texts (by file name) where there are no files to read, as in a browser bundle. */
export function installDefaultAssets(texts: Readonly<Record<string, string>>): void {
  for (const name of DEFAULT_ASSET_NAMES) {
    if (typeof texts[name] !== "string") throw new Error(`defaults: asset ${name} missing`);
  }
  installed = texts;
  cached = undefined;
  builtInTemplates.clear();
}

interface ProcessWithBuiltins {
  getBuiltinModule?: (id: string) => unknown;
}

function readAsset(name: string): string {
  const given = installed?.[name];
  if (given !== undefined) return given;
  const proc = (globalThis as { process?: ProcessWithBuiltins }).process;
  const fs = proc?.getBuiltinModule?.("node:fs") as typeof import("node:fs") | undefined;
  if (fs === undefined) throw new Error("defaults: no built-in configuration assets installed in this host");
  return fs.readFileSync(new URL(`./defaults/${name}`, import.meta.url), "utf8");
}

/** The text of one built-in template (`sidecar`, `gateway`, `grpc-simple`, `grpc-agent`). */
export function defaultTemplate(name: (typeof DEFAULT_TEMPLATE_NAMES)[number]): string {
  return readAsset(`${name}.tmpl`);
}

/**
 * Writes `text` as a YAML literal block scalar under a key at `indent` spaces: every line is
 * indented two more, and the text keeps exactly one final newline (`|` clips the rest).
 */
function literalBlock(text: string, indent: number): string {
  const body = `${text.replace(/\s+$/, "")}\n`;
  if (/^[ \t\n]/.test(body)) {
    // A leading space would need an explicit indentation indicator; our templates never start so.
    throw new Error("defaults: a built-in template must not start with whitespace");
  }
  const pad = " ".repeat(indent + 2);
  const lines = body.slice(0, -1).split("\n");
  return `|\n${lines.map((line) => (line === "" ? "" : pad + line)).join("\n")}\n`;
}

/** The built-in templates' texts as the `config` document holds them (after its YAML is read), by name. */
const builtInTemplates = new Map<string, string>();

/**
 * Whether `text` is the built-in template `name`, as the `config` document this process assembled
 * holds it (no file is read to answer). The built-in templates are known to parse: their tests
 * parse each one.
 */
export function isBuiltInTemplate(name: string, text: string): boolean {
  return builtInTemplates.get(name) === text;
}

/** Assembles the `config` document: injection on by default, "sidecar" unless a pod asks otherwise. */
function configDocument(): string {
  let out =
    "# meshinject built-in injector configuration (the `config` key of ConfigMap istio-sidecar-injector).\n" +
    '# Pods are injected unless they opt out; a pod that names no template gets "sidecar".\n' +
    "policy: enabled\n" +
    "defaultTemplates:\n" +
    "- sidecar\n" +
    "alwaysInjectSelector: []\n" +
    "neverInjectSelector: []\n" +
    "injectedAnnotations: {}\n" +
    "templates:\n";
  const templates: [string, string][] = [];
  for (const name of DEFAULT_TEMPLATE_NAMES) {
    const text = defaultTemplate(name);
    out += `  ${name}: ${literalBlock(text, 2)}`;
    // What a literal block scalar with clipping reads back as.
    const read = `${text.replace(/\s+$/, "")}\n`;
    builtInTemplates.set(name, read);
    templates.push([name, read]);
  }
  // What the document above reads back as (its tests compare this with reading it).
  rememberBuiltInConfig(out, () => ({
    policy: "enabled",
    defaultTemplates: ["sidecar"],
    alwaysInjectSelector: [],
    neverInjectSelector: [],
    injectedAnnotations: {},
    templates: Object.fromEntries(templates),
  }));
  return out;
}

/** The control plane's address in the built-in mesh config (revision "default"). */
const DEFAULT_DISCOVERY_ADDRESS = "discoveryAddress: istiod.istio-system.svc:15012";

/** A DNS-1123 label, what a revision name must be (it is part of the istiod-REV Service name). */
const REVISION_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** Whether `revision` names a control plane other than the default one. */
function isNamedRevision(revision: string): boolean {
  return revision !== "" && revision !== "default";
}

/** The built-in values for `revision`: `revision` set, the rest unchanged (JSON, two-space indent). */
function valuesForRevision(values: string, revision: string): string {
  const parsed = JSON.parse(values) as Record<string, unknown>;
  parsed.revision = revision;
  return `${JSON.stringify(parsed, null, 2)}\n`;
}

/** The built-in mesh config for `revision`: proxies reach `istiod-<revision>`. */
function meshForRevision(mesh: string, revision: string): string {
  if (!mesh.includes(DEFAULT_DISCOVERY_ADDRESS)) {
    throw new Error("defaults: mesh.yaml no longer names the default discovery address");
  }
  return mesh
    .replace('revision "default"', `revision ${JSON.stringify(revision)}`)
    .replace(DEFAULT_DISCOVERY_ADDRESS, `discoveryAddress: istiod-${revision}.istio-system.svc:15012`);
}

/**
 * The built-in `config`, `values` and `mesh` texts, exactly as a user would supply them; for a
 * named `revision` (not "" or "default"), those of that revision's control plane.
 */
export function defaultConfigFiles(revision = ""): DefaultConfigFiles {
  cached ??= { config: configDocument(), values: readAsset("values.json"), mesh: readAsset("mesh.yaml") };
  if (!isNamedRevision(revision)) return { ...cached };
  if (!REVISION_NAME.test(revision)) {
    // istiod-REV is a Service name: a revision is a DNS-1123 label.
    throw new ConfigError(
      `revision ${JSON.stringify(revision)} is not a valid revision name: lower-case letters, digits and '-', starting and ending with a letter or digit, at most 63 characters`,
    );
  }
  return {
    config: cached.config,
    values: valuesForRevision(cached.values, revision),
    mesh: meshForRevision(cached.mesh, revision),
  };
}
