/**
 * Manual injection over a YAML stream (what `istioctl kube-inject` does): each document of an
 * injectable kind has its pod template injected and is written back as Kubernetes writes typed
 * objects; every other document is copied through verbatim. Pure: text in, text and warnings out.
 */

import { isRecord } from "../go/json.js";
import { readYaml } from "../go/yaml/read.js";
import { writeYaml } from "../go/yaml/write.js";
import { oneLine } from "../kube/one-line.js";
import { type RawDocument, splitYamlStreamAt, YamlStreamError } from "../kube/stream.js";
import { marshalTyped } from "../kube/typed.js";
import { valueKind } from "../kube/value-kind.js";
import {
  describeObject,
  foreignApiVersion,
  InvalidWorkloadError,
  isInjectable,
  mapInjectableItems,
  type WorkloadRef,
  workloadOf,
} from "../kube/workloads.js";
import { applyProxyConfigToMesh, type MeshConfig } from "../mesh/index.js";
import { type TemplateHost, withResolvedNames } from "../template/index.js";
import type { InjectorConfig } from "./config.js";
import { InjectionError, type InjectorSettings, injectPod, typedPod } from "./inject.js";
import type { Pod } from "./pod.js";
import { kubeInjectDecision } from "./policy.js";

export interface KubeInjectOptions {
  settings: InjectorSettings;
  config: InjectorConfig;
  meshConfig: MeshConfig;
  /** The control-plane revision (`--revision`); "" for the default. */
  revision: string;
  /** Whether proxies are injected as native sidecars (Kubernetes 1.29+ with the feature on). */
  nativeSidecar: boolean;
  /**
   * Called with each warning. istioctl's skip lines (`===> Skipping injection because ...`) come as
   * istioctl prints them, ending in a newline; every other warning is one line without one, naming
   * the document or object (`document 2 (Deployment "web"): ...`).
   */
  warn: (message: string) => void;
}

/** A document could not be read or injected; the message names the document and is one line. */
export class DocumentError extends Error {
  override name = "DocumentError";
}

/** The cause of an error about `obj` on one line, without a leading `Kind "name": ` it may repeat. */
function causeOf(e: Error, obj: Record<string, unknown>): string {
  const prefix = `${describeObject(obj)}: `;
  return oneLine(e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message);
}

/** An error inside a List, re-thrown with the item it is about. */
class ListItemError extends InjectionError {
  override name = "ListItemError";
}

/**
 * `Kind "name"` of a document that is not valid YAML, guessed from its top-level `kind:` line and
 * the `name:` line under `metadata:`; undefined when neither can be found.
 */
function guessDescription(raw: string): string | undefined {
  const lines = raw.split("\n");
  const unquote = (v: string) => v.replace(/\s+#.*$/, "").replace(/^(["'])(.*)\1$/, "$2");
  let kind: string | undefined;
  let name: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const k = /^kind:\s*(\S.*?)\s*$/.exec(line);
    if (k?.[1] !== undefined) kind ??= unquote(k[1]);
    if (/^metadata:\s*$/.test(line)) {
      for (let j = i + 1; j < lines.length && /^(\s|$)/.test(lines[j] ?? ""); j++) {
        const n = /^\s+name:\s*(\S.*?)\s*$/.exec(lines[j] ?? "");
        if (n?.[1] !== undefined) {
          name ??= unquote(n[1]);
          break;
        }
      }
    }
  }
  if (kind === undefined && name === undefined) return undefined;
  return name === undefined ? kind : `${kind ?? "(no kind)"} ${JSON.stringify(name)}`;
}

/** A YAML reader message with its `line N` made relative to the whole input (`start` = first line). */
function inputRelative(message: string, start: number): string {
  return message.replace(/^yaml: line (\d+)/, (_, n: string) => `line ${Number(n) + start - 1}`);
}

const PROXY_CONFIG_ANNOTATION = "proxy.istio.io/config";

/** The workload view of an object; a workload whose pod cannot be found is an {@link InjectionError}. */
function workloadRefOf(obj: Record<string, unknown>): WorkloadRef | undefined {
  try {
    return workloadOf(obj);
  } catch (e) {
    if (e instanceof InvalidWorkloadError) throw new InjectionError(e.message, { cause: e });
    throw e;
  }
}

