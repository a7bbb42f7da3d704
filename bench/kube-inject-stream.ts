/**
 * Streaming kube-inject (issue 11, target 4): memory flat in the number of documents, the first
 * injected document out before the last one is read, and CPU next to the `yaml` package's floor.
 * Usage:
 *
 *   npm run bench:kube-inject-stream        (node --import tsx bench/kube-inject-stream.ts)
 *
 * (a) memory: `meshinject kube-inject -f -` as users run it (dist/cli/main.js, built first by
 *     `npm run build`, which does nothing when dist/ is up to date) in a child process, fed N
 *     generated Deployments through a pipe; its peak RSS (process.resourceUsage().maxRSS, written by
 *     a preloaded exit hook) at 5,000 and at 500 documents, and the growth per document between them.
 * (b) latency: in the 5,000-document run, when the first byte of output arrived and when the last
 *     byte of input was written (the pipe only takes more when the child reads), against the total.
 * (c) CPU at 1,000 documents, in this process (no I/O: the stream in 64 KiB pieces through
 *     mapYamlStream and the DocumentInjector, as the CLI runs it), against floors measured with the
 *     `yaml` package on the same stream: (1) parse + stringify of the input stream (every document
 *     parsed and written back), (2) parse of the input + stringify of the injected documents (the YAML
 *     work any injector of this stream does at least). CPU time (process.cpuUsage), interleaved
 *     rounds after warm-up rounds (2,000+ injections), medians.
 *
 * Each target is printed with PASS or FAIL. Flags: --docs N (5,000), --cpu-docs N (1,000), --rounds N (3),
 * --cpu-only (only (c): no build, no child process).
 */
import { execFileSync, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseAllDocuments, stringify } from "yaml";
import { DocumentInjector } from "../src/inject/kube-inject.js";
import { mapYamlStream } from "../src/kube/stream.js";
import { processTemplateHost } from "../src/node/template-host.js";
import { deploymentStream } from "../test/deployment-stream.js";
import { defaultInjectOptions } from "./inject-options.js";
import { median } from "./timing.js";

