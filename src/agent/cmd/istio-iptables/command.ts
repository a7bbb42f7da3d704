/**
 * `pilot-agent istio-iptables` (Istio's tools/istio-iptables/pkg/cmd `GetCommand`), what the
 * injected `istio-init` container runs: its flags and environment read into the capture config
 * (capture/flags.ts), the run-time facts added (environment.ts), the config checked, the rules
 * programmed with iptables (program-iptables.ts; with `--dry-run` only recorded and logged) or
 * nftables (program-nftables.ts), the TPROXY routes set (routes.ts), and with `--run-validation`
 * the capture proved (validation.ts). Errors are logged and exit 1; a failed validation exits 126.
 * `--cleanup-only` with the pod's flags removes what they programmed (Istio's replacement for the
 * former istio-clean-iptables).
 */

import { parseDuration } from "../../../go/time/duration.js";
import type { CaptureConfig } from "../../capture/config.js";
import { CaptureFlagError, parseCaptureArgs } from "../../capture/flags.js";
import { CaptureRangeError } from "../../capture/ranges.js";
import {
  CaptureValidationError,
  validateIPv4LoopbackCidr,
  validateIptablesBinary,
  validateOwnerGroups,
} from "../../capture/validate.js";
import { HelpRequested } from "../../command-line.js";
import { type Level, Logger, LogLevelError, logTime, parseOutputLevels } from "../../process/log.js";
import type { AgentIo } from "../io.js";
import { commandFailed } from "../read-flags.js";
import { DependenciesStub, RealDependencies, XtablesError } from "./dependencies.js";
import { EnvironmentError, fillFromEnvironment, lookupUid } from "./environment.js";
import { istioIptablesHelp } from "./help.js";
import { type MultilineLog, programIptables } from "./program-iptables.js";
import { NftablesError, programNftables } from "./program-nftables.js";
import { configureRoutes, RouteError } from "./routes.js";
import { runValidation, ValidationError, validationConfig } from "./validation.js";

/** constants.ValidationErrorCode */
export const VALIDATION_ERROR_CODE = 126;

const VALIDATION_FAILED = `iptables validation failed; workload is not ready for Istio.
When using Istio CNI, this can occur if a pod is scheduled before the node is ready.

If installed with 'cni.repair.deletePods=true', this pod should automatically be deleted and retry.
Otherwise, this pod will need to be manually removed so that it is scheduled on a node with istio-cni running, allowing iptables rules to be established.
`;

/** The logging flags among the ignored ones (`--log_output_level=x`, `--log_output_level x`, `--log_as_json`). */
function loggerFrom(ignored: readonly string[], io: AgentIo): { log: Logger; json: boolean } {
  let levels: Map<string, Level> | undefined;
  let json = false;
  for (const given of ignored) {
    const m = /^--([a-z_]+)(?:[= ](.*))?$/s.exec(given);
    if (m === null) continue;
    if (m[1] === "log_output_level" && m[2] !== undefined) levels = parseOutputLevels(m[2]);
    if (m[1] === "log_as_json") json = m[2] === undefined || m[2] === "true";
  }
  return { log: new Logger({ ...(levels === undefined ? {} : { levels }), json, write: io.stdout }), json };
}

/** Config.Print: the settings, one `NAME=value` a line. */
function configText(c: CaptureConfig): string {
  const list = (l: string[]) => `[${l.join(" ")}]`;
  return [
    `PROXY_PORT=${c.ProxyPort}`,
    `PROXY_INBOUND_CAPTURE_PORT=${c.InboundCapturePort}`,
    `PROXY_TUNNEL_PORT=${c.InboundTunnelPort}`,
    `PROXY_UID=${c.ProxyUID}`,
    `PROXY_GID=${c.ProxyGID}`,
    `INBOUND_INTERCEPTION_MODE=${c.InboundInterceptionMode}`,
    `INBOUND_TPROXY_MARK=${c.InboundTProxyMark}`,
    `INBOUND_TPROXY_ROUTE_TABLE=${c.InboundTProxyRouteTable}`,
    `INBOUND_PORTS_INCLUDE=${c.InboundPortsInclude}`,
    `INBOUND_PORTS_EXCLUDE=${c.InboundPortsExclude}`,
    `OUTBOUND_OWNER_GROUPS_INCLUDE=${c.OwnerGroupsInclude}`,
    `OUTBOUND_OWNER_GROUPS_EXCLUDE=${c.OwnerGroupsExclude}`,
    `OUTBOUND_IP_RANGES_INCLUDE=${c.OutboundIPRangesInclude}`,
    `OUTBOUND_IP_RANGES_EXCLUDE=${c.OutboundIPRangesExclude}`,
    `OUTBOUND_PORTS_INCLUDE=${c.OutboundPortsInclude}`,
    `OUTBOUND_PORTS_EXCLUDE=${c.OutboundPortsExclude}`,
    `KUBE_VIRT_INTERFACES=${c.RerouteVirtualInterfaces}`,
    `ENABLE_INBOUND_IPV6=${c.EnableIPv6}`,
    `DUAL_STACK=${c.DualStack}`,
    `DNS_CAPTURE=${c.RedirectDNS}`,
    `DROP_INVALID=${c.DropInvalid}`,
    `CAPTURE_ALL_DNS=${c.CaptureAllDNS}`,
    `DNS_SERVERS=${list(c.DNSServersV4)},${list(c.DNSServersV6)}`,
    `NETWORK_NAMESPACE=${c.NetworkNamespace}`,
    `CNI_MODE=${c.HostFilesystemPodNetwork}`,
    `EXCLUDE_INTERFACES=${c.ExcludeInterfaces}`,
    `RECONCILE=${c.Reconcile}`,
    `CLEANUP_ONLY=${c.CleanupOnly}`,
    `FORCE_APPLY=${c.ForceApply}`,
    `NATIVE_NFTABLES=${c.NativeNftables}`,
    `FORCE_IPTABLES_BINARY=${c.ForceIptablesBinary}`,
    "",
  ].join("\n");
}

