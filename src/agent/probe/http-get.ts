/**
 * An HTTP(S) GET probe through a prober's client, with its deadline and redirects as Go's http.Client
 * follows them: 301, 302, 303, 307 and 308 with a Location, at most 10 requests. The probe proxy checks
 * redirects as the kubelet does (status/server.go redirectChecker: one to another host is not followed,
 * its answer stands); the workload health checker keeps Go's default policy (any host).
 */
import type { Cancellation } from "./cancel.js";
import type { ProbeClient, ProbeResponse } from "./http-client.js";

const FOLLOWED = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 10;

export type RedirectPolicy = "same-host" | "any-host";

export interface HTTPProbe {
  url: URL;
  /** The Host the application sees on the first request. */
  host: string;
  headers: [string, string][];
  /** The whole probe's deadline; 0 = none. */
  timeoutMs: number;
  /** Cancelled when whoever asked for the probe went away. */
  cancel?: Cancellation;
  redirects: RedirectPolicy;
}

export type HTTPProbeFailure = "timeout" | "gone" | "redirects" | "failed";

/** Why an HTTP probe got no answer, and the URL of the request that failed (Go's `Get "<url>": …`). */
export class HTTPProbeError extends Error {
  constructor(
    readonly reason: HTTPProbeFailure,
    readonly url: URL,
    message: string,
  ) {
    super(message);
  }
}

/**
 * `fn` with a deadline (0 = none) that also ends when `cancel` fires; the `onAbort` callbacks `fn`
 * registers run when either happens. (One promise and one timer per probe: this is the probe path.)
 */
function withDeadline<T>(
  ms: number,
  cancel: Cancellation | undefined,
  failed: (reason: HTTPProbeFailure, message: string) => Error,
  fn: (onAbort: (f: () => void) => void) => Promise<T>,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const cleanups: (() => void)[] = [];
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const settle = () => {
      settled = true;
      clearTimeout(timer);
    };
    const end = (reason: HTTPProbeFailure, why: string) => {
      if (settled) return;
      settle();
      for (const c of cleanups) c();
      reject(failed(reason, why));
    };
    if (ms > 0) timer = setTimeout(() => end("timeout", "context deadline exceeded"), ms);
    cancel?.onCancel(() => end("gone", "the prober went away"));
    // A hook registered after the deadline (by a request sent as it passed) runs at once.
    fn((f) => {
      if (settled) f();
      else cleanups.push(f);
    }).then(
      (v) => {
        if (settled) return;
        settle();
        resolve(v);
      },
      (e) => {
        if (settled) return;
        settle();
        reject(e);
      },
    );
  });
}

/** The application's last answer (a redirect not followed included); rejects with an HTTPProbeError. */
export async function httpProbe(client: ProbeClient, p: HTTPProbe): Promise<ProbeResponse> {
  let url = p.url;
  const firstHost = url.hostname;
  const failed = (reason: HTTPProbeFailure, message: string) => new HTTPProbeError(reason, url, message);
  return withDeadline(p.timeoutMs, p.cancel, failed, async (onAbort) => {
    let host = p.host;
    for (let requests = 1; ; requests++) {
      let r: ProbeResponse;
      try {
        r = await client.request({ url, host, headers: p.headers, onAbort });
      } catch (e) {
        throw failed("failed", (e as Error).message);
      }
      if (!FOLLOWED.has(r.status) || r.location === undefined) return r;
      const next = new URL(r.location, url);
      // The kubelet counts a redirect to another host as the answer and does not follow it.
      if (p.redirects === "same-host" && next.hostname !== firstHost) return r;
      if (requests >= MAX_REDIRECTS) {
        url = next;
        throw failed("redirects", `stopped after ${MAX_REDIRECTS} redirects`);
      }
      // A relative Location keeps the Host asked for; an absolute one names its own.
      if (/^[a-z][a-z0-9+.-]*:/i.test(r.location)) host = next.host;
      url = next;
    }
  });
}
