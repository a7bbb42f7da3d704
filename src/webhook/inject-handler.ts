/**
 * POST /inject (and Istio's `/inject/cluster/X/net/Y/:ENV=value` paths): one AdmissionReview in,
 * one out. The request goes: count it → check the method, content-type and declared length (405,
 * 415, 413) → `100 Continue` if the client asked for it (a refused body gets its final status
 * instead) → read it within the limit (413, 400), reserving room in the body budget as bytes
 * arrive past the first `smallBodyBytes` (body-budget.ts) → JSON.parse once → read the review's
 * request once → (OpenShift) look up the pod's Namespace → review() (again, once the host names its
 * templates asked for are resolved: withResolvedNames, src/template/host.ts) → 200 with the AdmissionReview.
 *
 * Malformed JSON is answered 200 with an AdmissionReview (admission.k8s.io/v1) whose response says
 * `allowed: false` and why, as Istio's webhook does: the API server then reports that message to the
 * user ("admission webhook ... denied the request: could not decode ...") rather than a bare HTTP
 * error. The uid cannot be echoed from a body that does not parse; the API server rejects the
 * answer's uid mismatch and applies the webhook's failurePolicy either way. Bodies that are not
 * JSON by content-type (415) or are empty (400) are refused at the HTTP level: no AdmissionReview
 * client sends them.
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import { processTemplateHost } from "../node/template-host.js";
import { withResolvedNames } from "../template/index.js";
import { type ReviewResult, refuseBadRequest, review, type WebhookState } from "./admission.js";
import { ADMISSION_V1, type PodRequest, readPodRequest, reviewEnvelope } from "./admission-request.js";
import type { BodyAccount, BodyBudget } from "./body-budget.js";
import { discardBody, expectsContinue } from "./discard-body.js";
import { AbortedError, checkHeaders, LimitError, type Limits, readBody } from "./limits.js";
import type { Logger } from "./logging.js";
import type { ServerFailureReason, WebhookMetrics } from "./metrics.js";
import type { NamespaceSource } from "./namespaces.js";
import type { NamespaceLike } from "./openshift.js";
import type { Outcome } from "./outcome.js";
import { JSON_TYPE, seconds, send, TEXT } from "./respond.js";

/** What the handler reads from the server around it. */
export interface InjectContext {
  limits: Limits;
  logger: Logger;
  metrics: WebhookMetrics;
  bodyBudget: BodyBudget;
  /** The configuration active now (a reload during a request does not change that request's). */
  state(): WebhookState;
  /** Where Namespaces are looked up on OpenShift. */
  namespaces: NamespaceSource | undefined;
  /** Whether every answer should close its connection (the server is shutting down). */
  shuttingDown(): boolean;
}

/** An error answer for a body that has no usable envelope. */
function errorReview(message: string, apiVersion = ADMISSION_V1, uid = ""): Record<string, unknown> {
  return reviewEnvelope(apiVersion, { uid, allowed: false, status: { code: 400, message } });
}

/** The namespace the review's pod is in: its own, else the request's (as review() defaults it). */
function podNamespace(request: PodRequest): string {
  const metadata = request.object.metadata;
  const own =
    typeof metadata === "object" && metadata !== null ? (metadata as { namespace?: unknown }).namespace : undefined;
  return typeof own === "string" && own !== "" ? own : request.namespace;
}

/** Who a review was about, for its log line. */
type LogIds = { uid?: string; namespace?: string; pod?: string | undefined; operation?: string; dryRun?: boolean };

export type InjectHandler = (req: IncomingMessage, res: ServerResponse, path: string, started: bigint) => Promise<void>;

