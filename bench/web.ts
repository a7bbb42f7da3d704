/**
 * The playground's budgets (issue 14), in headless Debian chromium driven by playwright-core:
 *
 *   npm run bench:web            (node --import tsx bench/web.ts [--runs 30])
 *
 * (a) bundle: app.js of a fresh build:web, raw and gzipped (level 9); budget ≤ 600 KB gzipped.
 * (b) load → first result: the page's own performance.now() when the curl example has been injected
 *     and every tab filled (navigation start = 0), over 5 fresh page loads (median), from the
 *     `meshinject playground` server on loopback.
 * (c) re-render after an edit: the curl example edited (the replica count changed) --runs times
 *     after 10 warm-up edits, on the Pod tab, then on the Traffic tab; the time of one update
 *     (inject, diff, why, traffic, proxy, the pictures' models, writing the tabs, and laying out
 *     and drawing the picture of the tab shown; a hidden tab's picture and YAML highlighting are
 *     done when it is shown) as the page measures it, median and p90; budget p90 ≤ 50 ms. The
 *     debounce (150 ms) is not included. Of it, the picture's layout and drawing alone (median,
 *     p90). Next to it, the baseline from the same run: the same computation (runPlayground) in
 *     this Node process, after a warm-up, and the ratio browser/Node.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import { startPlaygroundServer } from "../src/cli/playground.js";
import { CHROMIUM, CHROMIUM_ARGS } from "../test/chromium.js";
import { buildWeb } from "../web/build.js";
import { EXAMPLES } from "../web/examples.js";
import { INITIAL_STATE, runPlayground } from "../web/playground.js";
import { median } from "./timing.js";

const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 30;

const p90 = (xs: number[]) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))] ?? Number.NaN;
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

const dir = mkdtempSync(join(tmpdir(), "meshinject-bench-web-"));
const server = await startPlaygroundServer(dir, 0);
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
try {
  await buildWeb(dir);
  const js = readFileSync(join(dir, "app.js"));
  const gz = gzipSync(js, { level: 9 }).length;
  console.log(
    `(a) bundle app.js: ${kb(js.length)} raw, ${kb(gz)} gzipped (budget 600 KB): ${gz <= 600 * 1024 ? "ok" : "OVER"}`,
  );

  const loads: number[] = [];
  for (let i = 0; i < 5; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(server.url);
    await page.waitForSelector("body[data-ready=true]");
    loads.push(Number(await page.getAttribute("body", "data-first-result")));
    await context.close();
  }
  console.log(
    `(b) load → first injected result: median ${median(loads).toFixed(0)} ms (runs: ${loads.map((x) => x.toFixed(0)).join(", ")})`,
  );

  const page = await browser.newPage();
  await page.goto(server.url);
  await page.waitForSelector("body[data-ready=true]");
  /** `runs` edits after 10 warm-up ones on the tab shown: each update's time, and its picture's. */
  const edits = async (runs: number) => {
    const times: number[] = [];
    const drawing: number[] = [];
    for (let i = 0; i < 10 + runs; i++) {
      // Change the count of "replicas: N" (line 7): one keystroke pair, as a user would type it.
      await page.click("#editor .cm-content");
      await page.keyboard.press("Control+Home");
      for (let k = 0; k < 6; k++) await page.keyboard.press("ArrowDown");
      await page.keyboard.press("End");
      await page.keyboard.press("Backspace");
      await page.keyboard.type(String((i % 9) + 1));
      await page.waitForSelector("body:not([data-pending])", { state: "attached" });
      if (i >= 10) {
        times.push(Number(await page.getAttribute("body", "data-ms")));
        drawing.push(Number(await page.getAttribute("body", "data-pictures-ms")));
      }
    }
    return { times, drawing };
  };
  const { times, drawing } = await edits(RUNS);
  await page.click("#tab-traffic");
  const traffic = await edits(RUNS);
  const status = await page.textContent("#status");
  if (status !== "Verdict: injected") throw new Error(`bench: the edited curl example is not injected: ${status}`);

  const curl = EXAMPLES[0]?.yaml ?? "";
  const node: number[] = [];
  for (let i = 0; i < 10 + RUNS; i++) {
    const t = performance.now();
    runPlayground({ ...INITIAL_STATE, workload: curl.replace("replicas: 1", `replicas: ${(i % 9) + 1}`) });
    if (i >= 10) node.push(performance.now() - t);
  }
  const b = median(times);
  const b90 = p90(times);
  console.log(
    `(c) re-render of curl after an edit in chromium: median ${b.toFixed(1)} ms, p90 ${b90.toFixed(1)} ms over ${RUNS} edits (budget p90 50 ms): ${b90 <= 50 ? "ok" : "OVER"}`,
  );
  console.log(
    `    of which the Pod picture (layout and SVG): median ${median(drawing).toFixed(1)} ms, p90 ${p90(drawing).toFixed(1)} ms`,
  );
  const t90 = p90(traffic.times);
  console.log(
    `    on the Traffic tab: median ${median(traffic.times).toFixed(1)} ms, p90 ${t90.toFixed(1)} ms (budget p90 50 ms): ${t90 <= 50 ? "ok" : "OVER"}; its picture median ${median(traffic.drawing).toFixed(1)} ms, p90 ${p90(traffic.drawing).toFixed(1)} ms`,
  );
  console.log(
    `    same computation in Node (baseline, this run): median ${median(node).toFixed(1)} ms; chromium/Node ${(b / median(node)).toFixed(2)}`,
  );
} finally {
  await browser.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
