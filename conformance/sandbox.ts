/**
 * Runs conformance work in a worker thread with a time budget per request, so that neither an
 * infinite loop nor a crash in the code under test can stop the runner. A request that runs over
 * budget gets its worker terminated (V8 interrupts even a busy loop); the next request starts a
 * fresh worker. Requests are served one at a time.
 *
 * The worker module is TypeScript: the worker boots tsx's loader before importing it, because
 * Node 20 does not apply the parent's `--import tsx` to a worker's own entry module.
 */
import { parentPort, Worker } from "node:worker_threads";

export type SandboxOutcome<R> =
  | { ok: true; value: R }
  /** `fatal`: the worker could not even start (e.g. the module failed to load); retrying is pointless. */
  | { ok: false; reason: string; fatal?: boolean };

type WorkerMessage<R> = { kind: "ready" } | { kind: "result"; value: R } | { kind: "thrown"; message: string };

export interface SandboxOptions {
  /** Time allowed for one request. */
  budgetMs: number;
  /** Time allowed for the worker to load its module. */
  startBudgetMs?: number;
  /** Heap limit of the worker, so that runaway allocation kills the worker and not the runner. */
  maxHeapMb?: number;
}

export class Sandbox<Q, R> {
  private worker: Worker | undefined;
  private settle: ((outcome: SandboxOutcome<R>) => void) | undefined;

  constructor(
    private readonly module: URL,
    private readonly options: SandboxOptions,
  ) {}

  async run(request: Q): Promise<SandboxOutcome<R>> {
    const worker = this.worker ?? (await this.start());
    if (!(worker instanceof Worker)) return worker;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.discard();
        resolve({ ok: false, reason: `timed out after ${this.options.budgetMs} ms` });
      }, this.options.budgetMs);
      this.settle = (outcome) => {
        clearTimeout(timer);
        this.settle = undefined;
        resolve(outcome);
      };
      worker.postMessage(request);
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  /** Starts a worker and waits for its module to load; returns a fatal outcome if it cannot. */
  private start(): Promise<Worker | SandboxOutcome<R>> {
    const tsxApi = import.meta.resolve("tsx/esm/api");
    const boot = `import { register } from ${JSON.stringify(tsxApi)};
register();
await import(${JSON.stringify(this.module.href)});`;
    const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`), {
      resourceLimits: { maxOldGenerationSizeMb: this.options.maxHeapMb ?? 1024 },
    });
    return new Promise((resolve) => {
      let started = false;
      const fail = (reason: string) => {
        if (!started) {
          started = true;
          clearTimeout(timer);
          void worker.terminate();
          resolve({ ok: false, reason, fatal: true });
          return;
        }
        // Events of a worker already discarded (after a timeout) must not touch later requests.
        if (this.worker !== worker) return;
        // The worker died while serving: the request in flight fails, the next one restarts it.
        this.worker = undefined;
        this.settle?.({ ok: false, reason });
      };
      const timer = setTimeout(() => fail("worker did not start in time"), this.options.startBudgetMs ?? 60_000);
      worker.on("message", (message: WorkerMessage<R>) => {
        if (message.kind === "ready") {
          started = true;
          clearTimeout(timer);
          this.worker = worker;
          resolve(worker);
          return;
        }
        if (this.worker !== worker) return; // a late answer from a discarded worker
        this.settle?.(
          message.kind === "result"
            ? { ok: true, value: message.value }
            : { ok: false, reason: `uncaught exception: ${message.message}` },
        );
      });
      worker.on("error", (e: unknown) => fail(`worker failed: ${e instanceof Error ? e.message : String(e)}`));
      worker.on("exit", (code) => fail(`worker exited with code ${code}`));
    });
  }

  private discard(): void {
    const worker = this.worker;
    this.worker = undefined;
    void worker?.terminate();
  }
}

/**
 * The worker side: answers each request with `handler(request)`. Call it from the worker module's
 * top level. An exception escaping the handler is reported, not fatal.
 */
export function serve<Q, R>(handler: (request: Q) => R): void {
  const port = parentPort;
  if (!port) throw new Error("serve() must be called in a worker thread started by Sandbox");
  port.on("message", (request: Q) => {
    let reply: WorkerMessage<R>;
    try {
      reply = { kind: "result", value: handler(request) };
    } catch (e) {
      reply = { kind: "thrown", message: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
    }
    port.postMessage(reply);
  });
  port.postMessage({ kind: "ready" } satisfies WorkerMessage<R>);
}
