/**
 * How istio-iptables runs the iptables tools (Istio's tools/istio-iptables/pkg/dependencies): the
 * binary set is chosen as `DetectIptablesVersion` chooses it (iptables-legacy when it already holds
 * rules, else iptables-nft, else plain iptables; `--force-iptables-binary` picks one), legacy
 * iptables 1.6.2 and later write with `--wait=30`, and a failed command's error carries xtables'
 * exit type. With `--dry-run` the stub records every command instead of running it, and writes the
 * record to DRY_RUN_FILE_PATH when that is set, as Istio's DependenciesStub does.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import type { Logger } from "../../process/log.js";

export type IptablesCmd = "iptables" | "iptables-save" | "iptables-restore";

export interface IptablesVersion {
  binary: string;
  saveBinary: string;
  restoreBinary: string;
  /** [major, minor, patch]; [0, 0, 0] when the binary does not tell. */
  version: number[];
  legacy: boolean;
  existingRules: boolean;
}

export interface Dependencies {
  detectIptablesVersion(ipv6: boolean): Promise<IptablesVersion>;
  /** Runs a command; resolves with its standard output, rejects with XtablesError. */
  run(
    log: Logger,
    quiet: boolean,
    cmd: IptablesCmd,
    ver: IptablesVersion | undefined,
    stdin: string | undefined,
    args: readonly string[],
  ): Promise<string>;
}

export class XtablesError extends Error {
  override name = "XtablesError";
}

function binaryFor(ver: IptablesVersion | undefined, cmd: IptablesCmd): string {
  if (ver === undefined) return "";
  return cmd === "iptables" ? ver.binary : cmd === "iptables-save" ? ver.saveBinary : ver.restoreBinary;
}

/** DependenciesStub: records, answers nothing. */
export class DependenciesStub implements Dependencies {
  readonly executedAll: string[] = [];

  constructor(private readonly dryRunFilePath: string | undefined) {}

  async detectIptablesVersion(ipv6: boolean): Promise<IptablesVersion> {
    const binary = ipv6 ? "ip6tables" : "iptables";
    return {
      binary,
      saveBinary: `${binary}-save`,
      restoreBinary: `${binary}-restore`,
      version: [0, 0, 0],
      legacy: false,
      existingRules: false,
    };
  }

  async run(
    _log: Logger,
    _quiet: boolean,
    cmd: IptablesCmd,
    ver: IptablesVersion | undefined,
    stdin: string | undefined,
    args: readonly string[],
  ): Promise<string> {
    if (stdin !== undefined)
      this.executedAll.push(...stdin.split("\n").filter((_, i, all) => i < all.length - 1 || all[i] !== ""));
    else this.executedAll.push([binaryFor(ver, cmd), ...args].join(" "));
    if (this.dryRunFilePath) {
      try {
        writeFileSync(this.dryRunFilePath, this.executedAll.map((l) => `${l}\n`).join(""));
      } catch {
        // As the stub: the write's error is dropped.
      }
    }
    return "";
  }
}

interface Exec {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The spawn error (no such binary), if any. */
  error?: NodeJS.ErrnoException;
}

