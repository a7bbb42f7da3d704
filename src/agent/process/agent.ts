/**
 * Runs the agent's components: starts them in order (a failure stops those already started and
 * rejects) and ends when asked to (SIGTERM: every component stopped in reverse order, Envoy
 * drained; exit code 0) or when a component ends by itself (Envoy exiting: the others stopped;
 * Envoy's exit code). Readiness is the status server's (status-component.ts).
 */
import type { Component } from "./component.js";
import type { Logger } from "./log.js";

export class Agent {
  private readonly started: Component[] = [];
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly components: readonly Component[],
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    for (const c of this.components) {
      try {
        await c.start();
      } catch (e) {
        await this.stop();
        throw e;
      }
      this.started.push(c);
      this.log.debug(`started ${c.name}`);
    }
  }

  /** Stops every started component in reverse order, once; a failing stop is logged, not thrown. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      for (const c of [...this.started].reverse()) {
        try {
          await c.stop();
        } catch (e) {
          this.log.warn(`stopping ${c.name}: ${(e as Error).message}`);
        }
      }
    })();
    return this.stopping;
  }

  /**
   * Waits until `shutdown` settles or a component exits by itself, then stops everything. Returns
   * the exit code: 0 after a shutdown, the component's code when it ended on its own.
   */
  async run(shutdown: Promise<void>): Promise<number> {
    const exits = this.started
      .filter((c) => c.exited !== undefined)
      .map((c) => (c.exited as Promise<number>).then((code) => ({ component: c, code })));
    const first = await Promise.race([shutdown.then(() => undefined), ...exits]);
    if (first !== undefined) {
      this.log.warn(`${first.component.name} exited with code ${first.code}; stopping the agent`);
      await this.stop();
      return first.code;
    }
    await this.stop();
    return 0;
  }
}
