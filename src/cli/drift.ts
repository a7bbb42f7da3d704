/**
 * `meshinject drift`: which pods run a sidecar today's injector would no longer give them, and what
 * a configuration change would do before it is made. The I/O around src/report/drift*.ts: a
 * manifest (-f) with the configuration kube-inject's flags choose, or the live cluster
 * (--from-cluster: pods read a page at a time, each revision's ConfigMaps, the namespaces and the
 * MutatingWebhookConfigurations, as `kube-inject --from-cluster` and live `check-inject` read them);
 * planned changes with --config-before/--config-after (files of ConfigMaps) or
 * --revision-before/--revision-after (the cluster's revisions). The report on stdout (table, json,
 * yaml; schema in docs/drift.md), progress on stderr.
 */

import type { Command } from "commander";
import { type Cluster, ClusterError, connectCluster } from "../cluster/client.js";
import { readClusterConfig } from "../cluster/istio-config.js";
import { isRecord } from "../go/json.js";
import { writeYaml } from "../go/yaml/write.js";
import { ConfigError } from "../inject/config.js";
import { defaultConfigFiles } from "../inject/defaults.js";
import { type InjectorSources, type LoadedInjector, loadInjector } from "../inject/injector.js";
import { parseInjectionStatus } from "../inject/pod.js";
import type { Labels } from "../inject/policy-selector.js";
import { oneLine } from "../kube/one-line.js";
import { readStream } from "../kube/read-stream.js";
import { calledWebhooks } from "../report/check-inject-report.js";
import { DriftChecker, type DriftOptions, type DriftSide, revisionKey, revisionName } from "../report/drift.js";
import { CachedDriftChecker } from "../report/drift-cache.js";
import { DriftInputError, driftOfManifest } from "../report/drift-documents.js";
import { type DriftReport, DriftReportBuilder, hasDrift } from "../report/drift-report.js";
import { driftTable } from "../report/drift-table.js";
import { isIstioConfiguration } from "../webhook/webhook-match.js";
import { CliError } from "./cli-error.js";
import type { CliIo } from "./io.js";
import {
  addInjectorOptions,
  type InjectorFlags,
  injectorSources,
  loadCliInjector,
  readInput,
} from "./load-injector.js";
import { inputName } from "./manifest-command.js";
import { requestTimeoutMs } from "./request-timeout.js";

export interface DriftCliOptions extends InjectorFlags {
  filename?: string;
  namespace?: string;
  selector?: string;
  output: string;
  diff?: boolean;
  exitCode?: boolean;
  nativeSidecars: string;
  configBefore?: string;
  configAfter?: string;
  revisionBefore?: string;
  revisionAfter?: string;
}

const REV_LABEL = "istio.io/rev";
const NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";
const enc = encodeURIComponent;
/** Pods read per request (the API server's `limit`): a page is what the command holds at once. */
const PAGE_SIZE = 250;
/** Progress is written every this many pods. */
const PROGRESS_EVERY = 1000;

function nativeSetting(value: string): boolean | undefined {
  switch (value) {
    case "on":
      return true;
    case "off":
      return false;
    case "auto":
      return undefined;
    default:
      throw new CliError(`--native-sidecars must be on, off or auto, got ${JSON.stringify(value)}`);
  }
}

/** Loads an injector from configuration texts with the run's environment; a bad one is an error naming it. */
function load(sources: InjectorSources, io: CliIo): LoadedInjector {
  try {
    const loaded = loadInjector(sources, {
      env: (name) => io.env[name],
      compliancePolicy: io.env.COMPLIANCE_POLICY ?? "",
    });
    for (const warning of loaded.warnings) io.stderr.write(`meshinject: warning: ${warning}\n`);
    return loaded;
  } catch (e) {
    if (e instanceof ConfigError) throw new CliError(oneLine(e.message));
    throw e;
  }
}

/**
 * A configuration file of --config-before/--config-after: the ConfigMaps as
 * `kubectl -n istio-system get cm istio-sidecar-injector istio -o yaml` writes them (a List, or
 * documents): `config` and `values` of the injector's, `mesh` of the mesh's; a key none of them has
 * is the built-in default's for the revision.
 */