function exec(binary: string, args: readonly string[], stdin?: string): Promise<Exec> {
  return new Promise((resolve) => {
    const child = spawn(binary, args, { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    child.on("error", (error) => resolve({ code: null, stdout, stderr, error }));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.on("error", () => {});
    child.stdin.end(stdin ?? "");
  });
}

const XTABLES_EXIT_TYPES: Record<number, string> = {
  1: "xtables other problem",
  2: "xtables parameter problem",
  3: "xtables version problem",
  4: "xtables resource problem",
};

/** transformToXTablesErrorMessage: the exit type and the message after the program's name. */
function xtablesMessage(r: Exec): string {
  if (r.error !== undefined) return r.error.message;
  const type = XTABLES_EXIT_TYPES[r.code ?? -1];
  if (type === undefined) return r.stderr;
  const colon = r.stderr.indexOf(":");
  return `${type}: ${(colon < 0 ? r.stderr : r.stderr.slice(colon + 1)).trim()}`;
}

/** Go's exec error text joined with the command's standard error, as executeXTables returns it. */
function goExecError(binary: string, r: Exec): string {
  const head =
    r.error !== undefined ? `exec: "${binary}": executable file not found in $PATH` : `exit status ${r.code}`;
  return r.stderr === "" ? head : `${head}\n${r.stderr.trimEnd()}`;
}

const TEST_RULE = ["-t", "nat", "-A", "INPUT", "-p", "255", "-j", "RETURN"];

function parseVersion(text: string): number[] | undefined {
  const m = /v([0-9]+(\.[0-9]+)+)/.exec(text);
  return m === null ? undefined : (m[1] as string).split(".").map(Number);
}

const atLeast = (v: number[], min: number[]) => {
  for (let i = 0; i < min.length; i++) {
    const a = v[i] ?? 0;
    const b = min[i] as number;
    if (a !== b) return a > b;
  }
  return true;
};

/** Legacy iptables from 1.6.2 on takes `--wait`; nft-based ones need no lock (NoLocks). */
function needsLock(ver: IptablesVersion): boolean {
  return ver.legacy && atLeast(ver.version, [1, 6, 2]);
}

/** shouldUseBinaryForCurrentContext: whether `binary` (and its -save, -restore) works here, and holds rules. */
async function probeBinary(binary: string, log: Logger): Promise<IptablesVersion> {
  const saveBinary = `${binary}-save`;
  const dump = await exec(saveBinary, []);
  if (dump.error !== undefined || dump.code !== 0) {
    throw new XtablesError(`failed to execute ${saveBinary}: ${goExecError(saveBinary, dump)} ${dump.stdout}`.trim());
  }
  const v = await exec(saveBinary, ["--version"]);
  let version: number[] = [0, 0, 0];
  let nft = false;
  if (v.error === undefined && v.code === 0 && !v.stderr.includes("unrecognized option")) {
    const parsed = parseVersion(v.stdout);
    if (parsed === undefined)
      throw new XtablesError(`iptables version ${JSON.stringify(v.stdout)} is not a valid version string`);
    version = parsed;
    nft = v.stdout.includes("nf_tables");
  } else {
    log.warn(
      `found iptables binary ${saveBinary}, but it does not appear to support the '--version' flag, assuming very old legacy version`,
    );
  }
  const candidate = {
    binary,
    saveBinary,
    restoreBinary: `${binary}-restore`,
    version,
    legacy: !nft,
    existingRules: false,
  };
  const testArgs = needsLock(candidate) ? [...TEST_RULE, "--wait=30"] : TEST_RULE;
  const test = await exec(binary, testArgs);
  if (test.error !== undefined || test.code !== 0 || test.stderr.includes("does not exist")) {
    throw new XtablesError(
      `iptables binary ${binary} has no loaded kernel support and cannot be used, err: ${goExecError(binary, test)}`,
    );
  }
  const del = [...testArgs];
  del[2] = "-D";
  await exec(binary, del);
  return { ...candidate, existingRules: (dump.stdout.match(/\n/g)?.length ?? 0) >= 3 };
}

export class RealDependencies implements Dependencies {
  constructor(
    private readonly forceIptablesBinary: string,
    private readonly log: Logger,
  ) {}

  async detectIptablesVersion(ipv6: boolean): Promise<IptablesVersion> {
    const plain = ipv6 ? "ip6tables" : "iptables";
    const quiet = this.log;
    if (this.forceIptablesBinary === "legacy") return probeBinary(`${plain}-legacy`, quiet);
    if (this.forceIptablesBinary === "nft") return probeBinary(`${plain}-nft`, quiet);
    if (this.forceIptablesBinary !== "")
      throw new XtablesError(`iptables binary "${this.forceIptablesBinary}" unsupported`);
    try {
      const legacy = await probeBinary(`${plain}-legacy`, quiet);
      if (legacy.existingRules) return legacy;
    } catch {
      // Not critical: another set may do.
    }
    try {
      return await probeBinary(`${plain}-nft`, quiet);
    } catch {
      // The unsuffixed set is the last resort.
    }
    return probeBinary(plain, quiet);
  }

  async run(
    log: Logger,
    quiet: boolean,
    cmd: IptablesCmd,
    ver: IptablesVersion | undefined,
    stdin: string | undefined,
    args: readonly string[],
  ): Promise<string> {
    const binary = binaryFor(ver, cmd);
    if (ver === undefined || binary === "") throw new XtablesError("called without iptables binary, cannot execute!");
    const full = cmd !== "iptables-save" && needsLock(ver) ? [...args, "--wait=30"] : [...args];
    log.debug(`Running command (${needsLock(ver) ? "with global lock" : "without lock"}): ${binary} ${full.join(" ")}`);
    const r = await exec(binary, full, stdin);
    if (r.error !== undefined || r.code !== 0) {
      if (quiet) log.debug(`Ignoring iptables command error: ${xtablesMessage(r)}`);
      else log.error(`Command error: ${xtablesMessage(r)}`);
      throw new XtablesError(goExecError(binary, r));
    }
    return r.stdout;
  }
}
