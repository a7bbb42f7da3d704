/**
 * `meshinject capture-rules`: what the `istio-init` container of each injected pod will program,
 * a debugging aid. For every workload of a YAML stream it reads the istio-init container's
 * `istio-iptables` arguments and environment (src/agent/capture/flags.ts) and prints the
 * iptables-restore input, or the nftables transaction with `--native-nftables`
 * (src/agent/capture/iptables.ts, nftables.ts). A pod injected for the istio-cni plugin has
 * `istio-validation` instead; its rules come from the pod's annotations and proxy container
 * (src/agent/capture/cni-sidecar.ts).
 *
 * The work is the pure {@link captureRules}; the command adds the reading of the input and the
 * printing. Its errors are printed here (`meshinject: MESSAGE`, exit code 1), one line each.
 */
import { readFile } from "node:fs/promises";
import { Command } from "commander";
import { CniAnnotationError, cniSidecarCaptureConfig } from "../agent/capture/cni-sidecar.js";
import type { CaptureConfig } from "../agent/capture/config.js";
import { CaptureFlagError, captureEnvNames, parseCaptureArgs } from "../agent/capture/flags.js";
import { iptablesRestore } from "../agent/capture/iptables.js";
import { AddressError, is4, parseAddr } from "../agent/capture/netip.js";
import { nftablesRules } from "../agent/capture/nftables.js";
import { CaptureRangeError } from "../agent/capture/ranges.js";
import {
  CaptureValidationError,
  validateIPv4LoopbackCidr,
  validateIptablesBinary,
  validateOwnerGroups,
} from "../agent/capture/validate.js";
import { INIT_CONTAINER, isRecord, PROXY_CONTAINER, VALIDATION_CONTAINER } from "../inject/pod.js";
import { splitYamlStream, YamlStreamError } from "../kube/stream.js";
import { InvalidWorkloadError, type WorkloadRef, workloadOf } from "../kube/workloads.js";
import { readYaml, YamlError } from "../kube/yaml.js";

/** An error for the user (exit code 1, one line naming the input, the document and the cause). */
export class CaptureRulesError extends Error {
  override name = "CaptureRulesError";
}

export interface CaptureRulesOptions {
  /** The input's name for messages (`stdin`, a path). */
  source: string;
  /** Show the rules of a pod with an IPv6 address (istio-iptables decides this at run time). */
  ipv6?: boolean;
  /** The pod's /etc/resolv.conf name servers, used when DNS is redirected but not all captured. */
  dnsServers?: readonly string[];
}

export interface CaptureRulesResult {
  /** The rules, per workload, each under a `# Kind namespace/name` line. */
  text: string;
  /** Things the output cannot show or that the pod may not mean, one line each. */
  warnings: string[];
}

type Json = Record<string, unknown>;