export function configMapsSources(text: string, source: string, revision: string): InjectorSources {
  const defaults = defaultConfigFiles(revision);
  const found: Partial<Record<"config" | "values" | "mesh", string>> = {};
  const visit = (doc: unknown) => {
    if (!isRecord(doc)) return;
    if (doc.kind === "List" && Array.isArray(doc.items)) {
      for (const item of doc.items) visit(item);
      return;
    }
    if (doc.kind !== "ConfigMap" || !isRecord(doc.data)) return;
    for (const key of ["config", "values", "mesh"] as const) {
      const value = doc.data[key];
      if (typeof value === "string") found[key] ??= value;
    }
  };
  for (const { obj } of readStream(text, source, (message) => new CliError(message))) visit(obj);
  if (found.config === undefined && found.values === undefined && found.mesh === undefined) {
    throw new CliError(
      `${source}: no ConfigMap with data.config, data.values or data.mesh (save them with kubectl -n istio-system get cm istio-sidecar-injector istio -o yaml)`,
    );
  }
  return {
    config: found.config ?? defaults.config,
    values: found.values ?? defaults.values,
    mesh: found.mesh ?? defaults.mesh,
    names: {
      config: found.config ? source : "built-in config",
      values: found.values ? source : "built-in values",
      mesh: found.mesh ? source : "built-in mesh config",
    },
  };
}

/** A configuration that serves one revision only. */
function oneRevision(revision: string, injector: LoadedInjector): DriftSide {
  return { injectorFor: (r) => (r === revision ? { revision, injector } : undefined) };
}

function checkFlags(opts: DriftCliOptions): void {
  if (!["table", "json", "yaml"].includes(opts.output)) {
    throw new CliError(`-o must be table, json or yaml, got ${JSON.stringify(opts.output)}`);
  }
  if ((opts.configBefore === undefined) !== (opts.configAfter === undefined)) {
    throw new CliError("--config-before and --config-after go together");
  }
  if ((opts.revisionBefore === undefined) !== (opts.revisionAfter === undefined)) {
    throw new CliError("--revision-before and --revision-after go together");
  }
  if (opts.configBefore !== undefined && opts.revisionBefore !== undefined) {
    throw new CliError("give --config-before/--config-after or --revision-before/--revision-after, not both");
  }
  if (opts.revisionBefore !== undefined && opts.filename !== undefined) {
    throw new CliError(
      "--revision-before/--revision-after compare the cluster's revisions: use --from-cluster, not -f",
    );
  }
  if (opts.filename === undefined && opts.fromCluster !== true) {
    throw new CliError("name the pods: -f FILE (a manifest), or --from-cluster for the live pods");
  }
}

/** Writes the report as asked; fails the run for --exit-code when anything needs a restart. */
function writeReport(report: DriftReport, opts: DriftCliOptions, io: CliIo, fail: () => void): void {
  if (opts.output === "json") io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else if (opts.output === "yaml") io.stdout.write(writeYaml(JSON.parse(JSON.stringify(report))));
  else io.stdout.write(driftTable(report, opts.diff === true));
  if (opts.exitCode && hasDrift(report)) fail();
}

/** The checker's options from the flags. */
function checkerOptions(
  opts: DriftCliOptions,
  style: DriftOptions["style"],
  revision: string,
  current: DriftSide,
  planned: DriftSide | undefined,
  io: CliIo,
): DriftOptions {
  return {
    style,
    namespace: opts.namespace ?? "default",
    defaultRevision: revision,
    nativeSidecars: nativeSetting(opts.nativeSidecars),
    diff: opts.diff === true,
    current,
    ...(planned !== undefined ? { planned } : {}),
    warn: (message) => io.stderr.write(`meshinject: warning: ${message}\n`),
  };
}

/** --config-before and --config-after (both given), each a configuration of `revision`. */
async function plannedConfigs(
  opts: DriftCliOptions,
  revision: string,
  io: CliIo,
): Promise<{ current: DriftSide; planned: DriftSide }> {
  const side = async (file: string) =>
    oneRevision(revision, load(configMapsSources(await readInput(file, "configuration file", io), file, revision), io));
  return { current: await side(opts.configBefore as string), planned: await side(opts.configAfter as string) };
}

