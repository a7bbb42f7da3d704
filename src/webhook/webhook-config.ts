/**
 * The MutatingWebhookConfiguration Istio installs for its sidecar injector (the istio-discovery chart's
 * `mutatingwebhook.yaml` and `revision-tags-mwc.yaml`), as a plain JSON-shaped object. Pure: the
 * caller reads files and writes the YAML.
 *
 * Which webhooks, and which API-server requests reach them:
 *
 *   rev.namespace.  namespace `istio.io/rev=R` (and no `istio-injection`), pod not `sidecar.istio.io/inject=false`
 *   rev.object.     namespace has neither label, pod `istio.io/rev=R` and not `sidecar.istio.io/inject=false`
 *   namespace.      namespace `istio-injection=enabled`, pod not `sidecar.istio.io/inject=false`
 *   object.         namespace has neither label, pod `sidecar.istio.io/inject=true` and no `istio.io/rev`
 *   auto.           (only with enableNamespacesByDefault) no labels anywhere, outside the system namespaces
 *
 * R is the revision ("default" for the default revision) or the tag. The last three belong to the
 * default revision only: they are generated for the default revision itself and for the tag "default".
 *
 * Where it departs from the chart, so that it can sit next to istiod: the configuration is named
 * `meshinject-…` unless `istioNames`, is labelled `app.kubernetes.io/part-of=meshinject`, sets
 * `matchPolicy: Equivalent`, and can keep namespaces out of every webhook (`excludeNamespaces`).
 */

/** An option the generator cannot turn into a valid configuration. */
export class WebhookConfigError extends Error {
  override name = "WebhookConfigError";
}

export type FailurePolicy = "Fail" | "Ignore";
export type ReinvocationPolicy = "Never" | "IfNeeded";

export interface WebhookConfigOptions {
  /** Control-plane revision; "" (the default) for the default revision. */
  revision?: string;
  /** Revision tag: a configuration `istio-revision-tag-TAG` whose selectors use TAG, served by `revision`. */
  tag?: string;
  /** Namespace of the webhook Service (the chart's release namespace). Default `istio-system`. */
  namespace?: string;
  /** Service name. Default `istiod` (`istiod-REVISION` for a named revision), as the chart names it. */
  service?: string;
  /** Service port. Default 443. */
  port?: number;
  /** Request path. Default `/inject`, followed by `/cluster/C` and `/net/N` when those are given. */
  path?: string;
  /** Cluster ID passed to the injector in the path (`/inject/cluster/C`: ISTIO_META_CLUSTER_ID). */
  cluster?: string;
  /** Network passed to the injector in the path (`/net/N`: ISTIO_META_NETWORK). */
  network?: string;
  /** Call this https URL instead of a Service (the chart's `istiodRemote.injectionURL`). */
  url?: string;
  /** PEM text of the CA that signed the webhook's serving certificate; written base64-encoded. */
  caBundlePem?: string;
  failurePolicy?: FailurePolicy;
  reinvocationPolicy?: ReinvocationPolicy;
  /** 1 to 30. Default 10. */
  timeoutSeconds?: number;
  /** Also inject pods in every unlabelled namespace outside the system ones (the chart's `auto.` webhook). */
  enableNamespacesByDefault?: boolean;
  /**
   * Every selector becomes `istio.io/deactivated=never-match`, as `istioctl tag set default` leaves the
   * default revision's own configuration once a "default" tag takes over.
   */
  deactivated?: boolean;
  /**
   * Name of the configuration. Default `meshinject-sidecar-injector[-REV][-NS]` (a tag:
   * `meshinject-revision-tag-TAG[-NS]`), distinct from Istio's own so that neither overwrites the other.
   */
  name?: string;
  /**
   * Use the names Istio's chart gives (`istio-sidecar-injector[-REV][-NS]`, `istio-revision-tag-TAG`):
   * only for a deliberate replacement of Istio's injector configuration.
   */
  istioNames?: boolean;
  /**
   * Namespaces no webhook ever selects: each namespaceSelector gets
   * `kubernetes.io/metadata.name NotIn [...]`. Default none (as Istio's chart); the CLI passes the
   * system namespaces and the injector's own (see defaultExcludedNamespaces).
   */
  excludeNamespaces?: readonly string[];
  /** AdmissionReview versions the API server may send. Default `["v1"]`, as Istio's chart. */
  admissionReviewVersions?: readonly AdmissionReviewVersion[];
  /** Annotations of the configuration (e.g. cert-manager's `cert-manager.io/inject-ca-from`). */
  annotations?: Record<string, string>;
}

