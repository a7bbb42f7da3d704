/**
 * A pod's capture as text: where its settings come from, what they leave out, and the rules —
 * the iptables-restore input (IPv4, and IPv6 when the pod has it) or, with `--native-nftables`,
 * the nftables transaction. Comment lines start with `#`.
 */
import { INIT_CONTAINER, PROXY_CONTAINER, VALIDATION_CONTAINER } from "../../inject/pod.js";
import { notInjectedNote } from "../../report/injected-pods.js";
import { iptablesRestore } from "./iptables.js";
import { nftablesRules } from "./nftables.js";
import type { PodCapture } from "./pod-capture.js";

/** The containers a pod is injected with, for capture-rules: without any of them it is not injected. */
export const CAPTURE_CONTAINERS = [INIT_CONTAINER, VALIDATION_CONTAINER, PROXY_CONTAINER] as const;

/** An argument list as a shell would need it typed (empty and spaced arguments quoted). */
function shellWords(args: readonly string[]): string {
  return args.map((a) => (/^[A-Za-z0-9_./:=,@%+-]+$/.test(a) ? a : `'${a.replaceAll("'", `'\\''`)}'`)).join(" ");
}

/** The lines that say where a capture's settings come from (or that there is none). */
function originLines(capture: PodCapture): string[] {
  switch (capture.by) {
    case "none":
      return [
        capture.proxy
          ? `# no traffic capture: the pod has ${PROXY_CONTAINER} but no ${INIT_CONTAINER} or ${VALIDATION_CONTAINER} container (interception mode NONE)`
          : `# ${notInjectedNote(CAPTURE_CONTAINERS)}`,
      ];
    case "istio-init": {
      const lines = [`# ${INIT_CONTAINER}: ${shellWords(capture.commandLine)}`];
      const fromEnv = Object.entries(capture.fromEnv).map(([field, variable]) => `${variable} (${field})`);
      if (fromEnv.length > 0) lines.push(`# from ${INIT_CONTAINER}'s environment: ${fromEnv.join(", ")}`);
      return lines;
    }
    case "istio-cni":
      return [
        `# CNI mode: no ${INIT_CONTAINER}; ${VALIDATION_CONTAINER} only checks the rules, which the istio-cni plugin programs from the pod's annotations and its ${PROXY_CONTAINER} container`,
      ];
  }
}

/** The lines of a pod's capture: origin, notes, then the rules it programs. */
export function captureSectionLines(capture: PodCapture): string[] {
  const lines = originLines(capture);
  if (capture.by === "none") return lines;
  const config = capture.config;
  if (capture.by === "istio-init" && config.SkipRuleApply) {
    lines.push("# --skip-rule-apply: istio-iptables programs no rules");
    return lines;
  }
  if (config.DryRun) lines.push("# --dry-run: istio-iptables only prints these rules; nothing is applied");
  if (config.NativeNftables) {
    lines.push(`# nftables transaction (--native-nftables${config.EnableIPv6 ? ", IPv4 and IPv6" : ", IPv4"})`);
    lines.push(...nftablesRules(config));
    return lines;
  }
  if (config.CleanupOnly) {
    lines.push("# --cleanup-only: istio-iptables removes Istio's rules and adds none");
    return lines;
  }
  const restore = iptablesRestore(config);
  lines.push("# iptables-restore input (IPv4)", ...restore.v4);
  if (config.EnableIPv6) lines.push("# ip6tables-restore input (IPv6)", ...restore.v6);
  return lines;
}