/** `meshinject drift -f FILE`: a manifest against the configuration kube-inject's flags choose. */
async function manifestDrift(opts: DriftCliOptions, io: CliIo): Promise<DriftReport> {
  const source = inputName(opts.filename as string);
  const revision = revisionKey(opts.revision);
  const notes: string[] = [];
  let current: DriftSide;
  let planned: DriftSide | undefined;
  if (opts.configBefore !== undefined && opts.configAfter !== undefined) {
    ({ current, planned } = await plannedConfigs(opts, revision, io));
    notes.push(`planned change: ${opts.configBefore} → ${opts.configAfter} (revision ${revisionName(revision)})`);
  } else {
    const sources = await injectorSources(opts, io);
    current = oneRevision(revisionKey(sources.revision), loadCliInjector(sources, opts.valuesFile, io));
    notes.push(
      `configuration: ${sources.names?.config ?? "built-in config"} (revision ${revisionName(sources.revision)})`,
    );
  }
  const input = await readInput(opts.filename as string, "manifest", io);
  const options = checkerOptions(opts, "kube-inject", revision, current, planned, io);
  try {
    return driftOfManifest(input, source, options, notes);
  } catch (e) {
    if (e instanceof DriftInputError) throw new CliError(e.message);
    throw e;
  }
}

/** Each revision's injector as the cluster's ConfigMaps give it, read once; undefined when the revision has none. */
class ClusterRevisions {
  private readonly loaded = new Map<string, LoadedInjector | undefined>();

  constructor(
    private readonly cluster: Cluster,
    private readonly istioNamespace: string,
    private readonly io: CliIo,
  ) {}

  async ensure(revision: string): Promise<void> {
    if (this.loaded.has(revision)) return;
    try {
      const texts = await readClusterConfig(this.cluster, {
        istioNamespace: this.istioNamespace,
        revision,
        want: { config: true, values: true, mesh: true },
      });
      this.loaded.set(
        revision,
        load(
          { config: texts.config ?? "", values: texts.values ?? "", mesh: texts.mesh ?? "", names: texts.names },
          this.io,
        ),
      );
    } catch (e) {
      if (e instanceof ClusterError && e.status === 404) {
        this.loaded.set(revision, undefined);
        return;
      }
      if (e instanceof ClusterError) {
        // Not kube-inject's advice to pass files: here they would stand for one revision only.
        const reason = e.message.split("; save it with")[0];
        throw new ClusterError(`${reason}: revision ${revisionName(revision)}'s configuration is needed`, e.status);
      }
      throw e;
    }
  }

  get(revision: string): LoadedInjector | undefined {
    return this.loaded.get(revision);
  }

  /** The revisions that have a configuration, as read so far. */
  known(): string[] {
    return [...this.loaded.entries()].filter(([, v]) => v !== undefined).map(([k]) => revisionName(k));
  }
}

/** The revision a pod's sidecar names (report/drift.ts podRevision), else its istio.io/rev label, without typing the pod. */
function rawRevision(pod: Record<string, unknown>): string | undefined {
  const meta = isRecord(pod.metadata) ? pod.metadata : {};
  const annotations = isRecord(meta.annotations) ? meta.annotations : {};
  if (typeof annotations[REV_LABEL] === "string") return revisionKey(annotations[REV_LABEL]);
  const status = parseInjectionStatus(pod as { metadata?: { annotations?: Record<string, string> } });
  if (status !== undefined && status.revision !== "") return revisionKey(status.revision);
  const labels = isRecord(meta.labels) ? meta.labels : {};
  const label = labels[REV_LABEL];
  if (typeof label === "string" && label !== "") return revisionKey(label);
  return status === undefined ? undefined : "";
}

/** The Istio webhook configurations and which revision each belongs to (its istio.io/rev label). */
function webhookSide(
  configs: unknown[],
  namespaces: Map<string, Labels>,
): (namespace: string, podLabels: Record<string, string>) => string[] {
  const revisionOf = new Map<string, string>();
  for (const c of configs.filter(isIstioConfiguration)) {
    const meta = isRecord(c) && isRecord(c.metadata) ? c.metadata : {};
    const labels = isRecord(meta.labels) ? meta.labels : {};
    revisionOf.set(
      String(meta.name ?? ""),
      revisionKey(typeof labels[REV_LABEL] === "string" ? labels[REV_LABEL] : ""),
    );
  }
  return (namespace, podLabels) => {
    const nsLabels = { [NAMESPACE_NAME_LABEL]: namespace, ...(namespaces.get(namespace) ?? {}) } as Labels;
    const called = calledWebhooks(configs, nsLabels, podLabels as Labels);
    return [...new Set(called.map((c) => revisionOf.get(c.configuration) ?? ""))];
  };
}