export function createInjectHandler(ctx: InjectContext): InjectHandler {
  const { limits, logger, metrics, bodyBudget } = ctx;

  function reply(
    res: ServerResponse,
    status: number,
    body: string,
    contentType: string,
    close = false,
    endWhen?: Promise<void>,
  ): void {
    send(res, status, body, contentType, close || ctx.shuttingDown(), endWhen);
  }

  /**
   * Refuses a request before review (415, 413, 400, 405) and counts it. A body not read yet is read
   * and dropped while the answer goes out (see discard-body.ts), so a client still uploading gets
   * the answer instead of a reset. A client that asked `Expect: 100-continue` was never told to send
   * its body: it gets the final status at once, and the connection closes after it.
   */
  function reject(
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    reason: ServerFailureReason,
    message: string,
    started: bigint,
    bodyUnread: boolean,
  ): void {
    metrics.recordRejected(reason, seconds(started));
    logger.warn({ path: req.url, status, reason, remote: req.socket.remoteAddress }, message);
    const awaitingContinue = expectsContinue(req);
    const drained = bodyUnread && !awaitingContinue ? discardBody(req, limits) : undefined;
    reply(res, status, `${message}\n`, TEXT, awaitingContinue, drained);
  }

  /**
   * Reads the body within the limits; every byte past the first `smallBodyBytes` is reserved in the
   * budget as it arrives (bodiesWaiting counts the requests paused for room). The caller closes
   * the account once the body is no longer held.
   */
  function readWithinBudget(req: IncomingMessage, account: BodyAccount): Promise<Buffer> {
    return readBody(req, limits, {
      freeBytes: limits.smallBodyBytes,
      take: (bytes) => {
        const wait = account.take(bytes);
        if (wait === undefined) return undefined;
        metrics.bodiesWaiting.inc();
        return wait.finally(() => metrics.bodiesWaiting.dec());
      },
    });
  }

  /** Parses, reads, reviews and answers one AdmissionReview body. */
  async function answerReview(res: ServerResponse, path: string, started: bigint, body: Buffer): Promise<void> {
    const current = ctx.state();
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString("utf8"));
    } catch (e) {
      const message = `could not decode the AdmissionReview: ${(e as Error).message}`;
      reply(res, 200, JSON.stringify(errorReview(message)), JSON_TYPE);
      finishReview(path, { kind: "invalid", reason: message }, started, {}, "malformed_json");
      return;
    }
    const request = readPodRequest(parsed);
    const ids: LogIds = {
      ...(request.uid === "" ? {} : { uid: request.uid }),
      ...(request.namespace === "" ? {} : { namespace: request.namespace }),
      ...(request.operation === undefined ? {} : { operation: request.operation }),
      ...(request.dryRun === undefined ? {} : { dryRun: request.dryRun }),
    };
    let result: ReviewResult;
    if (request.ok) {
      const reviewState = await withNamespace(current, request);
      try {
        // A fresh host per review: names its templates ask for (getHostByName) are resolved for it alone.
        result = await withResolvedNames(processTemplateHost(process.env), (lookupHost) =>
          review(request, path, { ...reviewState, lookupHost }),
        );
      } catch (e) {
        // review() is total; if it still throws, that is our bug: answer, and log it loudly.
        logger.error({ err: e, path, uid: request.uid }, "internal error in review");
        const message = `internal error: ${(e as Error).message}`;
        reply(res, 200, JSON.stringify(errorReview(message, request.apiVersion, request.uid)), JSON_TYPE);
        metrics.recordRejected("internal_error", seconds(started));
        return;
      }
    } else {
      result = refuseBadRequest(request);
    }
    reply(res, 200, JSON.stringify(result.response), JSON_TYPE);
    // Istio's injector logs these as warnings (an invalid sidecar.istio.io/inject value, a bad selector).
    for (const warning of result.warnings ?? []) logger.warn({ pod: result.pod, path }, warning);
    finishReview(path, result.outcome, started, { ...ids, pod: result.pod });
  }

  /** On OpenShift, the state with the request's Namespace looked up (review() itself is synchronous). */
  async function withNamespace(current: WebhookState, request: PodRequest): Promise<WebhookState> {
    const namespaces = ctx.namespaces;
    if (current.platform !== "openshift" || namespaces === undefined) return current;
    const name = podNamespace(request);
    if (name === "") return current;
    let found: NamespaceLike | undefined;
    try {
      const lookup = await namespaces.get(name);
      found = lookup.namespace;
      if (lookup.namespace === undefined) {
        metrics.namespaceLookupFailures.inc();
        logger.warn({ namespace: name, reason: lookup.reason }, "namespace lookup failed; proxy UID/GID 1337");
      }
    } catch (e) {
      metrics.namespaceLookupFailures.inc();
      logger.warn({ namespace: name, err: e }, "namespace lookup failed; proxy UID/GID 1337");
    }
    return { ...current, namespace: (n) => (n === name ? found : undefined) };
  }

  function finishReview(
    path: string,
    outcome: Outcome,
    started: bigint,
    ids: LogIds,
    rejected?: ServerFailureReason,
  ): void {
    const duration = seconds(started);
    if (rejected) metrics.recordRejected(rejected, duration);
    else metrics.recordOutcome(outcome, duration);
    const fields = {
      pod: ids.pod,
      namespace: ids.namespace,
      uid: ids.uid,
      operation: ids.operation,
      dryRun: ids.dryRun,
      path,
      outcome: outcome.kind,
      reason: outcome.kind === "injected" ? undefined : outcome.reason,
      durationMs: Math.round(duration * 1e6) / 1e3,
    };
    if (outcome.kind === "injected" || outcome.kind === "skipped") logger.info(fields, `pod ${outcome.kind}`);
    else logger.warn(fields, outcome.kind === "failed" ? "injection failed" : "invalid admission review");
  }

  return async function serveInject(req, res, path, started) {
    metrics.requests.inc();
    if (req.method !== "POST") {
      res.setHeader("allow", "POST");
      reject(req, res, 405, "method_not_allowed", `method ${req.method} not allowed, use POST`, started, true);
      return;
    }
    let body: Buffer;
    const account = bodyBudget.open();
    try {
      checkHeaders(req, limits);
      if (expectsContinue(req)) res.writeContinue();
      body = await readWithinBudget(req, account);
    } catch (e) {
      account.close();
      if (e instanceof LimitError) {
        reject(req, res, e.status, e.reason, e.message, started, e.status !== 400);
      } else if (e instanceof AbortedError) {
        metrics.recordRejected("request_aborted", seconds(started));
        logger.warn({ path, remote: req.socket.remoteAddress }, e.message);
        req.socket.destroy();
      } else {
        throw e;
      }
      return;
    }
    try {
      await answerReview(res, path, started, body);
    } finally {
      account.close();
    }
  };
}
