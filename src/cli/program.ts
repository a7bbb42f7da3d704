/**
 * The `meshinject` command line: option parsing and I/O. The work itself is done by pure modules
 * (values.ts builds the values, render.ts runs the template).
 */
import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { AGENT_USAGE } from "./agent-usage.js";
import { CliError } from "./cli-error.js";
import type { CliIo } from "./io.js";
import type { KubeInjectCliOptions } from "./kube-inject.js";
import type { ManifestCommandIO } from "./manifest-command.js";
import { OUTPUT_FLAG_HELP } from "./output-help.js";
import { readFileBytes } from "./read-input.js";

export { CliError } from "./cli-error.js";
export { processIo } from "./io.js";

interface RenderOptions {
  file: string;
  /** Repeatable options are undefined until given once. */
  values?: string[];
  set?: string[];
  setString?: string[];
  output?: string;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** package.json sits two levels up from both src/cli/ and dist/cli/. */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}

async function readText(path: string, what: string): Promise<string> {
  try {
    return (await readFileBytes(path)).toString("utf8");
  } catch (e) {
    throw new CliError(`cannot read ${what} ${path}: ${(e as Error).message}`);
  }
}

async function render(opts: RenderOptions, io: CliIo): Promise<void> {
  const [{ buildValues }, { renderTemplate }, { WriteError }, { writeOutput }] = await Promise.all([
    import("./values.js"),
    import("./render.js"),
    import("./output.js"),
    import("./output-target.js"),
  ]);
  const text = await readText(opts.file, "template");
  const files = [];
  for (const name of opts.values ?? []) files.push({ name, text: await readText(name, "values file") });
  const values = buildValues({ files, set: opts.set ?? [], setString: opts.setString ?? [] });
  // Template errors already name the file: `template: PATH:LINE:COL: ...`.
  const output = await renderTemplate(opts.file, text, values, io.env);
  if (opts.output === undefined) {
    io.stdout.write(output);
  } else {
    try {
      await writeOutput(opts.output, output, io);
    } catch (e) {
      if (!(e instanceof WriteError)) throw e;
      throw new CliError(`-o ${opts.output}: ${e.message}`);
    }
  }
}

const RENDER_HELP = `
The template sees one value, .Values: the values files merged in order (maps merge key by key,
later files win, lists are replaced), then every --set, then every --set-string. There is no
.Release, .Chart or .Capabilities. Functions: Go's builtins, Sprig v3, and Helm's toYaml,
fromYaml, fromYamlArray, required, tpl and include.

Values files are read as Helm reads them: YAML 1.1 (yes/no/on/off are booleans) decoded through
JSON, so every number is a float64 (1000000 prints as 1e+06). --set follows Helm's syntax:
  --set a.b=c,d=e      nested keys, several pairs
  --set list={x,y}     a list          --set list[1]=y    one list element
  --set n=3            int64 3         --set flag=true    bool (also false; null gives nil)
  --set-string n=3     the string "3"  --set 'a\\.b=c'      key "a.b" (backslash escapes)
As in Helm, the text "<no value>" (what a missing value prints) is removed from the output.

Example:
  meshinject template render -f examples/deployment.tmpl --values examples/values.yaml --set replicaCount=3
`;

/**
 * Adds one top-level command (and its subcommands) to the program of one run, writing through `io`;
 * `fail` marks the run as failed (exit code 1) for commands that print their own error.
 */
type Register = (program: Command, io: CliIo, fail: () => void) => void | Promise<void>;

/**
 * The top-level commands in the order help lists them, each with a loader of what defines it. A run
 * loads only the command it names: most of a short command's start-up is loading modules, and each
 * command's module brings in its own stack (the webhook server's for serve, the agent's for agent).
 */
const COMMANDS: readonly (readonly [name: string, load: () => Promise<Register>])[] = [
  ["template", async () => registerTemplate],
  [
    "kube-inject",
    async () => {
      const [{ addInjectorOptions }, { runKubeInject }] = await Promise.all([
        import("./load-injector.js"),
        import("./kube-inject.js"),
      ]);
      return (program, io) => registerKubeInject(program, io, addInjectorOptions, runKubeInject);
    },
  ],
  ["config", async () => registerConfig],
  ["webhook-config", async () => (await import("./webhook-config.js")).registerWebhookConfig],
  ["certs", async () => (await import("./certs.js")).registerCerts],
  ["serve", async () => (await import("./serve.js")).registerServe],
  ["playground", async () => (await import("./playground.js")).registerPlayground],
  ["capture-rules", async () => addingReport((await import("./capture-rules.js")).captureRulesCommand)],
  ["proxy-config", async () => addingReport((await import("./proxy-config.js")).proxyConfigCommand)],
  ["check-inject", async () => addingReport((await import("./check-inject.js")).checkInjectCommand)],
  ["drift", async () => (await import("./drift.js")).registerDrift],
  [
    "uninject",
    async () => {
      const { uninjectCommand } = await import("./uninject.js");
      return (program, io) => program.addCommand(uninjectCommand(io));
    },
  ],
  ["agent", async () => registerAgent],
  ["version", async () => registerVersion],
];