/** What became of one top-level object. */
export interface ObjectOutcome {
  /** The injected object (not yet marshalled), or the object itself. */
  object: Record<string, unknown>;
  /**
   * True when the object is not a workload (or not one of Kubernetes' own: a custom resource named
   * like one) and is copied through as it was given; false when it went through injection (even if
   * the injector then decided against it, as istioctl writes such workloads typed).
   */
  copied: boolean;
}

/**
 * One top-level object as both `kube-inject` (and {@link kubeInject}) and the library's `inject`
 * take it: without a `kind` it is not a Kubernetes object, and a workload kind of another API group
 * is a custom resource: both are copied through with a warning; other kinds that are not workloads
 * are copied through silently; workloads are injected ({@link injectObject}). `where` names the
 * object in warnings (`document 2 (Deployment "web")`).
 */
export function injectTopLevel(
  obj: Record<string, unknown>,
  options: KubeInjectOptions,
  where = describeObject(obj),
): ObjectOutcome {
  if (typeof obj.kind !== "string" || obj.kind === "") {
    options.warn(`${where}: no kind, so not a Kubernetes object: copied through unchanged`);
    return { object: obj, copied: true };
  }
  if (!isInjectable(obj)) return { object: obj, copied: true };
  const foreign = foreignApiVersion(obj);
  if (foreign !== undefined) {
    options.warn(`${where}: ${foreign}`);
    return { object: obj, copied: true };
  }
  return { object: injectObject(obj, options, where), copied: false };
}

/**
 * Injects one decoded object of an injectable kind and API group (recursing into Lists); returns it
 * changed, or as it was when skipped. Throws {@link InjectionError} when the workload is malformed
 * (no pod template, no containers, a label that is a map...) or cannot be injected; its message
 * starts with `Kind "name": ` where the cause is about the workload's shape. `where` names the
 * object in warnings.
 */
export function injectObject(
  obj: Record<string, unknown>,
  options: KubeInjectOptions,
  where = describeObject(obj),
): Record<string, unknown> {
  if (obj.kind === "List") {
    // Items of the injectable kinds are injected and written as typed objects; other items stay as they are.
    return mapInjectableItems(obj, (item, itemWhere) => {
      try {
        const outcome = injectTopLevel(item, options, `${where}, ${itemWhere}`);
        return outcome.copied ? item : (marshalTyped(outcome.object, String(item.kind)) as Record<string, unknown>);
      } catch (e) {
        if (!(e instanceof Error)) throw e;
        throw new ListItemError(`${itemWhere}: ${causeOf(e, item)}`, { cause: e });
      }
    });
  }
  const ref = workloadRefOf(obj);
  if (ref === undefined) return obj;
  // Typed before anything reads it, as istioctl decodes the document before deciding: `inject: yes`
  // is "true", `proxyCPU: 1` is "1". The only typing of the pod: injectPod is told it is done.
  let pod: Pod;
  try {
    pod = typedPod(ref.pod, ref.paths);
  } catch (e) {
    if (e instanceof InjectionError) throw new InjectionError(`${describeObject(obj)}: ${e.message}`, { cause: e });
    throw e;
  }
  // Like istioctl: host networking first, then policy "enabled" with no selectors.
  const decision = kubeInjectDecision(pod, { kind: ref.typeMeta.kind, fullName: ref.fullName });
  for (const logged of decision.logged) options.warn(`${where}: ${logged}`);
  if (!decision.inject) {
    if (decision.warning !== undefined) options.warn(decision.warning);
    return obj;
  }
  // Without ProxyConfig resources here, the pod's proxy.istio.io/config annotation is applied to the whole mesh.
  let meshConfig = options.meshConfig;
  const pca = pod.metadata.annotations?.[PROXY_CONFIG_ANNOTATION];
  if (pca !== undefined) {
    meshConfig = applyProxyConfigToMesh(pca, meshConfig);
  }
  const injected = injectPod(options.settings, {
    pod,
    podTyped: true,
    typeMeta: ref.typeMeta,
    deployMeta: ref.deployMeta,
    meshConfig,
    proxyConfig: meshConfig.defaultConfig ?? {},
    revision: options.revision,
    defaultTemplates: ["sidecar"],
    aliases: {},
    injectedAnnotations: {},
    proxyEnvs: {},
    nativeSidecar: options.nativeSidecar,
    proxyUID: 1337n,
    proxyGID: 1337n,
    warn: options.warn,
  });
  // Not marshalled here: every caller marshals the whole object, and marshalling is idempotent.
  return ref.withPod({ metadata: injected.metadata, spec: injected.spec });
}