export type AdmissionReviewVersion = "v1" | "v1beta1";

/** The label every object meshinject installs carries (a labelled uninstall selects on it). */
export const PART_OF_LABEL = "app.kubernetes.io/part-of";
export const PART_OF = "meshinject";
/** The label holding a namespace's name, set by the API server on every Namespace. */
export const NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";

/** kube-system, kube-node-lease, kube-public and the injector's own namespace. */
export function defaultExcludedNamespaces(ownNamespace: string): string[] {
  const out = ["kube-system", "kube-node-lease", "kube-public"];
  if (!out.includes(ownNamespace)) out.push(ownNamespace);
  return out;
}

type Json = Record<string, unknown>;

export const WEBHOOK_SUFFIX = "sidecar-injector.istio.io";
export const INJECTION_LABEL = "istio-injection";
export const REVISION_LABEL = "istio.io/rev";
export const TAG_LABEL = "istio.io/tag";
export const INJECT_LABEL = "sidecar.istio.io/inject";
/** The selector istioctl puts on deactivated webhooks (istioctl's `util.NeverMatch`). */
export const NEVER_MATCH = Object.freeze({ matchLabels: Object.freeze({ "istio.io/deactivated": "never-match" }) });
/** The namespaces the `auto.` webhook never selects. */
export const SYSTEM_NAMESPACES = ["kube-system", "kube-public", "kube-node-lease", "local-path-storage"] as const;

// A Kubernetes label value that is also usable inside resource names (revisions and tags name Services).
const REVISION_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const NAMESPACE_NAME = REVISION_NAME;
const SERVICE_NAME = REVISION_NAME;

function checkName(what: string, value: string, re: RegExp, max: number): void {
  if (value.length > max || !re.test(value)) {
    throw new WebhookConfigError(
      `${what} ${JSON.stringify(value)} must be a lowercase RFC 1123 label (a-z, 0-9, '-', at most ${max} characters)`,
    );
  }
}

/** `/inject` plus `/cluster/C/net/N`; a `/` inside a value is written `--slash--`, as the injector reads it. */
export function injectionPath(cluster?: string, network?: string): string {
  const enc = (v: string) => encodeURIComponent(v.replaceAll("/", "--slash--"));
  let path = "/inject";
  if (cluster) path += `/cluster/${enc(cluster)}`;
  if (network) path += `/net/${enc(network)}`;
  return path;
}

function clientConfig(o: Required<Pick<WebhookConfigOptions, "revision" | "namespace">> & WebhookConfigOptions): Json {
  const out: Json = {};
  if (o.url !== undefined) {
    let url: URL;
    try {
      url = new URL(o.url);
    } catch {
      throw new WebhookConfigError(`--url ${JSON.stringify(o.url)} is not a URL`);
    }
    if (url.protocol !== "https:") throw new WebhookConfigError(`--url must be an https URL, got ${o.url}`);
    if (url.username || url.password || url.hash || url.search) {
      throw new WebhookConfigError(`--url must not carry user info, a query or a fragment: ${o.url}`);
    }
    if (o.cluster || o.network || o.path !== undefined) {
      throw new WebhookConfigError("with --url, put the path (/inject/cluster/C/net/N) in the URL itself");
    }
    out.url = o.url;
  } else {
    const name = o.service ?? (o.revision === "" ? "istiod" : `istiod-${o.revision}`);
    checkName("service", name, SERVICE_NAME, 63);
    const port = o.port ?? 443;
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      throw new WebhookConfigError(`port must be an integer from 1 to 65535, got ${port}`);
    }
    const path = o.path ?? injectionPath(o.cluster, o.network);
    if (!path.startsWith("/")) throw new WebhookConfigError(`path must start with "/", got ${JSON.stringify(path)}`);
    out.service = { name, namespace: o.namespace, path, port };
  }
  if (o.caBundlePem !== undefined) out.caBundle = caBundle(o.caBundlePem);
  return out;
}