/** The registration of a report command (capture-rules, proxy-config, check-inject), built whole by its module. */
function addingReport(command: (io: ManifestCommandIO) => Command): Register {
  return async (program, io, fail) => {
    const { manifestCommandIo } = await import("./manifest-command.js");
    program.addCommand(command(manifestCommandIo(io, fail)));
  };
}

/**
 * The program of one run, with the command `only` names, or with every command when `only` names
 * none of them (help, --version, a mistyped name that commander suggests a command for). Built anew
 * for each run: commander keeps the parsed options on its Command objects.
 */
export async function buildProgram(io: CliIo, fail: () => void, only?: string): Promise<Command> {
  const program = new Command("meshinject")
    .description(
      "Istio-compatible sidecar injection: kube-inject, the admission webhook (serve), views of what happens to a pod (check-inject, capture-rules, proxy-config), and Go templates",
    )
    .version(packageVersion());
  const named = COMMANDS.filter(([name]) => name === only);
  const registers = await Promise.all((named.length > 0 ? named : COMMANDS).map(([, load]) => load()));
  for (const register of registers) await register(program, io, fail);
  // Help, --version and usage errors are written to `io` and end the run with commander's exit
  // code (thrown as a CommanderError), never the process.
  const output = {
    writeOut: (text: string) => io.stdout.write(text),
    writeErr: (text: string) => io.stderr.write(text),
    outputError: writeCommanderError,
    getOutHelpWidth: () => helpWidth(io.stdout),
    getErrHelpWidth: () => helpWidth(io.stderr),
    getOutHasColors: () => false,
    getErrHasColors: () => false,
  };
  forEachCommand(program, (command) => command.configureOutput(output).exitOverride());
  return program;
}

/** A terminal's width, else commander's default (80). */
function helpWidth(writer: CliIo["stdout"]): number {
  return writer.isTTY === true && writer.columns !== undefined ? writer.columns : 80;
}

function registerTemplate(program: Command, io: CliIo): void {
  const template = program
    .command("template")
    .description("Go text/template tools (Go 1.19 text/template with Sprig v3 functions)");
  template
    .command("render")
    .description("render a Go template with Helm-style values, like `helm template` for a single file")
    .requiredOption("-f, --file <template>", "template file to render (required)")
    .option("--values <file>", "YAML values file (repeatable; later files override earlier ones)", collect)
    .option("--set <key=value>", "set values on the command line (repeatable; key=v1,key2=v2)", collect)
    .option("--set-string <key=value>", "like --set, but every value stays a string (repeatable)", collect)
    .option("-o, --output <file>", OUTPUT_FLAG_HELP)
    .addHelpText("after", RENDER_HELP)
    .action((opts: RenderOptions) => render(opts, io));
}

function registerKubeInject(
  program: Command,
  io: CliIo,
  addInjectorOptions: typeof import("./load-injector.js").addInjectorOptions,
  runKubeInject: typeof import("./kube-inject.js").runKubeInject,
): void {
  addInjectorOptions(
    program
      .command("kube-inject")
      .description("inject the Istio sidecar into the workloads of a Kubernetes YAML file (like istioctl kube-inject)")
      .requiredOption("-f, --filename <file>", "input YAML; - reads standard input (required)"),
    "to inject with",
  )
    .option(
      "--native-sidecars <on|off|auto>",
      "inject the proxy as a native sidecar (auto: off, no cluster to ask)",
      "auto",
    )
    .option("--diff", "print a unified diff per changed document instead of the whole output")
    .option("-o, --output <file>", OUTPUT_FLAG_HELP)
    .addHelpText("after", KUBE_INJECT_HELP)
    .action((opts: KubeInjectCliOptions) => runKubeInject(opts, io));
}

function registerConfig(program: Command, io: CliIo): void {
  const config = program.command("config").description("the built-in injector configuration");
  config
    .command("dump")
    .description("write the built-in config, values and mesh config as files the kube-inject flags accept")
    .option(
      "-d, --dir <dir>",
      "folder to write inject-config.yaml, values.json and mesh.yaml into (created if missing)",
      ".",
    )
    .option("-r, --revision <name>", "write the default of this revision's control plane (istiod-REVISION)", "")
    .option("--force", "replace existing files")
    .action(async (opts: { dir: string; force?: boolean; revision: string }) => {
      const { runConfigDump } = await import("./config-dump.js");
      io.stdout.write(await runConfigDump(opts));
    });
}

/**
 * `meshinject version`, as `istioctl version --remote=false` prints the client's: meshinject's own
 * version, and the Istio release its built-in configuration and agent follow.
 */