/**
 * Injects the documents of one YAML stream one at a time ({@link kubeInject} over a whole text; the
 * CLI over a stream read in pieces, with mapYamlStream): `document` turns one raw document into its output
 * (followed by `---\n`), `end` warns when the stream held no document. Holds no document.
 */
export class DocumentInjector {
  private index = 0;
  /** Whether a document that is not empty was read. */
  private sawDocument = false;

  constructor(private readonly options: KubeInjectOptions) {}

  /**
   * The output for the next raw document of the stream. Throws {@link DocumentError} (one line:
   * `document N (Kind "name"): cause`, YAML errors with their line in the whole stream).
   */
  document(raw: RawDocument): string {
    const number = ++this.index;
    return this.inject(raw, number, this.options);
  }

  /**
   * As {@link document}, for templates that call `getHostByName` with a host that resolves names
   * asynchronously (kube-inject's): the document is injected, the names its templates asked for are
   * resolved, and it is injected again (withResolvedNames, src/template/host.ts); only the last run's warnings are
   * passed on.
   */
  async documentResolving(raw: RawDocument, host: TemplateHost): Promise<string> {
    const number = ++this.index;
    let warnings: string[] = [];
    try {
      return await withResolvedNames(host, (lookupHost) => {
        warnings = [];
        return this.inject(raw, number, {
          ...this.options,
          settings: { ...this.options.settings, lookupHost },
          warn: (message) => warnings.push(message),
        });
      });
    } finally {
      for (const message of warnings) this.options.warn(message);
    }
  }

  private inject(raw: RawDocument, number: number, options: KubeInjectOptions): string {
    let doc: unknown;
    try {
      doc = readYaml(raw.text);
    } catch (e) {
      const what = guessDescription(raw.text);
      const message = inputRelative(oneLine((e as Error).message), raw.line);
      throw new DocumentError(`document ${number}${what ? ` (${what})` : ""}: invalid YAML: ${message}`);
    }
    // An empty document (nothing, or only comments) is no document.
    if (doc !== null) this.sawDocument = true;
    if (!isRecord(doc)) {
      if (doc !== null) {
        options.warn(`document ${number}: a ${valueKind(doc)}, not a Kubernetes object: copied through unchanged`);
      }
      return `${raw.text}---\n`;
    }
    let outcome: ObjectOutcome;
    const where = `document ${number} (${describeObject(doc)})`;
    try {
      outcome = injectTopLevel(
        doc,
        options,
        typeof doc.kind === "string" && doc.kind !== "" ? where : `document ${number}`,
      );
    } catch (e) {
      // The original error stays as `cause` (the CLI prints its stack with MESHINJECT_DEBUG set).
      if (!(e instanceof Error)) throw e;
      throw new DocumentError(`${where}: ${causeOf(e, doc)}`, { cause: e });
    }
    return outcome.copied ? `${raw.text}---\n` : `${writeYaml(marshalTyped(outcome.object, String(doc.kind)))}---\n`;
  }

  /** After the last document: warns when there was none. */
  end(): void {
    if (!this.sawDocument) this.options.warn("no documents read: the input is empty");
  }
}

/** A bad separator line as a {@link DocumentError} naming its line. */
export function streamError(e: unknown): unknown {
  if (!(e instanceof YamlStreamError)) return e;
  return new DocumentError(`invalid YAML stream${e.line > 0 ? ` at line ${e.line}` : ""}: ${e.message}`);
}

/**
 * Injects every injectable document of a YAML stream; returns the output stream. Documents that are
 * not Kubernetes objects (a list, a scalar, a map without `kind`) and workload kinds of other API
 * groups are copied through with a warning (see {@link injectTopLevel}), as is an empty input.
 * Throws {@link DocumentError} (one line: `document N (Kind "name"): cause`) when a document cannot
 * be read or cannot be injected; a bad separator line anywhere is found before any document is injected.
 */
export function kubeInject(text: string, options: KubeInjectOptions): string {
  const raws = splitDocuments(text);
  const injector = new DocumentInjector(options);
  let out = "";
  for (const raw of raws) out += injector.document(raw);
  injector.end();
  return out;
}

/** The raw documents of a whole stream; a bad separator line is a {@link DocumentError} naming its line. */
export function splitDocuments(text: string): RawDocument[] {
  try {
    return splitYamlStreamAt(text);
  } catch (e) {
    throw streamError(e);
  }
}
