/**
 * `meshinject capture-rules`: what the `istio-init` container of each injected pod will program,
 * a debugging aid. The work is the pure {@link captureRules} (src/agent/capture/capture-report.ts:
 * each pod's istio-iptables arguments and environment, or for a CNI pod the istio-cni plugin's
 * reading of it, turned into iptables-restore input or an nftables transaction); the command adds
 * the reading of the input and the printing (./manifest-command.ts). Its errors are printed as
 * `meshinject: MESSAGE` (exit code 1), one line each.
 */
import { Command } from "commander";
import { CaptureRulesError, captureRules } from "../agent/capture/capture-report.js";
import { PodCaptureError, splitNameServers } from "../agent/capture/pod-capture.js";
import {
  filenameOption,
  inputName,
  type ManifestCommandIO,
  namespaceOption,
  runManifestCommand,
} from "./manifest-command.js";

/** What the command reads and writes; replaceable for tests. */
export type CaptureRulesIO = ManifestCommandIO;

const isUserError = (e: unknown) => e instanceof CaptureRulesError || e instanceof PodCaptureError;

interface CaptureRulesCliOptions {
  filename: string;
  namespace: string;
  ipv6?: boolean;
  dnsServers?: string;
}

const HELP = `
For every Pod, Deployment, DaemonSet, StatefulSet, ReplicaSet, ReplicationController, Job, CronJob
and DeploymentConfig (Lists too) of an injected manifest, prints what its istio-init container
(istio-iptables) will program, under a "# Kind namespace/name" line (-n names the namespace of
objects that name none, as for proxy-config):
  - the iptables-restore input for IPv4 (and, with --ipv6, the ip6tables-restore input);
  - the nftables transaction (nft -f input) when istio-init's args carry --native-nftables.

The settings are read as istio-iptables reads them: its flags (over its defaults), and the
istio-init container's env (PROXY_UID, ISTIO_META_DNS_CAPTURE, ISTIO_OUTBOUND_OWNER_GROUPS, ...;
a valueFrom the pod determines is resolved: fieldRef on its namespace, service account, labels,
annotations or a Pod's name, resourceFieldRef on a CPU amount the spec sets; other values are
known only in the cluster and are skipped with a warning).

Two facts istio-iptables finds out only when it runs in the pod:
  --ipv6           whether the pod's address is IPv6 (then it also programs ip6tables);
  --dns-servers    the name servers of the pod's /etc/resolv.conf: with DNS capture on
                   (ISTIO_META_DNS_CAPTURE / --redirect-dns) but not --capture-all-dns, DNS
                   sent to them goes to the istio-agent; without them no DNS rules are shown.

A pod injected for the istio-cni plugin has istio-validation instead of istio-init: the plugin
programs the rules, from the pod's traffic.sidecar.istio.io annotations and its istio-proxy
container; they are shown as the plugin computes them. A pod with neither container captures
nothing (interception mode NONE) if it has istio-proxy, and is listed as not injected if not.
Errors name the document (Kind "name") and the cause, and exit with code 1.

Examples:
  meshinject kube-inject -f app.yaml | meshinject capture-rules -f -
  kubectl get pod web-7d4b9 -o yaml | meshinject capture-rules -f - --ipv6
  meshinject capture-rules -f injected.yaml --dns-servers 10.96.0.10
`;

/** `meshinject capture-rules`: register with `program.addCommand(captureRulesCommand(io))`. */
export function captureRulesCommand(io: CaptureRulesIO): Command {
  return new Command("capture-rules")
    .description("show the iptables/nftables rules the istio-init container of each injected pod programs")
    .addOption(filenameOption())
    .addOption(namespaceOption())
    .option("--ipv6", "also show the IPv6 rules, as for a pod whose address is IPv6 (detected at run time)")
    .option(
      "--dns-servers <addresses>",
      "comma-separated name servers of the pod's /etc/resolv.conf, used when DNS is redirected but not all DNS captured",
    )
    .addHelpText("after", HELP)
    .action((opts: CaptureRulesCliOptions) =>
      runManifestCommand(io, isUserError, async () => {
        const dnsServers =
          opts.dnsServers === undefined
            ? []
            : opts.dnsServers
                .split(",")
                .map((s) => s.trim())
                .filter((s) => s !== "");
        // Checked up front, so that a mistyped address is an error even when no pod redirects DNS.
        splitNameServers(dnsServers);
        const input = await io.readInput(opts.filename);
        const result = captureRules(input, {
          source: inputName(opts.filename),
          namespace: opts.namespace,
          ipv6: opts.ipv6 ?? false,
          dnsServers,
        });
        for (const warning of result.warnings) io.stderr(`meshinject: warning: ${warning}\n`);
        io.stdout(result.text);
      }),
    );
}