const root = fileURLToPath(new URL("../", import.meta.url));

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  const value = at >= 0 ? Number(process.argv[at + 1]) : fallback;
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} takes a whole number above 0`);
  return value;
}

/** Writes exit-time figures of the child to stderr, after a marker line. */
const EXIT_HOOK = `data:text/javascript,process.on("exit",()=>process.stderr.write("\\nBENCH-MAXRSS "+process.resourceUsage().maxRSS+"\\n"))`;

interface ChildRun {
  maxRssKiB: number;
  firstOutputMs: number;
  inputWrittenMs: number;
  totalMs: number;
  outputBytes: number;
}

/** Runs the built CLI on `input` through a pipe; times from the spawn. */
function runCli(input: string): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, ["--import", EXIT_HOOK, "dist/cli/main.js", "kube-inject", "-f", "-"], {
      cwd: root,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let firstOutputMs = Number.NaN;
    let inputWrittenMs = Number.NaN;
    let outputBytes = 0;
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      if (outputBytes === 0) firstOutputMs = performance.now() - start;
      outputBytes += chunk.length;
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    // Written in 64 KiB pieces, each when the pipe has taken the last (what `cat file |` does).
    const bytes = Buffer.from(input);
    let at = 0;
    const feed = () => {
      while (at < bytes.length) {
        const piece = bytes.subarray(at, at + 65536);
        at += piece.length;
        if (!child.stdin.write(piece)) {
          child.stdin.once("drain", feed);
          return;
        }
      }
      child.stdin.end(() => {
        inputWrittenMs = performance.now() - start;
      });
    };
    feed();
    child.on("error", reject);
    child.on("close", (code) => {
      const rss = /BENCH-MAXRSS (\d+)/.exec(stderr);
      if (code !== 0 || rss === null) {
        reject(new Error(`kube-inject exited with ${code}: ${stderr.slice(0, 500)}`));
        return;
      }
      resolve({
        maxRssKiB: Number(rss[1]),
        firstOutputMs,
        inputWrittenMs,
        totalMs: performance.now() - start,
        outputBytes,
      });
    });
  });
}

/** The stream in 64 KiB pieces, as the CLI reads a file. */
function pieces(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += 65536) out.push(text.slice(i, i + 65536));
  return out;
}

/** Milliseconds of CPU (user + system) that `work` takes. */
async function cpuMs(work: () => unknown): Promise<number> {
  const before = process.cpuUsage();
  await work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");
const mib = (kib: number) => (kib / 1024).toFixed(1);

/** (a) and (b); the verdict lines. */
async function memoryAndLatency(docs: number): Promise<string[]> {
  execFileSync(process.execPath, ["scripts/build.mjs"], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
  const small = await runCli(deploymentStream(Math.max(1, Math.round(docs / 10))));
  const big = await runCli(deploymentStream(docs));
  const growth = ((big.maxRssKiB - small.maxRssKiB) * 1024) / (docs - Math.max(1, Math.round(docs / 10)));
  console.log(`(a) memory: meshinject kube-inject -f - (dist/cli/main.js), Deployments through a pipe`);
  console.log(`    ${Math.round(docs / 10)} documents: peak RSS ${mib(small.maxRssKiB)} MiB`);
  console.log(
    `    ${docs} documents: peak RSS ${mib(big.maxRssKiB)} MiB (${(big.outputBytes / 2 ** 20).toFixed(1)} MiB written)`,
  );
  console.log(`    growth: ${(growth / 1024).toFixed(2)} KiB per document`);
  console.log(
    `(b) latency (${docs} documents): first output byte at ${big.firstOutputMs.toFixed(0)} ms, last input byte taken at ${big.inputWrittenMs.toFixed(0)} ms, done at ${big.totalMs.toFixed(0)} ms`,
  );

  return [
    `${verdict(big.maxRssKiB <= 150 * 1024)} peak RSS at ${docs} documents ≤ 150 MiB: ${mib(big.maxRssKiB)} MiB`,
    `${verdict(big.firstOutputMs < big.inputWrittenMs)} first injected document out before the last input is read: ${big.firstOutputMs.toFixed(0)} ms < ${big.inputWrittenMs.toFixed(0)} ms`,
  ];
}

/** (c); the verdict lines. */
async function cpu(cpuDocs: number, rounds: number): Promise<string[]> {
  const input = deploymentStream(cpuDocs);
  const inputPieces = pieces(input);
  const options = defaultInjectOptions();
  let output: string[] = [];
  const ours = async () => {
    const injector = new DocumentInjector(options);
    // As the CLI runs it: each document through the run's template host (names for getHostByName).
    const host = processTemplateHost(process.env);
    const out: string[] = [];
    for await (const text of mapYamlStream(inputPieces, (raw) => injector.documentResolving(raw, host))) out.push(text);
    injector.end();
    output = out;
  };
  // Floor 1: the input stream read and written back by the yaml package.
  const roundTrip = () => {
    let n = 0;
    for (const doc of parseAllDocuments(input)) n += doc.toString().length;
    return n;
  };
  // Floor 2: the input read, the injected documents written, by the yaml package.
  await ours();
  const injectedObjects = output.map((text) => parseAllDocuments(text)[0]?.toJS() as unknown);
  const readAndWrite = () => {
    let n = 0;
    for (const doc of parseAllDocuments(input)) n += doc.toJS() === undefined ? 0 : 1;
    for (const obj of injectedObjects) n += stringify(obj).length;
    return n;
  };
  // Warm-up: 2 more rounds of ours (3,000 injections with the one above), 1 of each floor.
  await ours();
  await ours();
  roundTrip();
  readAndWrite();
  const t: Record<"ours" | "roundTrip" | "readAndWrite", number[]> = { ours: [], roundTrip: [], readAndWrite: [] };
  for (let r = 0; r < rounds; r++) {
    t.ours.push(await cpuMs(ours));
    t.roundTrip.push(await cpuMs(roundTrip));
    t.readAndWrite.push(await cpuMs(readAndWrite));
  }
  const [o, f1, f2] = [median(t.ours), median(t.roundTrip), median(t.readAndWrite)];
  console.log(`(c) CPU, ${cpuDocs} documents, median of ${rounds} interleaved rounds after warm-up`);
  console.log(
    `    ours (split + inject + write, streamed): ${o.toFixed(0)} ms (${((o * 1000) / cpuDocs).toFixed(0)} µs per document)`,
  );
  console.log(
    `    floor 1, yaml parse + stringify of the input stream: ${f1.toFixed(0)} ms; ours/floor ${(o / f1).toFixed(2)}`,
  );
  console.log(
    `    floor 2, yaml parse of the input + stringify of the injected documents: ${f2.toFixed(0)} ms; ours/floor ${(o / f2).toFixed(2)}`,
  );
  return [
    `${verdict(o / f1 <= 1.5)} CPU ≤ 1.5× floor 1 (yaml parse + stringify of the input stream): ${(o / f1).toFixed(2)}×`,
    `${verdict(o / f2 <= 1.5)} CPU ≤ 1.5× floor 2 (yaml parse of the input + stringify of the output): ${(o / f2).toFixed(2)}×`,
  ];
}

const verdicts = [
  ...(process.argv.includes("--cpu-only") ? [] : await memoryAndLatency(flag("--docs", 5000))),
  ...(await cpu(flag("--cpu-docs", 1000), flag("--rounds", 3))),
];
console.log("");
for (const line of verdicts) console.log(line);
