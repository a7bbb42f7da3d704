/**
 * `meshinject capture-rules`: what the `istio-init` container of each injected pod will program,
 * a debugging aid. The work is the pure {@link captureRules} (src/agent/capture/capture-report.ts:
 * each pod's istio-iptables arguments and environment, or for a CNI pod the istio-cni plugin's
 * reading of it, turned into iptables-restore input or an nftables transaction); the command adds
 * the reading of the input and the printing. Its errors are printed here (`meshinject: MESSAGE`,
 * exit code 1), one line each.
 */
import { readFile } from "node:fs/promises";
import { Command } from "commander";
import { CaptureRulesError, captureRules } from "../agent/capture/capture-report.js";
import { PodCaptureError, splitNameServers } from "../agent/capture/pod-capture.js";

/** What the command reads and writes; replaceable for tests. */
export interface CaptureRulesIO {
  /** The input text: a file, or standard input for `-`. */
  readInput(path: string): Promise<string>;
  stdout(text: string): void;
  stderr(text: string): void;
  /** Marks the run as failed (exit code 1). */
  fail(): void;
}

async function readInput(path: string): Promise<string> {
  let text: string;
  try {
    if (path === "-") {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      text = Buffer.concat(chunks).toString("utf8");
    } else {
      text = await readFile(path, "utf8");
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EISDIR") throw new CaptureRulesError(`${path}: is a directory`);
    throw new CaptureRulesError(`cannot read ${path}: ${(e as Error).message}`);
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

const DEFAULT_IO: CaptureRulesIO = {
  readInput,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  fail: () => {
    process.exitCode = 1;
  },
};

interface CaptureRulesCliOptions {
  filename: string;
  ipv6?: boolean;
  dnsServers?: string;
}

const HELP = `
For every Pod, Deployment, DaemonSet, StatefulSet, ReplicaSet, ReplicationController, Job, CronJob
and DeploymentConfig (Lists too) of an injected manifest, prints what its istio-init container
(istio-iptables) will program, under a "# Kind namespace/name" line:
  - the iptables-restore input for IPv4 (and, with --ipv6, the ip6tables-restore input);
  - the nftables transaction (nft -f input) when istio-init's args carry --native-nftables.

The settings are read as istio-iptables reads them: its flags (over its defaults), and the
istio-init container's env (PROXY_UID, ISTIO_META_DNS_CAPTURE, ISTIO_OUTBOUND_OWNER_GROUPS, ...;
values from valueFrom are known only in the cluster and are skipped with a warning).

Two facts istio-iptables finds out only when it runs in the pod:
  --ipv6           whether the pod's address is IPv6 (then it also programs ip6tables);
  --dns-servers    the name servers of the pod's /etc/resolv.conf: with DNS capture on
                   (ISTIO_META_DNS_CAPTURE / --redirect-dns) but not --capture-all-dns, DNS
                   sent to them goes to the istio-agent; without them no DNS rules are shown.

A pod injected for the istio-cni plugin has istio-validation instead of istio-init: the plugin
programs the rules, from the pod's traffic.sidecar.istio.io annotations and its istio-proxy
container; they are shown as the plugin computes them. A pod without either container is listed
as not injected. Errors name the document (Kind "name") and the cause, and exit with code 1.

Examples:
  meshinject kube-inject -f app.yaml | meshinject capture-rules -f -
  kubectl get pod web-7d4b9 -o yaml | meshinject capture-rules -f - --ipv6
  meshinject capture-rules -f injected.yaml --dns-servers 10.96.0.10
`;

/** `meshinject capture-rules`: register with `program.addCommand(captureRulesCommand())`. */
export function captureRulesCommand(io: CaptureRulesIO = DEFAULT_IO): Command {
  return new Command("capture-rules")
    .description("show the iptables/nftables rules the istio-init container of each injected pod programs")
    .requiredOption("-f, --filename <file>", "injected Kubernetes YAML; - reads standard input (required)")
    .option("--ipv6", "also show the IPv6 rules, as for a pod whose address is IPv6 (detected at run time)")
    .option(
      "--dns-servers <addresses>",
      "comma-separated name servers of the pod's /etc/resolv.conf, used when DNS is redirected but not all DNS captured",
    )
    .addHelpText("after", HELP)
    .action(async (opts: CaptureRulesCliOptions) => {
      try {
        const source = opts.filename === "-" ? "stdin" : opts.filename;
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
        const result = captureRules(input, { source, ipv6: opts.ipv6 ?? false, dnsServers });
        for (const warning of result.warnings) io.stderr(`meshinject: warning: ${warning}\n`);
        io.stdout(result.text);
      } catch (e) {
        if (!(e instanceof CaptureRulesError || e instanceof PodCaptureError)) throw e;
        io.stderr(`meshinject: ${e.message}\n`);
        io.fail();
      }
    });
}
