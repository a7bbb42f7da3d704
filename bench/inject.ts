/**
 * Speed of kube-inject with the built-in default configuration, next to a floor measured in the same
 * run: `JSON.parse(JSON.stringify(x))` of the same workload object (the cheapest full read and write
 * of it in JavaScript). Usage:
 *
 *   npm run bench:inject            (node --import tsx bench/inject.ts)
 *
 * (a) per pod: examples/curl.yaml's Deployment, and a Deployment whose one container has 2,000 env
 *     vars; ns/op of ours (YAML text in, injected YAML text out) and of the floor, and ours/floor.
 * (b) growth: the env-var Deployment with 20, 200 and 2,000 env vars; ns/op at each size and the
 *     marginal time per env var between sizes (linear growth keeps it constant: the slope ratio
 *     2000-vs-200 is then about 1).
 *
 * (c) a lower bound for any injector that renders Istio's templates: executing the `sidecar` template
 *     alone for the curl pod (same data as the injection; no YAML reading or writing, no merge),
 *     against the same floor. When this alone is over the target, no faster YAML or merge can meet it.
 *
 * (d) the first (cold) injection of the process, apart: the first kubeInject call, timed before any
 *     warm-up, which includes compiling the code paths (what a one-shot `meshinject kube-inject` pays).
 *
 * Every other operation gets a warm-up of 2,000 runs (by count, not time), then enough runs for
 * about half a second: the steady state.
 */
import { readFileSync } from "node:fs";
import { readYaml } from "../src/go/yaml/read.js";
import { type KubeInjectOptions, kubeInject } from "../src/inject/kube-inject.js";
import { splitYamlStream } from "../src/kube/stream.js";
import { defaultInjectOptions } from "./inject-options.js";
import { recordingSidecar } from "./recording-template.js";
import { chooseRuns, formatNs, printTable, timeRuns, warmUp } from "./timing.js";

/** Warm up, then the mean ns of one run over a half-second measurement. */
function measure(run: () => unknown): number {
  warmUp(run);
  return timeRuns(run, chooseRuns(timeRuns(run, 5)));
}