/** `meshinject drift --from-cluster`: the live pods, a page at a time. */
async function clusterDrift(opts: DriftCliOptions, io: CliIo): Promise<DriftReport> {
  const started = performance.now();
  const cluster = await connectCluster({
    kubeconfig: opts.kubeconfig,
    context: opts.context,
    timeoutMs: requestTimeoutMs(opts.requestTimeout),
  });
  const istioNamespace = opts.istioNamespace ?? "istio-system";
  const notes = [`live pods from ${cluster.where}`];
  const revisions = new ClusterRevisions(cluster, istioNamespace, io);
  const revision = revisionKey(opts.revision);

  // The namespaces' labels (the webhooks' namespaceSelector) and the installed webhooks.
  const namespaces = new Map<string, Labels>();
  const nsList = opts.namespace
    ? [(await cluster.get(`/api/v1/namespaces/${enc(opts.namespace)}`, `Namespace ${opts.namespace}`)) as unknown]
    : [];
  if (!opts.namespace)
    for await (const page of cluster.list("/api/v1/namespaces", "the Namespaces")) nsList.push(...page);
  for (const ns of nsList) {
    const meta = isRecord(ns) && isRecord(ns.metadata) ? ns.metadata : {};
    namespaces.set(String(meta.name ?? ""), (isRecord(meta.labels) ? meta.labels : {}) as Labels);
  }

  let current: DriftSide;
  let planned: DriftSide | undefined;
  let only: string | undefined;
  if (opts.revisionBefore !== undefined && opts.revisionAfter !== undefined) {
    const [before, after] = [revisionKey(opts.revisionBefore), revisionKey(opts.revisionAfter)];
    await revisions.ensure(before);
    await revisions.ensure(after);
    for (const r of [before, after]) {
      if (revisions.get(r) === undefined) {
        throw new CliError(
          `revision ${revisionName(r)} has no ConfigMap istio-sidecar-injector${r ? `-${r}` : ""} in ${istioNamespace}`,
        );
      }
    }
    current = oneRevision(before, revisions.get(before) as LoadedInjector);
    const afterInjector = revisions.get(after) as LoadedInjector;
    planned = { injectorFor: (r) => (r === before ? { revision: after, injector: afterInjector } : undefined) };
    only = before;
    notes.push(`planned change: the pods of revision ${revisionName(before)} moved to revision ${revisionName(after)}`);
  } else if (opts.configBefore !== undefined && opts.configAfter !== undefined) {
    ({ current, planned } = await plannedConfigs(opts, revision, io));
    only = revision;
    notes.push(
      `planned change: ${opts.configBefore} → ${opts.configAfter} (the pods of revision ${revisionName(revision)})`,
    );
  } else {
    const webhooks: unknown[] = [];
    for await (const page of cluster.list(
      "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
      "the MutatingWebhookConfigurations",
    )) {
      webhooks.push(...page);
    }
    const called = webhookSide(webhooks, namespaces);
    current = {
      injectorFor: (r) => {
        const injector = revisions.get(r);
        return injector === undefined ? undefined : { revision: r, injector };
      },
      webhookRevisions: called,
    };
    // Every revision a webhook injects for is read up front; the pods' own revisions as they come.
    for (const c of webhooks.filter(isIstioConfiguration)) {
      const meta = isRecord(c) && isRecord(c.metadata) ? c.metadata : {};
      const labels = isRecord(meta.labels) ? meta.labels : {};
      await revisions.ensure(revisionKey(typeof labels[REV_LABEL] === "string" ? labels[REV_LABEL] : ""));
    }
  }

  const checker = new CachedDriftChecker(
    new DriftChecker(checkerOptions(opts, "webhook", revision, current, planned, io)),
  );
  const builder = new DriftReportBuilder(planned === undefined ? "running" : "planned", notes);
  const path = opts.namespace ? `/api/v1/namespaces/${enc(opts.namespace)}/pods` : "/api/v1/pods";
  const query = opts.selector ? `?labelSelector=${enc(opts.selector)}` : "";
  const what = `pods${opts.namespace ? ` in ${opts.namespace}` : ""}${opts.selector ? ` -l ${opts.selector}` : ""}`;
  let next = PROGRESS_EVERY;
  for await (const page of cluster.list(`${path}${query}`, what, PAGE_SIZE)) {
    for (const item of page) {
      const own = rawRevision(item);
      if (only !== undefined && own !== only) continue;
      if (own !== undefined && planned === undefined) await revisions.ensure(own);
      builder.add(checker.check({ apiVersion: "v1", kind: "Pod", ...item }));
      if (builder.count >= next) {
        io.stderr.write(
          `meshinject: drift: ${builder.count} pods compared (${((performance.now() - started) / 1000).toFixed(1)} s)\n`,
        );
        next += PROGRESS_EVERY;
      }
    }
  }
  notes.push(`revisions with an injector configuration: ${revisions.known().join(", ") || "none"}`);
  return builder.report();
}

