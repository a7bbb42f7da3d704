/**
 * A client for the Go template oracle (shared/tools/gotemplate-oracle): one long-lived process,
 * one JSON request per line, answers in order.
 */
import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { createInterface } from "node:readline";

export interface OracleRequest {
  template: string;
  data?: unknown;
  numbers?: "float" | "int";
  funcs?: "go" | "sprig";
  name?: string;
  bench?: number;
}

export interface OracleAnswer {
  output?: string;
  error?: string;
  phase?: "parse" | "exec" | "request";
  panic?: boolean;
  ns_per_op?: number;
  runs?: number;
}

/**
 * The oracle binary: $ORACLE if set, else a build cached under node_modules/.cache (built on first
 * use with the shared build script, which needs Debian's Go and Sprig packages).
 */
export function locateOracle(repoRoot: string): string {
  const fromEnv = process.env.ORACLE;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`ORACLE=${fromEnv} does not exist`);
    return fromEnv;
  }
  const outDir = resolve(repoRoot, "node_modules/.cache/gotemplate-oracle");
  const binary = resolve(outDir, "gotemplate-oracle");
  if (!existsSync(binary)) {
    const script = resolve(repoRoot, "../shared/tools/gotemplate-oracle/build.sh");
    console.error(`building the Go oracle: sh ${script} ${outDir}`);
    execFileSync("sh", [script, outDir], { stdio: ["ignore", "inherit", "inherit"] });
  }
  return binary;
}

export class Oracle {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting: Array<{ resolve: (a: OracleAnswer) => void; reject: (e: Error) => void }> = [];

  constructor(binary: string) {
    this.child = spawn(binary, [], { stdio: ["pipe", "pipe", "pipe"] });
    this.child.stderr.pipe(process.stderr);
    createInterface({ input: this.child.stdout }).on("line", (line) => {
      this.waiting.shift()?.resolve(JSON.parse(line) as OracleAnswer);
    });
    this.child.on("exit", (code) => {
      for (const w of this.waiting.splice(0)) w.reject(new Error(`oracle exited with code ${code}`));
    });
  }

  ask(request: OracleRequest): Promise<OracleAnswer> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.child.stdin.write(`${JSON.stringify(request)}\n`);
    });
  }

  close(): void {
    this.child.stdin.end();
  }
}
