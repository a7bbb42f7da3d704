// The JSON log lines a child process (meshinject serve, its workers) writes on stdout, for tests
// that wait for a line to appear.

import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";

export type LogLine = Record<string, unknown>;

/** The JSON log lines of a child's stdout, and waits for lines that match. */
export class Logs {
  readonly lines: LogLine[] = [];
  private waiters: (() => void)[] = [];
  private exit: string | undefined;
  constructor(child: ChildProcess) {
    child.once("exit", (code, signal) => {
      this.exit = `exited (code ${code}, signal ${signal})`;
      for (const w of this.waiters) w();
    });
    let buffered = "";
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => {
      buffered += chunk;
      for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
        this.lines.push(JSON.parse(buffered.slice(0, nl)) as LogLine);
        buffered = buffered.slice(nl + 1);
      }
      for (const w of this.waiters) w();
    });
  }
  /** Lines matching `match` (the first `count` of them), once there are that many. */
  async wait(what: string, match: (l: LogLine) => boolean, count = 1, timeoutMs = 60_000): Promise<LogLine[]> {
    const found = () => this.lines.filter(match);
    const end = Date.now() + timeoutMs;
    while (found().length < count) {
      if (this.exit !== undefined) assert.fail(`${this.exit} before ${count} × ${what}; log:\n${this.tail()}`);
      if (Date.now() > end) assert.fail(`timed out waiting for ${count} × ${what}; log:\n${this.tail()}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 200);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
      this.waiters = [];
    }
    return found().slice(0, count);
  }
  tail(): string {
    return this.lines
      .slice(-15)
      .map((l) => JSON.stringify(l))
      .join("\n");
  }
}
