/**
 * The help of `agent proxy` and `agent bootstrap`: pilot-agent's `proxy` help as cobra prints it
 * (its flags from pilot/cmd/pilot-agent/app/cmd.go `addFlags`), then meshinject's own two flags.
 */
import { type FlagHelp, flagUsages, PILOT_AGENT_GLOBAL_FLAGS, renderHelp } from "./cobra-usage.js";

const PROXY_LOG_LEVELS = "{trace, debug, info, warning, error, critical, off}";

export const PROXY_FLAGS: readonly FlagHelp[] = [
  {
    name: "domain",
    type: "string",
    defValue: "",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: pilot-agent's text names the variable literally.
    usage: "DNS domain suffix. If not provided uses ${POD_NAMESPACE}.svc.cluster.local",
  },
  {
    name: "meshConfig",
    type: "string",
    defValue: "./etc/istio/config/mesh",
    usage:
      "File name for Istio mesh configuration. If not specified, a default mesh will be used. This may be overridden by PROXY_CONFIG environment variable or proxy.istio.io/config annotation.",
  },
  {
    name: "stsPort",
    type: "int",
    defValue: "0",
    usage: "HTTP Port on which to serve Security Token Service (STS). If zero, STS service will not be provided.",
  },
  { name: "tokenManagerPlugin", type: "string", defValue: "", usage: "Token provider specific plugin name." },
  { name: "serviceCluster", type: "string", defValue: "istio-proxy", usage: "Service cluster" },
  {
    name: "proxyLogLevel",
    type: "string",
    defValue: "warning",
    usage: `The log level used to start the Envoy proxy (choose from ${PROXY_LOG_LEVELS}).Level may also include one or more scopes, such as 'info,misc:error,upstream:debug'`,
  },
  { name: "concurrency", type: "int", defValue: "0", usage: "number of worker threads to run" },
  {
    name: "proxyComponentLogLevel",
    type: "string",
    defValue: "",
    usage: "The component log level used to start the Envoy proxy. Deprecated, use proxyLogLevel instead",
  },
  { name: "templateFile", type: "string", defValue: "", usage: "Go template bootstrap config" },
  { name: "outlierLogPath", type: "string", defValue: "", usage: "The log path for outlier detection" },
  {
    name: "profiling",
    type: "bool",
    defValue: "true",
    usage: "Enable profiling via web interface host:port/debug/pprof/.",
  },
];

/** meshinject's flags of `agent proxy` and `agent bootstrap`, taken off before pilot-agent's are read. */
const OWN_FLAGS: readonly FlagHelp[] = [
  {
    name: "root",
    type: "string",
    defValue: "/",
    usage: "the folder pilot-agent's paths resolve under (./etc/istio/..., ./var/lib/istio/...)",
  },
  {
    name: "status-host",
    type: "string",
    defValue: "",
    usage: "the address the status server listens on (default: every interface, as pilot-agent)",
  },
];

/** `meshinject agent proxy --help`; `bootstrap` names the command that only prints the bootstrap. */
export function proxyHelp(command: "proxy" | "bootstrap"): string {
  const pilot = renderHelp({
    path: "pilot-agent proxy",
    description: "XDS proxy agent",
    flags: PROXY_FLAGS,
    globalFlags: PILOT_AGENT_GLOBAL_FLAGS,
  });
  const intro =
    command === "proxy"
      ? "meshinject agent proxy [sidecar|router] [flags]: runs what pilot-agent proxy runs.\n"
      : "meshinject agent bootstrap [sidecar|router] [flags]: prints the Envoy bootstrap pilot-agent proxy would write, and starts nothing.\n";
  return `${intro}\n${pilot}\nmeshinject's own flags:\n${flagUsages(OWN_FLAGS)}\n`;
}