function text(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/** `Kind "name"`, for messages. */
function describe(obj: Json): string {
  const kind = text(obj.kind) || "(no kind)";
  const name = isRecord(obj.metadata) ? text(obj.metadata.name) : "";
  return name ? `${kind} ${JSON.stringify(name)}` : kind;
}

/** `Kind namespace/name` (or `Kind name` without a namespace), for the section headers. */
function headerName(obj: Json): string {
  const meta = isRecord(obj.metadata) ? obj.metadata : {};
  const namespace = text(meta.namespace);
  const name = text(meta.name) || "(no name)";
  return `${text(obj.kind)} ${namespace ? `${namespace}/${name}` : name}`;
}

/** An argument list as a shell would need it typed (empty and spaced arguments quoted). */
function shellWords(args: readonly string[]): string {
  return args.map((a) => (/^[A-Za-z0-9_./:=,@%+-]+$/.test(a) ? a : `'${a.replaceAll("'", `'\\''`)}'`)).join(" ");
}

function containersOf(spec: Json, key: "containers" | "initContainers"): Json[] {
  const list = spec[key];
  return Array.isArray(list) ? list.filter(isRecord) : [];
}

/** A container field that must be a list of strings (`args`, `command`); empty when absent. */
function stringList(container: Json, field: string): string[] {
  const v = container[field];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new CaptureRulesError(`container ${text(container.name)}: ${field} is not a list`);
  return v.map((item, i) => {
    if (typeof item === "string") return item;
    if (typeof item === "number" || typeof item === "boolean") return String(item);
    throw new CaptureRulesError(`container ${text(container.name)}: ${field}[${i}] is not a string`);
  });
}

/** The proxy container's variables the istio-cni plugin reads (cni-sidecar.ts). */
const CNI_PROXY_ENV: ReadonlySet<string> = new Set(["ISTIO_META_DNS_CAPTURE", "ISTIO_DUAL_STACK", "INVALID_DROP"]);

/**
 * A container's environment as name → value. Values from `valueFrom` and `envFrom` are known only
 * in the cluster: they are left out, with a warning when the variable is one of `relevant`.
 */
function containerEnv(
  container: Json,
  relevant: ReadonlySet<string>,
  warn: (message: string) => void,
): Record<string, string> {
  const env: Record<string, string> = {};
  const name = text(container.name);
  for (const entry of Array.isArray(container.env) ? container.env : []) {
    if (!isRecord(entry) || typeof entry.name !== "string") continue;
    if (entry.valueFrom !== undefined && entry.valueFrom !== null) {
      if (relevant.has(entry.name))
        warn(
          `container ${name}: env ${entry.name} comes from valueFrom, which only the cluster can resolve; left unset`,
        );
      continue;
    }
    const value = entry.value;
    env[entry.name] = typeof value === "string" ? value : value === undefined || value === null ? "" : String(value);
  }
  if (Array.isArray(container.envFrom) && container.envFrom.length > 0) {
    warn(`container ${name}: envFrom (ConfigMaps, Secrets) is not read; only its env entries with a value are used`);
  }
  return env;
}

/** A securityContext id (runAsUser / runAsGroup), or null. */
function securityId(container: Json, field: string): number | null {
  const sc = container.securityContext;
  if (!isRecord(sc)) return null;
  const v = sc[field];
  return typeof v === "number" ? v : null;
}

function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isRecord(v)) return out;
  for (const [k, value] of Object.entries(v)) if (typeof value === "string") out[k] = value;
  return out;
}

/** The command line of istio-init (command + args), checked to run istio-iptables. */
function initCommandLine(container: Json): string[] {
  const command = stringList(container, "command");
  const args = stringList(container, "args");
  const line = [...command, ...args];
  const first = line[0];
  if (first !== undefined && !first.startsWith("-")) {
    const base = first.slice(first.lastIndexOf("/") + 1);
    if (base !== "istio-iptables" && base !== "pilot-agent") {
      throw new CaptureRulesError(
        `container ${text(container.name)} runs ${JSON.stringify(first)}, not istio-iptables: its rules cannot be read from its arguments`,
      );
    }
    if (base === "pilot-agent" && line[1] !== undefined && line[1] !== "istio-iptables" && !line[1].startsWith("-")) {
      throw new CaptureRulesError(
        `container ${text(container.name)} runs pilot-agent ${JSON.stringify(line[1])}, not pilot-agent istio-iptables`,
      );
    }
  }
  return line;
}

/** Name servers split by family, as istio-iptables splits the resolv.conf ones. */
function splitNameServers(servers: readonly string[]): { v4: string[]; v6: string[] } {
  const v4: string[] = [];
  const v6: string[] = [];
  for (const server of servers) {
    try {
      (is4(parseAddr(server)) ? v4 : v6).push(server);
    } catch (e) {
      if (!(e instanceof AddressError)) throw e;
      throw new CaptureRulesError(`--dns-servers: ${JSON.stringify(server)} is not an IP address`);
    }
  }
  return { v4, v6 };
}

/** Istio's checks on a config before it programs anything (tools/common/config Validate). */
function validate(config: CaptureConfig): void {
  validateOwnerGroups(config.OwnerGroupsInclude, config.OwnerGroupsExclude);
  validateIPv4LoopbackCidr(config.HostIPv4LoopbackCidr);
  validateIptablesBinary(config.ForceIptablesBinary);
}

/** The lines of a workload's section, and whether it is injected at all. */
interface Section {
  lines: string[];
  injected: boolean;
}

/** The section of one workload: header, where the settings come from, notes, the rules. */
function workloadSection(
  obj: Json,
  ref: WorkloadRef,
  options: CaptureRulesOptions,
  warn: (message: string) => void,
): Section {
  const lines = [`# ${headerName(obj)}`];
  const spec = ref.pod.spec;
  const inits = containersOf(spec, "initContainers");
  const init = inits.find((c) => c.name === INIT_CONTAINER);
  const validation = inits.find((c) => c.name === VALIDATION_CONTAINER);
  const proxy = [...containersOf(spec, "containers"), ...inits].find((c) => c.name === PROXY_CONTAINER);

  let config: CaptureConfig;
  if (init !== undefined) {
    const line = initCommandLine(init);
    const parsed = parseCaptureArgs(line, { env: containerEnv(init, captureEnvNames(), warn) });
    if (parsed.positional.length > 0) {
      warn(
        `container ${INIT_CONTAINER}: istio-iptables ignores the arguments ${parsed.positional.map((a) => JSON.stringify(a)).join(" ")} ` +
          "(a boolean flag takes its value as --flag=value, not --flag value)",
      );
    }
    config = parsed.config;
    lines.push(`# ${INIT_CONTAINER}: ${shellWords(line)}`);
    const fromEnv = Object.entries(parsed.fromEnv).map(([field, variable]) => `${variable} (${field})`);
    if (fromEnv.length > 0) lines.push(`# from ${INIT_CONTAINER}'s environment: ${fromEnv.join(", ")}`);
    if (config.SkipRuleApply) {
      lines.push("# --skip-rule-apply: istio-iptables programs no rules");
      return { lines, injected: true };
    }
  } else if (validation !== undefined) {
    // The CNI plugin programs the pod; istio-validation only checks. Its args still say which backend.
    const parsed = parseCaptureArgs(initCommandLine(validation));
    config = cniSidecarCaptureConfig(
      {
        annotations: stringMap(ref.pod.metadata.annotations),
        proxyContainerEnv: proxy === undefined ? {} : containerEnv(proxy, CNI_PROXY_ENV, warn),
        proxyRunAsUser: proxy === undefined ? null : securityId(proxy, "runAsUser"),
        proxyRunAsGroup: proxy === undefined ? null : securityId(proxy, "runAsGroup"),
      },
      { enableIPv6: options.ipv6 ?? false },
      (message) => warn(message),
    );
    config.NativeNftables = parsed.config.NativeNftables;
    lines.push(
      `# CNI mode: no ${INIT_CONTAINER}; ${VALIDATION_CONTAINER} only checks the rules, which the istio-cni plugin programs from the pod's annotations and its ${PROXY_CONTAINER} container`,
    );
  } else {
    lines.push(
      proxy === undefined
        ? `# not injected: no ${INIT_CONTAINER} or ${VALIDATION_CONTAINER} container (and no ${PROXY_CONTAINER})`
        : `# no traffic capture: the pod has ${PROXY_CONTAINER} but no ${INIT_CONTAINER} or ${VALIDATION_CONTAINER} container (interception mode NONE)`,
    );
    return { lines, injected: proxy !== undefined };
  }

  config.EnableIPv6 = options.ipv6 ?? false;
  if (config.RedirectDNS && !config.CaptureAllDNS) {
    const servers = splitNameServers(options.dnsServers ?? []);
    config.DNSServersV4 = servers.v4;
    config.DNSServersV6 = servers.v6;
    if (servers.v4.length + servers.v6.length === 0) {
      warn(
        "DNS capture is on without --capture-all-dns: istio-iptables captures DNS sent to the pod's /etc/resolv.conf " +
          "name servers, known only at run time, and none were given, so no DNS rules are shown; pass --dns-servers",
      );
    }
  }
  validate(config);
  if (config.DryRun) lines.push("# --dry-run: istio-iptables only prints these rules; nothing is applied");

  if (config.NativeNftables) {
    lines.push(`# nftables transaction (--native-nftables${config.EnableIPv6 ? ", IPv4 and IPv6" : ", IPv4"})`);
    lines.push(...nftablesRules(config));
    return { lines, injected: true };
  }
  if (config.CleanupOnly) {
    lines.push("# --cleanup-only: istio-iptables removes Istio's rules and adds none");
    return { lines, injected: true };
  }
  const restore = iptablesRestore(config);
  lines.push("# iptables-restore input (IPv4)", ...restore.v4);
  if (config.EnableIPv6) lines.push("# ip6tables-restore input (IPv6)", ...restore.v6);
  return { lines, injected: true };
}

/** Errors about a document's content that the user can fix: reported with the document. */
function isDocumentCause(e: unknown): e is Error {
  return (
    e instanceof CaptureRulesError ||
    e instanceof CaptureFlagError ||
    e instanceof CaptureValidationError ||
    e instanceof CaptureRangeError ||
    e instanceof CniAnnotationError ||
    e instanceof InvalidWorkloadError ||
    e instanceof YamlError
  );
}

/**
 * The capture rules of every workload in a YAML stream (Lists included, item by item). Throws
 * CaptureRulesError naming the input, the document and the cause; also when no workload of the
 * input is injected.
 */
export function captureRules(input: string, options: CaptureRulesOptions): CaptureRulesResult {
  let docs: string[];
  try {
    docs = splitYamlStream(input);
  } catch (e) {
    if (e instanceof YamlStreamError) throw new CaptureRulesError(`${options.source}: ${e.message}`);
    throw e;
  }
  const sections: string[][] = [];
  const warnings: string[] = [];
  let workloads = 0;
  let injected = 0;
  const visit = (obj: unknown, prefix: string, inList: boolean) => {
    if (!isRecord(obj)) return;
    const here = `${prefix} (${describe(obj)})`;
    if (obj.kind === "List") {
      // Items are workloads of their own; a List inside a List is not read (kube-inject skips it too).
      if (inList) return;
      const items = Array.isArray(obj.items) ? obj.items : [];
      for (const [j, item] of items.entries()) visit(item, `${here} item ${j + 1}`, true);
      return;
    }
    try {
      const ref = workloadOf(obj);
      if (ref === undefined) return;
      workloads++;
      const section = workloadSection(obj, ref, options, (message) => warnings.push(`${here}: ${message}`));
      if (section.injected) injected++;
      sections.push(section.lines);
    } catch (e) {
      if (isDocumentCause(e)) throw new CaptureRulesError(`${here}: ${e.message}`, { cause: e });
      throw e;
    }
  };
  for (const [i, raw] of docs.entries()) {
    const where = `${options.source}: document ${i + 1}`;
    let obj: unknown;
    try {
      obj = readYaml(raw);
    } catch (e) {
      if (e instanceof YamlError) throw new CaptureRulesError(`${where}: ${e.message}`, { cause: e });
      throw e;
    }
    visit(obj, where, false);
  }
  if (workloads === 0) {
    throw new CaptureRulesError(
      `${options.source}: no workloads (Pod, Deployment, DaemonSet, StatefulSet, ReplicaSet, Job, CronJob...) in the input`,
    );
  }
  if (injected === 0) {
    throw new CaptureRulesError(
      `${options.source}: no injected pods: none of the ${workloads} workload(s) has an ${INIT_CONTAINER}, ${VALIDATION_CONTAINER} or ${PROXY_CONTAINER} container; inject them first (meshinject kube-inject -f FILE)`,
    );
  }
  return { text: `${sections.map((lines) => lines.join("\n")).join("\n\n")}\n`, warnings };
}

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
        if (!(e instanceof CaptureRulesError)) throw e;
        io.stderr(`meshinject: ${e.message}\n`);
        io.fail();
      }
    });
}