/** A Deployment whose one container has `n` env vars. */
function envDeployment(n: number): string {
  let env = "";
  for (let i = 0; i < n; i++) env += `        - name: VAR_${i}\n          value: "value-${i}"\n`;
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: env-${n}
spec:
  replicas: 1
  selector:
    matchLabels:
      app: env
  template:
    metadata:
      labels:
        app: env
    spec:
      containers:
      - name: app
        image: example/app:1.0
        ports:
        - containerPort: 8080
        env:
${env}`;
}

interface Result {
  name: string;
  oursNs: number;
  /** The floor: JSON round trip of the input workload object. */
  floorNs: number;
  /** For context: JSON round trip of the injected workload object (what we produce). */
  floorOutNs: number;
  /** For context: our YAML reader alone on the input text (part of `oursNs`). */
  readNs: number;
}

function bench(name: string, text: string, options: KubeInjectOptions): Result {
  const output = kubeInject(text, options);
  if (!output.includes("name: istio-proxy\n")) throw new Error(`${name}: the output has no istio-proxy container`);
  const object = readYaml(text);
  const injected = readYaml(output);
  const oursNs = measure(() => kubeInject(text, options));
  const floorNs = measure(() => JSON.parse(JSON.stringify(object)));
  const floorOutNs = measure(() => JSON.parse(JSON.stringify(injected)));
  const readNs = measure(() => readYaml(text));
  return { name, oursNs, floorNs, floorOutNs, readNs };
}

function main(): void {
  console.log(`command: node ${[...process.execArgv, ...process.argv.slice(1)].join(" ")}`);
  console.log(`node ${process.version} (${process.platform} ${process.arch}); built-in default config`);
  const options = defaultInjectOptions();
  const curl = splitYamlStream(readFileSync(new URL("../examples/curl.yaml", import.meta.url), "utf8")).find((d) =>
    /^kind: Deployment$/m.test(d),
  );
  if (curl === undefined) throw new Error("examples/curl.yaml has no Deployment");

  // First, before anything has warmed up: the cold cost of one injection.
  const coldNs = timeRuns(() => kubeInject(curl, options), 1);
  const secondNs = timeRuns(() => kubeInject(curl, options), 1);

  const sizes = [20, 200, 2000] as const;
  const curlResult = bench("curl Deployment", curl, options);
  const recorder = recordingSidecar(options.settings);
  kubeInject(curl, { ...options, settings: recorder.settings });
  const curlData = recorder.data();
  const renderNs = measure(() => recorder.template.execute(curlData));
  const bySize = new Map(
    sizes.map((n) => [n, bench(`${n.toLocaleString("en-US")} env vars`, envDeployment(n), options)]),
  );
  const env2000 = bySize.get(2000) as Result;

  console.log("\n(a) per pod: ours = kubeInject(YAML text) -> YAML text; floor = JSON.parse(JSON.stringify(object))");
  const perPod: string[][] = [
    ["workload", "ours ns/op", "floor ns/op", "ours/floor", "floor(output) ns/op", "ours/floor(output)"],
  ];
  for (const r of [curlResult, env2000]) {
    perPod.push([
      r.name,
      formatNs(r.oursNs),
      formatNs(r.floorNs),
      `${(r.oursNs / r.floorNs).toFixed(1)}x`,
      formatNs(r.floorOutNs),
      `${(r.oursNs / r.floorOutNs).toFixed(1)}x`,
    ]);
  }
  printTable(perPod);
  console.log("target: ours/floor <= 10x; floor(output) = the same round trip of the injected object, for context");

  console.log("\n(b) growth with the number of env vars of the one container");
  const growth: string[][] = [
    ["env vars", "ours ns/op", "ns/env var", "floor ns/op", "floor ns/env var", "of ours: readYaml(input)"],
  ];
  let previous: { n: number; r: Result } | undefined;
  const slopes: number[] = [];
  for (const n of sizes) {
    const r = bySize.get(n) as Result;
    let marginal = "-";
    let floorMarginal = "-";
    if (previous !== undefined) {
      const slope = (r.oursNs - previous.r.oursNs) / (n - previous.n);
      slopes.push(slope);
      marginal = formatNs(slope);
      floorMarginal = formatNs((r.floorNs - previous.r.floorNs) / (n - previous.n));
    }
    growth.push([
      n.toLocaleString("en-US"),
      formatNs(r.oursNs),
      marginal,
      formatNs(r.floorNs),
      floorMarginal,
      formatNs(r.readNs),
    ]);
    previous = { n, r };
  }
  printTable(growth);
  const [slope200, slope2000] = slopes as [number, number];
  console.log(
    `ns/env var = marginal time per env var between this size and the previous one; ` +
      `slope ratio 2000 vs 200 = ${(slope2000 / slope200).toFixed(2)} (about 1 = linear)`,
  );
  console.log("\n(c) lower bound: the curl pod's sidecar template executed alone (no YAML, no merge)");
  printTable([
    ["operation", "ns/op", "floor ns/op", "x floor", "share of ours"],
    [
      "sidecar template execute",
      formatNs(renderNs),
      formatNs(curlResult.floorNs),
      `${(renderNs / curlResult.floorNs).toFixed(1)}x`,
      `${((100 * renderNs) / curlResult.oursNs).toFixed(0)}%`,
    ],
  ]);

  console.log("\n(d) the first (cold) injection of the process, apart from the steady state");
  printTable([
    ["curl Deployment", "ns", "x steady state"],
    ["first call (cold)", formatNs(coldNs), `${(coldNs / curlResult.oursNs).toFixed(1)}x`],
    ["second call", formatNs(secondNs), `${(secondNs / curlResult.oursNs).toFixed(1)}x`],
    ["steady state (after 2,000 warm-up runs)", formatNs(curlResult.oursNs), "1.0x"],
  ]);

  const per2000 = env2000.oursNs / 2000;
  const per200 = (bySize.get(200) as Result).oursNs / 200;
  console.log(`average ns per env var: ${formatNs(per200)} at 200, ${formatNs(per2000)} at 2,000`);
}

main();