/** logConfig's dump of the environment variables istio-iptables is known by. */
const LOGGED_ENV = [
  "ENVOY_PORT",
  "INBOUND_CAPTURE_PORT",
  "ISTIO_INBOUND_INTERCEPTION_MODE",
  "ISTIO_INBOUND_TPROXY_ROUTE_TABLE",
  "ISTIO_INBOUND_PORTS",
  "ISTIO_OUTBOUND_PORTS",
  "ISTIO_LOCAL_EXCLUDE_PORTS",
  "ISTIO_EXCLUDE_INTERFACES",
  "ISTIO_SERVICE_CIDR",
  "ISTIO_SERVICE_EXCLUDE_CIDR",
  "ISTIO_META_DNS_CAPTURE",
  "INVALID_DROP",
];

function environmentText(env: Readonly<Record<string, string>>): string {
  return LOGGED_ENV.map((name) => `${name}=${env[name] ?? ""}\n`).join("");
}

/** Errors that end the command with exit 1 (handleErrorWithCode(err, 1)). */
const isRunError = (e: unknown) =>
  e instanceof EnvironmentError ||
  e instanceof CaptureValidationError ||
  e instanceof CaptureRangeError ||
  e instanceof XtablesError ||
  e instanceof NftablesError ||
  e instanceof RouteError;

export async function istioIptablesCommand(args: readonly string[], io: AgentIo): Promise<number> {
  let parsed: ReturnType<typeof parseCaptureArgs>;
  let log: Logger;
  let json: boolean;
  try {
    parsed = parseCaptureArgs(args, { env: io.env, lookupUid });
    ({ log, json } = loggerFrom(parsed.ignored, io));
  } catch (e) {
    if (e instanceof CaptureFlagError && e.cause instanceof HelpRequested) {
      io.stdout(istioIptablesHelp());
      return 0;
    }
    if (e instanceof CaptureFlagError || e instanceof LogLevelError) return commandFailed(io, undefined, e.message);
    throw e;
  }
  const cfg = parsed.config;
  // Istio's console logger keeps a message's lines as they are.
  const logLines: MultilineLog = (message, level = "info") => {
    if (!log.enabled(level)) return;
    if (json) log[level](message);
    else io.stdout(`${logTime(new Date())}\t${level}\t${message}\n`);
  };
  try {
    await fillFromEnvironment(cfg);
    validateOwnerGroups(cfg.OwnerGroupsInclude, cfg.OwnerGroupsExclude);
    validateIptablesBinary(cfg.ForceIptablesBinary);
    validateIPv4LoopbackCidr(cfg.HostIPv4LoopbackCidr);
    if (cfg.NativeNftables) {
      if (!cfg.SkipRuleApply) {
        logLines(`Istio config:\n${configText(cfg)}`);
        await programNftables(cfg, log, logLines);
        await configureRoutes(cfg, log);
      }
    } else {
      const ext = cfg.DryRun
        ? new DependenciesStub(io.env.DRY_RUN_FILE_PATH)
        : new RealDependencies(cfg.ForceIptablesBinary, log);
      if (cfg.DryRun) log.info("running iptables in dry-run mode, no rule changes will be made");
      if (!cfg.SkipRuleApply) {
        logLines(`Istio iptables environment:\n${environmentText(io.env)}`);
        logLines(`Istio config:\n${configText(cfg)}`);
        await programIptables(cfg, ext, log, logLines);
        await configureRoutes(cfg, log);
      }
    }
  } catch (e) {
    if (!isRunError(e)) throw e;
    const message = e instanceof RouteError ? `failed to configure routes: ${e.message}` : (e as Error).message;
    log.error(message);
    return 1;
  }
  if (cfg.RunValidation) {
    const timeoutMs = Number(parseDuration(cfg.ProbeTimeout) / 1_000_000n);
    try {
      await runValidation(
        validationConfig(
          cfg.HostIP.includes(":"),
          cfg.ProxyPort,
          cfg.InboundCapturePort,
          cfg.IptablesProbePort,
          timeoutMs,
        ),
        log,
      );
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      logLines(VALIDATION_FAILED, "error");
      return VALIDATION_ERROR_CODE;
    }
  }
  return 0;
}
