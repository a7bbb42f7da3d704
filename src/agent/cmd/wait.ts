/**
 * `pilot-agent wait` (pilot/cmd/pilot-agent/app/wait.go), the `postStart` hook the injector gives
 * the istio-proxy container for `holdApplicationUntilProxyStarts`: polls `--url` (the status
 * server's readiness, `http://localhost:15021/healthz/ready`) every `--periodMillis`, each request
 * bounded by `--requestTimeoutMillis`, until one answers 200 (exit 0), or fails after
 * `--timeoutSeconds` with the last error (exit 255). The kubelet starts the next container only
 * when the hook returns, so the application starts after Envoy is ready.
 */

import type { AgentIo } from "./io.js";
import { httpExchange } from "./local-http.js";
import { CommandError, runCobraCommand } from "./run-command.js";

export const WAIT_FLAGS = [
  {
    name: "timeoutSeconds",
    type: "int",
    defValue: "60",
    usage: "maximum number of seconds to wait for Envoy to be ready",
  },
  {
    name: "requestTimeoutMillis",
    type: "int",
    defValue: "500",
    usage: "number of milliseconds to wait for response",
  },
  {
    name: "periodMillis",
    type: "int",
    defValue: "500",
    usage: "number of milliseconds to wait between attempts",
  },
  {
    name: "url",
    type: "string",
    defValue: "http://localhost:15021/healthz/ready",
    usage: "URL to use in requests",
  },
] as const;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** wait.go's checkIfReady: undefined when the URL answers 200, else the error as Go's client words it. */
async function checkIfReady(url: string, timeoutMs: number): Promise<string | undefined> {
  const r = await httpExchange("GET", url, "", timeoutMs);
  if ("error" in r) return r.error;
  return r.status === 200 ? undefined : `HTTP status code ${r.status}`;
}

export function waitCommand(args: readonly string[], io: AgentIo): Promise<number> {
  return runCobraCommand(
    {
      help: { path: "pilot-agent wait", description: "Waits until the Envoy proxy is ready", flags: WAIT_FLAGS },
      async run({ values }, log) {
        const timeoutSeconds = Number(values.get("timeoutSeconds"));
        const requestTimeoutMs = Number(values.get("requestTimeoutMillis"));
        const periodMs = Number(values.get("periodMillis"));
        const url = values.get("url") as string;
        log.info(`Waiting for Envoy proxy to be ready (timeout: ${timeoutSeconds} seconds)...`);
        // As wait.go's select: the deadline is fixed at the start; each attempt comes a period after the last.
        const deadline = Date.now() + timeoutSeconds * 1000;
        let last = "<nil>";
        for (;;) {
          const next = Date.now() + periodMs;
          if (next >= deadline) {
            await sleep(deadline - Date.now());
            throw new CommandError(`timeout waiting for Envoy proxy to become ready. Last error: ${last}`);
          }
          await sleep(periodMs);
          const err = await checkIfReady(url, requestTimeoutMs);
          if (err === undefined) {
            log.info("Envoy is ready!");
            return;
          }
          last = err;
          log.debug(`Not ready yet: ${err}`);
        }
      },
    },
    args,
    io,
  );
}