/** The base64 `caBundle` for PEM text; it must hold at least one certificate. */
export function caBundle(pem: string): string {
  if (!/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.test(pem)) {
    throw new WebhookConfigError("the CA bundle holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
  }
  return Buffer.from(pem, "utf8").toString("base64");
}

const doesNotExist = (key: string) => ({ key, operator: "DoesNotExist" });
const isIn = (key: string, values: string[]) => ({ key, operator: "In", values });
const notIn = (key: string, values: string[]) => ({ key, operator: "NotIn", values });

interface Selectors {
  prefix: string;
  namespaceSelector: Json;
  objectSelector: Json;
}

/** The selector with `kubernetes.io/metadata.name NotIn excluded` added (unchanged when none). */
function excludeFrom(selector: Json, excluded: string[]): Json {
  if (excluded.length === 0) return selector;
  const expressions = (selector.matchExpressions as Json[] | undefined) ?? [];
  return { ...selector, matchExpressions: [...expressions, notIn(NAMESPACE_NAME_LABEL, excluded)] };
}

function revisionSelectors(selected: string): Selectors[] {
  return [
    {
      prefix: "rev.namespace.",
      namespaceSelector: { matchExpressions: [isIn(REVISION_LABEL, [selected]), doesNotExist(INJECTION_LABEL)] },
      objectSelector: { matchExpressions: [notIn(INJECT_LABEL, ["false"])] },
    },
    {
      prefix: "rev.object.",
      namespaceSelector: { matchExpressions: [doesNotExist(REVISION_LABEL), doesNotExist(INJECTION_LABEL)] },
      objectSelector: { matchExpressions: [notIn(INJECT_LABEL, ["false"]), isIn(REVISION_LABEL, [selected])] },
    },
  ];
}

function defaultRevisionSelectors(enableNamespacesByDefault: boolean): Selectors[] {
  const out: Selectors[] = [
    {
      prefix: "namespace.",
      namespaceSelector: { matchExpressions: [isIn(INJECTION_LABEL, ["enabled"])] },
      objectSelector: { matchExpressions: [notIn(INJECT_LABEL, ["false"])] },
    },
    {
      prefix: "object.",
      namespaceSelector: { matchExpressions: [doesNotExist(INJECTION_LABEL), doesNotExist(REVISION_LABEL)] },
      objectSelector: { matchExpressions: [isIn(INJECT_LABEL, ["true"]), doesNotExist(REVISION_LABEL)] },
    },
  ];
  if (enableNamespacesByDefault) {
    out.push({
      prefix: "auto.",
      namespaceSelector: {
        matchExpressions: [
          doesNotExist(INJECTION_LABEL),
          doesNotExist(REVISION_LABEL),
          notIn(NAMESPACE_NAME_LABEL, [...SYSTEM_NAMESPACES]),
        ],
      },
      objectSelector: { matchExpressions: [doesNotExist(INJECT_LABEL), doesNotExist(REVISION_LABEL)] },
    });
  }
  return out;
}

function configName(o: {
  revision: string;
  tag?: string | undefined;
  namespace: string;
  istioNames?: boolean | undefined;
}): string {
  const prefix = o.istioNames ? "istio" : "meshinject";
  const base =
    o.tag !== undefined
      ? `${prefix}-revision-tag-${o.tag}`
      : `${prefix}-sidecar-injector${o.revision ? `-${o.revision}` : ""}`;
  return o.namespace === "istio-system" ? base : `${base}-${o.namespace}`;
}

/** The MutatingWebhookConfiguration for one revision or tag (see the module comment). */
export function webhookConfiguration(options: WebhookConfigOptions = {}): Json {
  const revision = options.revision ?? "";
  const namespace = options.namespace ?? "istio-system";
  if (revision !== "") checkName("revision", revision, REVISION_NAME, 63);
  if (options.tag !== undefined) checkName("tag", options.tag, REVISION_NAME, 63);
  checkName("namespace", namespace, NAMESPACE_NAME, 63);
  const failurePolicy = options.failurePolicy ?? "Fail";
  if (failurePolicy !== "Fail" && failurePolicy !== "Ignore") {
    throw new WebhookConfigError(`failurePolicy must be Fail or Ignore, got ${JSON.stringify(failurePolicy)}`);
  }
  const reinvocationPolicy = options.reinvocationPolicy ?? "Never";
  if (reinvocationPolicy !== "Never" && reinvocationPolicy !== "IfNeeded") {
    throw new WebhookConfigError(
      `reinvocationPolicy must be Never or IfNeeded, got ${JSON.stringify(reinvocationPolicy)}`,
    );
  }
  const timeoutSeconds = options.timeoutSeconds ?? 10;
  if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1 || timeoutSeconds > 30) {
    throw new WebhookConfigError(`timeoutSeconds must be an integer from 1 to 30, got ${timeoutSeconds}`);
  }

  // "default" names the default revision in selectors and labels; the tag replaces it in selectors.
  const selected = options.tag ?? (revision || "default");
  const selectors = revisionSelectors(selected);
  if ((options.tag === undefined && revision === "") || options.tag === "default") {
    selectors.push(...defaultRevisionSelectors(options.enableNamespacesByDefault ?? false));
  }
  const versions = options.admissionReviewVersions ?? ["v1"];
  if (versions.length === 0 || versions.some((v) => v !== "v1" && v !== "v1beta1")) {
    throw new WebhookConfigError(`admissionReviewVersions must be v1 and/or v1beta1, got ${JSON.stringify(versions)}`);
  }
  const excluded = [...(options.excludeNamespaces ?? [])];
  for (const ns of excluded) checkName("excluded namespace", ns, NAMESPACE_NAME, 63);
  const client = clientConfig({ ...options, revision, namespace });
  const webhooks = selectors.map((s) => ({
    name: `${s.prefix}${WEBHOOK_SUFFIX}`,
    clientConfig: structuredClone(client),
    sideEffects: "None",
    rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }],
    failurePolicy,
    reinvocationPolicy,
    timeoutSeconds,
    matchPolicy: "Equivalent",
    admissionReviewVersions: [...versions],
    namespaceSelector: options.deactivated ? structuredClone(NEVER_MATCH) : excludeFrom(s.namespaceSelector, excluded),
    objectSelector: options.deactivated ? structuredClone(NEVER_MATCH) : s.objectSelector,
  }));

  const labels: Record<string, string> = {
    app: "sidecar-injector",
    [REVISION_LABEL]: revision || "default",
    [PART_OF_LABEL]: PART_OF,
  };
  if (options.tag !== undefined) labels[TAG_LABEL] = options.tag;
  const name = options.name ?? configName({ revision, tag: options.tag, namespace, istioNames: options.istioNames });
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingWebhookConfiguration",
    metadata: {
      name,
      labels,
      ...(options.annotations !== undefined && Object.keys(options.annotations).length > 0
        ? { annotations: { ...options.annotations } }
        : {}),
    },
    webhooks,
  };
}