const HELP = `
For every pod (--from-cluster: the live pods, all namespaces or -n; -f: the pods and workload
templates of a manifest), meshinject uninjects it, injects it again with the configuration of the
revision it belongs to, decides again whether it should have a sidecar at all (the injector's policy,
and live: the webhooks the API server calls for its namespace and labels), and compares. Pods are
grouped by owner (Deployment, StatefulSet, DaemonSet, Job, CronJob, bare Pod):
  up to date        the sidecar is the one injected now
  stale             it differs: what would change (proxy image and tag, args, env, resources,
                    volumes, init containers, annotations); --diff for the whole diff
  missing           no sidecar, but the pod is injected when it is created now
  unexpected        a sidecar, but the pod is not injected now
  unknown revision  the pod's revision (istio.io/rev, else sidecar.istio.io/status) has no configuration
Then the totals and the kubectl rollout restart commands that replace the stale, missing and
unexpected sidecars (printed, never run).

Live (--from-cluster), each revision's configuration is read from ConfigMaps
istio-sidecar-injector[-REV] (config, values) and istio[-REV] (mesh) in -i (istio-system). With -f,
the configuration is kube-inject's: --injectConfigFile, --valuesFile, --meshConfigFile,
--operatorFileName, the cluster's ConfigMaps with --from-cluster's flags, else the built-in default,
for revision -r.

Planned changes: --config-before A --config-after B (each the ConfigMaps as
\`kubectl -n istio-system get cm istio-sidecar-injector istio -o yaml\` writes them; keys left out are
the built-in default's) compare each pod as A injects it with the pod as B would;
--revision-before X --revision-after Y (live) does the same for the pods of revision X moved to Y.

-o json|yaml prints the report as data (schema: docs/drift.md). --exit-code exits with 1 when
anything is stale, missing or unexpected (for CI); errors also exit with 1 and print a
\`meshinject:\` line on stderr. Progress goes to stderr every ${PROGRESS_EVERY} pods.

Examples:
  meshinject drift --from-cluster
  meshinject drift --from-cluster -n shop --diff
  meshinject drift --from-cluster --revision-before 1-21 --revision-after 1-22
  meshinject drift -f deploy/ --exit-code -o json
  kubectl -n istio-system get cm istio-sidecar-injector istio -o yaml > before.yaml
  meshinject drift -f app.yaml --config-before before.yaml --config-after after.yaml
`;

/** Adds `meshinject drift` to the program. */
export function registerDrift(program: Command, io: CliIo, fail: () => void): void {
  addInjectorOptions(
    program
      .command("drift")
      .description(
        "which pods run a sidecar today's injector would no longer give them (or a planned change would alter)",
      )
      .option(
        "-f, --filename <file>",
        "pods or workloads in YAML; - reads standard input (else --from-cluster's live pods)",
      ),
    "to compare with",
  )
    .option("-n, --namespace <ns>", "live: only this namespace's pods; -f: the namespace of objects that name none")
    .option("-l, --selector <k=v,...>", "live: only the pods this label selector matches")
    .option("-o, --output <format>", "table, json or yaml", "table")
    .option("--diff", "print the whole diff of each stale pod (once per owner and change)")
    .option("--exit-code", "exit with 1 when anything is stale, missing or unexpected")
    .option(
      "--native-sidecars <on|off|auto>",
      "inject the proxy as a native sidecar (auto: as each pod runs it)",
      "auto",
    )
    .option("--config-before <file>", "planned change: the configuration in force (ConfigMaps YAML)")
    .option("--config-after <file>", "planned change: the configuration to compare with (ConfigMaps YAML)")
    .option("--revision-before <rev>", "planned change, live: the revision whose pods move")
    .option("--revision-after <rev>", "planned change, live: the revision they move to")
    .addHelpText("after", HELP)
    .action(async (opts: DriftCliOptions) => {
      checkFlags(opts);
      const live = opts.filename === undefined;
      const report = live ? await clusterDrift(opts, io) : await manifestDrift(opts, io);
      writeReport(report, opts, io, fail);
    });
}