function registerVersion(program: Command, io: CliIo): void {
  program
    .command("version")
    .description("print meshinject's version and the Istio release it follows")
    .option("-s, --short", "print only meshinject's version")
    .action(async (opts: { short?: boolean }) => {
      if (opts.short === true) {
        io.stdout.write(`${packageVersion()}\n`);
        return;
      }
      const { AGENT_ISTIO_VERSION } = await import("../agent/version.js");
      io.stdout.write(`meshinject version: ${packageVersion()}\nistio version: ${AGENT_ISTIO_VERSION}\n`);
    });
}

function registerAgent(program: Command, io: CliIo): void {
  program
    .command("agent")
    .description(
      "the sidecar's own process (pilot-agent): `agent proxy` runs Envoy, `agent bootstrap` prints its bootstrap",
    )
    .helpOption(false)
    .allowUnknownOption()
    .argument("[args...]")
    .addHelpText("after", `\n${AGENT_USAGE}`)
    .action(() => {
      // Reached only through buildProgram() without main(): main() hands `agent` over before commander.
      io.stdout.write(AGENT_USAGE);
    });
}

/** Commander's own errors (`error: unknown option`) get the prefix of every other error: `meshinject: `. */
function writeCommanderError(message: string, write: (text: string) => void): void {
  write(message.replace(/^error: /, "meshinject: "));
}

function forEachCommand(command: Command, visit: (command: Command) => void): void {
  visit(command);
  for (const sub of command.commands) forEachCommand(sub, visit);
}

const KUBE_INJECT_HELP = `
Every Pod, Deployment, DaemonSet, StatefulSet, ReplicaSet, ReplicationController, Job, CronJob,
DeploymentConfig and List item is injected; other documents are copied through unchanged.
Without --injectConfigFile, --valuesFile and --meshConfigFile the built-in default (equivalent to
Istio's default install) is used, offline; \`meshinject config dump\` writes it out as a starting
point. --operatorFileName takes the values and mesh config from an IstioOperator install file instead.
With --from-cluster (or -i, --injectConfigMapName, --meshConfigMapName), what no file gives is read
from the cluster of the kube context as istioctl does: ConfigMaps istio-sidecar-injector[-REVISION]
(keys config, values) and istio[-REVISION] (key mesh) in istio-system.

Examples:
  meshinject kube-inject -f deployment.yaml -o injected.yaml
  meshinject kube-inject -f deployment.yaml --diff      # what injection changes, per document
  kubectl get deploy web -o yaml | meshinject kube-inject -f - | kubectl apply -f -
  kubectl -n istio-system get cm istio-sidecar-injector -o yaml > inject.yaml
  kubectl -n istio-system get cm istio -o yaml > mesh.yaml
  meshinject kube-inject -f app.yaml --injectConfigFile inject.yaml --valuesFile inject.yaml --meshConfigFile mesh.yaml
  meshinject kube-inject -f app.yaml --from-cluster --context prod -r canary
  meshinject kube-inject -f app.yaml --operatorFileName my-install.yaml
`;

/** istioctl's experimental commands that meshinject has at the top level. */
const EXPERIMENTAL = new Set(["check-inject"]);

/**
 * The command line with istioctl's `x` (`experimental`) group taken out: `meshinject x check-inject`
 * is `meshinject check-inject`, as istioctl users type it. Undefined for `x` without such a command.
 */
function withoutExperimental(argv: readonly string[]): readonly string[] | undefined {
  if (argv[2] !== "x" && argv[2] !== "experimental") return argv;
  if (!EXPERIMENTAL.has(argv[3] ?? "")) return undefined;
  return [...argv.slice(0, 2), ...argv.slice(3)];
}

/**
 * Runs `meshinject` with `argv` as process.argv gives it (node, script, arguments), writing through
 * `io`; resolves with the exit code. User-facing errors print one line on stderr and give 1.
 */
export async function main(given: readonly string[], io: CliIo): Promise<number> {
  const argv = withoutExperimental(given);
  if (argv === undefined) {
    io.stderr.write(
      `meshinject: ${given[2]} (istioctl experimental): meshinject has check-inject there (meshinject ${given[2]} check-inject)\n`,
    );
    return 1;
  }
  // `agent` reads pilot-agent's command line itself (pflag syntax, unknown flags accepted).
  if (argv[2] === "agent") return (await import("./agent-main.js")).runAgentCli(argv.slice(3), io);
  let failed = false;
  const fail = () => {
    failed = true;
  };
  try {
    await (await buildProgram(io, fail, argv[2])).parseAsync([...argv]);
    return failed ? 1 : 0;
  } catch (e) {
    // Commander has written its help or its error already.
    if (e instanceof CommanderError) return e.exitCode;
    // Loaded only here: the error classes come from every command's modules.
    const { isUserError } = await import("./user-errors.js");
    // Anything else is a bug in meshinject: keep the stack for the report.
    const message = isUserError(e) ? e.message : `internal error: ${e instanceof Error ? e.stack : String(e)}`;
    io.stderr.write(`meshinject: ${message}\n`);
    return 1;
  }
}
