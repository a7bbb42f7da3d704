/**
 * At start, in a cluster: is istiod's own injector registered for the pods meshinject injects? Two
 * injectors for one pod inject it twice (or one fails the other's admission). One read-only list of
 * MutatingWebhookConfigurations (`get`/`list`, deploy/webhook-reader.yaml); never blocking and never
 * throwing: no token, no permission, an unreachable or slow API server are one info line.
 *
 * A configuration is istiod's when it is not labelled `app.kubernetes.io/part-of=meshinject` and one
 * of its webhooks is named `…sidecar-injector.istio.io`. It targets the same pods when, for some
 * label combination that asks for injection (namespace `istio-injection=enabled` or
 * `istio.io/rev=R`, pod `sidecar.istio.io/inject=true` or `istio.io/rev=R`, R our revision), both
 * ours and it call a webhook.
 */

import { readFile } from "node:fs/promises";
import type { Logger } from "pino";
import { get, SERVICE_ACCOUNT_DIR, statusMessage } from "./namespaces.js";
import {
  defaultExcludedNamespaces,
  INJECT_LABEL,
  INJECTION_LABEL,
  PART_OF,
  PART_OF_LABEL,
  REVISION_LABEL,
  WEBHOOK_SUFFIX,
  webhookConfiguration,
} from "./webhook-config.js";
import { matchingWebhooks } from "./webhook-match.js";

const LIST_PATH = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";
/** A list of configurations with their CA bundles and managed fields can be large. */
const MAX_LIST_BYTES = 16 << 20;

type Json = Record<string, unknown>;

/** One configuration of istiod's that calls a webhook for pods ours injects, with one such case. */
export interface Overlap {
  configuration: string;
  webhooks: string[];
  namespaceLabels: Record<string, string>;
  podLabels: Record<string, string>;
}

function metadataOf(config: unknown): { name: string; labels: Record<string, string> } {
  const m = ((config as Json | null)?.metadata ?? {}) as { name?: unknown; labels?: unknown };
  const labels = typeof m.labels === "object" && m.labels !== null ? (m.labels as Record<string, string>) : {};
  return { name: typeof m.name === "string" ? m.name : "(unnamed)", labels };
}

function isIstiods(config: unknown): boolean {
  if (metadataOf(config).labels[PART_OF_LABEL] === PART_OF) return false;
  const webhooks = (config as Json | null)?.webhooks;
  return Array.isArray(webhooks) && webhooks.some((w) => String((w as Json)?.name ?? "").endsWith(WEBHOOK_SUFFIX));
}

/** istiod's configurations in `configs` that call a webhook for pods `ours` injects. Pure. */
export function overlappingIstiodWebhooks(configs: readonly unknown[], ours: unknown, revision: string): Overlap[] {
  const selected = revision === "" || revision === "default" ? "default" : revision;
  const namespaceSets: Record<string, string>[] = (
    [{ [INJECTION_LABEL]: "enabled" }, { [REVISION_LABEL]: selected }, {}] as Record<string, string>[]
  ).map((l) => ({ ...l, "kubernetes.io/metadata.name": "an-application-namespace" }));
  const podSets: Record<string, string>[] = [{}, { [INJECT_LABEL]: "true" }, { [REVISION_LABEL]: selected }];
  const out: Overlap[] = [];
  for (const config of configs.filter(isIstiods)) {
    search: for (const namespaceLabels of namespaceSets) {
      for (const podLabels of podSets) {
        if (matchingWebhooks(ours, namespaceLabels, podLabels).length === 0) continue;
        const webhooks = matchingWebhooks(config, namespaceLabels, podLabels);
        if (webhooks.length > 0) {
          out.push({ configuration: metadataOf(config).name, webhooks, namespaceLabels, podLabels });
          break search;
        }
      }
    }
  }
  return out;
}

export interface IstiodCheckOptions {
  revision: string;
  /** The injector's namespace (excluded from our webhooks, as webhook-config does). */
  namespace: string;
  env?: Record<string, string | undefined>;
  tokenFile?: string;
  caFile?: string;
  /** Bound on the one request (ms). Default 5 000. */
  timeoutMs?: number;
}

export type IstiodCheckResult = { checked: true; overlaps: Overlap[] } | { checked: false; reason: string };

/** Lists the configurations and compares; never rejects. */
export async function checkIstiodWebhooks(options: IstiodCheckOptions): Promise<IstiodCheckResult> {
  const env = options.env ?? process.env;
  const host = env.KUBERNETES_SERVICE_HOST;
  if (host === undefined || host === "")
    return { checked: false, reason: "not in a cluster (KUBERNETES_SERVICE_HOST)" };
  const port = Number(env.KUBERNETES_SERVICE_PORT ?? 443);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) {
    return { checked: false, reason: `bad API server port ${JSON.stringify(env.KUBERNETES_SERVICE_PORT)}` };
  }
  let token: string;
  let ca: string;
  try {
    [token, ca] = await Promise.all([
      readFile(options.tokenFile ?? `${SERVICE_ACCOUNT_DIR}/token`, "utf8"),
      readFile(options.caFile ?? `${SERVICE_ACCOUNT_DIR}/ca.crt`, "utf8"),
    ]);
  } catch (e) {
    return { checked: false, reason: `no service-account token mounted: ${(e as Error).message}` };
  }
  try {
    const res = await get({
      host,
      port,
      path: LIST_PATH,
      token: token.trim(),
      ca,
      timeoutMs: options.timeoutMs ?? 5_000,
      maxBytes: MAX_LIST_BYTES,
    });
    if (res.status !== 200) {
      const hint =
        res.status === 401 || res.status === 403
          ? " (needs get/list on mutatingwebhookconfigurations: deploy/webhook-reader.yaml)"
          : "";
      return { checked: false, reason: `GET ${LIST_PATH}: HTTP ${res.status}${hint}: ${statusMessage(res.body)}` };
    }
    const items = (JSON.parse(res.body) as { items?: unknown }).items;
    if (!Array.isArray(items)) return { checked: false, reason: `GET ${LIST_PATH}: the answer is not a list` };
    const ours = webhookConfiguration({
      revision: options.revision === "default" ? "" : options.revision,
      namespace: options.namespace,
      excludeNamespaces: defaultExcludedNamespaces(options.namespace),
    });
    return { checked: true, overlaps: overlappingIstiodWebhooks(items, ours, options.revision) };
  } catch (e) {
    return { checked: false, reason: `GET ${LIST_PATH}: ${(e as Error).message}` };
  }
}

/** The check with its outcome logged: a warning per overlapping configuration, else one info line. */
export async function warnAboutIstiodWebhooks(options: IstiodCheckOptions, logger: Logger): Promise<void> {
  const result = await checkIstiodWebhooks(options);
  if (!result.checked) {
    logger.info({ reason: result.reason }, "did not check for istiod's injection webhook");
    return;
  }
  for (const o of result.overlaps) {
    logger.warn(
      {
        configuration: o.configuration,
        webhooks: o.webhooks,
        namespaceLabels: o.namespaceLabels,
        podLabels: o.podLabels,
      },
      `istiod's MutatingWebhookConfiguration ${o.configuration} also injects the pods this injector serves: pods would be injected twice; see deploy/README.md, "Next to istiod"`,
    );
  }
  if (result.overlaps.length === 0) logger.info("no istiod injection webhook targets the pods this injector serves");
}
