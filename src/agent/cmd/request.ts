/**
 * `pilot-agent request <method> <path> [<body>]` (pilot/cmd/pilot-agent/app/request.go and
 * pilot/pkg/request/command.go): one HTTP request to `localhost:<--debug-port>` (Envoy's admin API,
 * 15000, by default; 15000, 15004, 15020 and 15021 are allowed), printing the answer's body and a
 * newline; a status above 399 other than 404 is an error. Nothing else is written to standard
 * output: istioctl reads it as the admin API's answer. The native sidecar's `preStop` hook runs
 * `request --debug-port=15020 POST drain` to start the drain before the pod's containers stop.
 */
import { parseInt64 } from "../../go/strconv.js";
import type { AgentIo } from "./io.js";
import { httpExchange } from "./local-http.js";
import { CommandError, runCobraCommand } from "./run-command.js";

const ALLOWED_PORTS = [15000, 15004, 15020, 15021];
const DEFAULT_DEBUG_PORT = "15000";
/** request.go's client timeout. */
const REQUEST_TIMEOUT_MS = 60_000;

export const REQUEST_FLAGS = [
  {
    name: "debug-port",
    type: "int32",
    defValue: DEFAULT_DEBUG_PORT,
    usage: "Set the port to make a local request to. The default points to the Envoy admin API.",
  },
] as const;

export function requestCommand(args: readonly string[], io: AgentIo): Promise<number> {
  return runCobraCommand(
    {
      help: {
        path: "pilot-agent request",
        args: "<method> <path> [<body>]",
        description: "Makes an HTTP request to the Envoy admin API",
        flags: REQUEST_FLAGS,
      },
      // cobra.MinimumNArgs(2)
      checkArgs: (positional) =>
        positional.length < 2 ? `requires at least 2 arg(s), only received ${positional.length}` : undefined,
      async run({ values, positional }) {
        const port = Number(values.get("debug-port") ?? parseInt64(DEFAULT_DEBUG_PORT).value);
        if (!ALLOWED_PORTS.includes(port)) {
          throw new CommandError(`debug port ${port} is not in allowed list [${ALLOWED_PORTS.join(" ")}]`);
        }
        const [method, path, body = ""] = positional as [string, string, string?];
        const url = `http://localhost:${port}/${path.replace(/^\//, "")}`;
        const r = await httpExchange(method, url, body, REQUEST_TIMEOUT_MS);
        if ("error" in r) throw new CommandError(r.error);
        if (r.status > 399 && r.status !== 404) {
          throw new CommandError(`received unsuccessful status code ${r.status}: ${r.body}`);
        }
        io.stdout(`${r.body}\n`);
      },
    },
    args,
    io,
  );
}
