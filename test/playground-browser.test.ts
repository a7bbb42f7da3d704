/**
 * The playground in a real browser: Debian's chromium (installed by .ci/run) driven by
 * playwright-core, against `meshinject playground`'s server on loopback, serving a fresh
 * `build:web` output. Checks what a visitor sees: the curl example injected, the diff, the why
 * tab, the namespace label switched off, an inline YAML error, a share URL reloaded, and that the
 * page makes no network request after it has loaded; the Pod and Traffic pictures (every container,
 * volume and port drawn, an annotation edited into the workload changing the drawing, selection with
 * the mouse and the keyboard), 400 px without horizontal page overflow, and dark mode. Writes
 * docs/playground.png and the pictures' screenshots docs/playground-{pod,traffic}{,-400,-dark}.png.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type Browser, chromium, type Page } from "playwright-core";
import { parseAllDocuments } from "yaml";
import { type PlaygroundServer, startPlaygroundServer } from "../src/cli/playground.js";
import { buildWeb } from "../web/build.js";
import { NATIVE_POD } from "../web/test-workloads.js";
import { CHROMIUM, CHROMIUM_ARGS } from "./chromium.js";

/** Waits until the inputs' changes have been run (the page debounces them). */
const settled = (page: Page) => page.waitForSelector("body:not([data-pending])", { state: "attached" });

const clipboard = (page: Page) => page.evaluate("navigator.clipboard.readText()") as Promise<string>;

const panel = (page: Page, tab: string) => page.locator(`#out-${tab} pre`);

const DOCS = join(import.meta.dirname, "../docs");

/** The texts of a picture (`pod` or `traffic`), one per SVG text element. */
const pictureTexts = (page: Page, picture: string) => page.locator(`#${picture}-picture svg text`).allTextContents();

/**
 * The texts of a picture that run past the right edge of their box, as the browser's fonts draw
 * them (the layout counts characters: this checks its guess of their width).
 */
const overflowingTexts = (page: Page, picture: string) =>
  page.evaluate(`[...document.querySelectorAll("#${picture}-picture svg g")].flatMap((g) => {
    const rect = g.querySelector(":scope > rect");
    if (rect === null) return [];
    const right = rect.x.baseVal.value + rect.width.baseVal.value;
    return [...g.querySelectorAll(":scope > text")]
      .filter((t) => t.textContent !== "" && t.getBBox().x + t.getBBox().width > right + 1)
      .map((t) => t.textContent);
  })`) as Promise<string[]>;

/** Replaces the workload in the editor, as pasted (one input event), and waits for the result. */
async function pasteWorkload(page: Page, text: string): Promise<void> {
  await page.click("#editor .cm-content");
  await page.keyboard.press("Control+A");
  await page.keyboard.insertText(text);
  await settled(page);
}

/**
 * Every container, init container, volume and declared port of the first workload in an injected
 * YAML text (read here with the yaml library, not with the page's code), and the sidecar's ports
 * that the pod uses without declaring them.
 */
function injectedNames(injected: string): string[] {
  type Named = { name: string; ports?: { containerPort: number }[] };
  const obj = parseAllDocuments(injected)[0]?.toJS() as { kind: string; spec: { template?: { spec: unknown } } };
  const spec = (obj.kind === "Pod" ? obj.spec : obj.spec.template?.spec) as Record<string, Named[] | undefined>;
  const containers = [...(spec.initContainers ?? []), ...(spec.containers ?? [])];
  return [
    ...containers.map((c) => c.name),
    ...(spec.volumes ?? []).map((v) => v.name),
    ...containers.flatMap((c) => (c.ports ?? []).map((p) => `:${p.containerPort}`)),
    // The agent's status port, Envoy's admin port, the capture's ports, the readiness port.
    ...[":15000", ":15001", ":15006", ":15020", ":15021", ":15090"],
  ];
}

/** Asserts that each name is one of the texts, or starts one (a port row: `:15090  containerPort ...`). */
function assertNamed(texts: string[], names: string[], where: string): void {
  for (const name of names) {
    assert.ok(
      texts.some((t) => t === name || t.startsWith(`${name} `) || t.startsWith(`${name} ·`)),
      `${where}: the drawing names ${name}`,
    );
  }
}

describe("playground in chromium", { timeout: 120_000 }, () => {
  let dir: string;
  let server: PlaygroundServer;
  let browser: Browser;
  let page: Page;
  /** Requests made after the page said it was ready. */
  const late: string[] = [];
  let ready = false;

  before(async () => {
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} missing: apt-get install -y chromium (as .ci/run does)`);
    dir = mkdtempSync(join(tmpdir(), "meshinject-web-"));
    await buildWeb(dir);
    server = await startPlaygroundServer(dir, 0);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    // bypassCSP: the page forbids eval, which the harness's string predicates need; the page itself is unchanged.
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, bypassCSP: true });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
    page = await context.newPage();
    page.on("request", (r) => {
      if (ready) late.push(r.url());
    });
    await page.goto(server.url);
    await page.waitForSelector("body[data-ready=true]");
    ready = true;
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("opens with curl injected: istio-proxy and istio-init, the diff adds them", async () => {
    assert.equal(await page.locator("#example").inputValue(), "curl");
    const injected = await panel(page, "injected").textContent();
    assert.match(injected ?? "", /name: istio-proxy/);
    assert.match(injected ?? "", /name: istio-init/);
    await page.click("#tab-diff");
    const added = await page.locator("#out-diff .add").allTextContents();
    assert.ok(
      added.some((l) => /^\+\s+name: istio-proxy/.test(l)),
      "the diff adds istio-proxy",
    );
    assert.ok(
      added.some((l) => /^\+\s+name: istio-init/.test(l)),
      "the diff adds istio-init",
    );
    await page.click("#tab-injected");
    await page.screenshot({ path: join(import.meta.dirname, "../docs/playground.png") });
  });

  it("opens on the Pod tab: the drawing names every container, volume and port of the injected curl pod", async () => {
    await page.click("#tab-pod");
    assert.equal(await page.getAttribute("#tab-pod", "aria-selected"), "true");
    const injected = (await panel(page, "injected").textContent()) ?? "";
    const texts = await pictureTexts(page, "pod");
    assertNamed(texts, injectedNames(injected), "curl");
    // What injection added is marked: istio-init and istio-proxy, not curl.
    const added = await page
      .locator("#pod-picture g.part.box.added")
      .evaluateAll((gs) => gs.map((g) => g.getAttribute("data-part")));
    assert.ok(added.includes("init:istio-init") && added.includes("container:istio-proxy"), added.join(" "));
    assert.ok(!added.includes("container:curl"));
    assert.deepEqual(await overflowingTexts(page, "pod"), []);
  });

  it("probes re-pointed at :15020: arrows to the agent and on to the app port it checks", async () => {
    await page.selectOption("#example", "probes");
    await settled(page);
    const texts = await pictureTexts(page, "pod");
    for (const row of [
      "liveness: :15020 → agent → httpGet :8080 /healthz",
      "readiness: :15020 → agent → tcpSocket :8080",
      "startup: :15020 → agent → grpc :9090",
    ]) {
      assert.ok(texts.includes(row), row);
    }
    assert.equal(await page.locator("#pod-picture path.edge.probe.real").count(), 3, "one arrow per probe to the app");
    await page.click('#pod-picture g.part[data-part="container:web/probe:liveness"]');
    const detail = (await page.locator("#pod-detail").textContent()) ?? "";
    assert.match(detail, /path: \/app-health\/web\/livez/);
    assert.match(detail, /# re-pointed at the agent \(ISTIO_KUBE_APP_PROBERS on istio-proxy\); the agent checks:/);
    assert.match(detail, /path: \/healthz/);
    // Its arrows are highlighted with it.
    assert.equal(await page.locator("#pod-picture path.edge.selected").count(), 2);
    await page.screenshot({ path: join(DOCS, "playground-pod.png") });
    await page.selectOption("#example", "curl");
    await settled(page);
  });

  it("the injected YAML is highlighted (when its tab is shown)", async () => {
    await page.click("#tab-injected");
    assert.ok((await page.locator("#out-injected pre .tok-propertyName").count()) > 20, "keys are marked");
    await page.click("#tab-proxy");
    assert.ok((await page.locator("#out-proxy pre .tok-propertyName").count()) > 5, "keys are marked");
    await page.click("#tab-pod");
  });

  it("selecting a part shows its YAML; with the mouse and with the keyboard", async () => {
    await page.click('#pod-picture g.part[data-part="volume:istio-envoy"]');
    const detail = () => page.locator("#pod-detail").textContent();
    assert.match((await detail()) ?? "", /^ {2}medium: Memory$/m);
    assert.match((await detail()) ?? "", /^name: istio-envoy$/m);
    assert.match((await page.locator("#pod-detail-title").textContent()) ?? "", /volume istio-envoy/);
    // Keyboard: Tab from the tab button enters the picture at the selected part; arrows move.
    await page.focus("#tab-pod");
    const focused = () => page.evaluate("document.activeElement?.getAttribute('data-part')") as Promise<string | null>;
    // (Chromium also stops at the scrolling pane around the picture.)
    for (let i = 0; i < 3 && (await focused()) === null; i++) await page.keyboard.press("Tab");
    assert.equal(await focused(), "volume:istio-envoy");
    await page.keyboard.press("ArrowDown");
    const next = await focused();
    assert.ok(next !== null && next !== "volume:istio-envoy");
    assert.match((await page.locator("#pod-detail-title").textContent()) ?? "", /volume/);
    await page.keyboard.press("Home");
    assert.equal(await focused(), "pod");
    assert.match((await detail()) ?? "", /sidecar\.istio\.io\/status/);
  });

  it("the tabs are a tablist: arrow keys, Home and End move between them", async () => {
    await page.focus("#tab-pod");
    await page.keyboard.press("ArrowRight");
    assert.equal(await page.getAttribute("#tab-injected", "aria-selected"), "true");
    assert.equal(await page.isVisible("#out-injected"), true);
    await page.keyboard.press("End");
    assert.equal(await page.getAttribute("#tab-bootstrap", "aria-selected"), "true");
    await page.keyboard.press("Home");
    assert.equal(await page.getAttribute("#tab-pod", "aria-selected"), "true");
    assert.equal(await page.evaluate("document.activeElement?.id"), "tab-pod");
  });

  it("the Traffic tab draws the capture beside its rules", async () => {
    await page.click("#tab-traffic");
    const texts = (await pictureTexts(page, "traffic")).join(" ");
    for (const want of ["PREROUTING", "Envoy :15006", "Envoy :15001", "uid 1337", "gid 1337", "upstream"]) {
      assert.ok(texts.includes(want), want);
    }
    assert.match((await page.locator("#traffic-rules").textContent()) ?? "", /-A ISTIO_OUTPUT -j ISTIO_REDIRECT/);
    // A stage selected: its rules are marked in the text.
    assert.deepEqual(await overflowingTexts(page, "traffic"), []);
    await page.click('#traffic-picture g.part[data-part="outbound:out-envoy"]');
    const hits = await page.locator("#traffic-rules .hit").allTextContents();
    assert.ok(
      hits.some((l) => l.includes("--to-ports 15001")),
      hits.join(""),
    );
    await page.screenshot({ path: join(DOCS, "playground-traffic.png") });
  });

  it("native sidecars and excluded ports: every container, volume and port drawn", async () => {
    await pasteWorkload(page, NATIVE_POD);
    await page.check("#native");
    await settled(page);
    await page.click("#tab-pod");
    const injected = (await panel(page, "injected").textContent()) ?? "";
    assert.match(injected, /restartPolicy: Always/);
    const texts = await pictureTexts(page, "pod");
    assertNamed(texts, injectedNames(injected), "native");
    assert.ok(
      texts.some((t) => t.includes("native sidecar")),
      "istio-proxy is marked as a native sidecar",
    );
    await page.click("#tab-traffic");
    const traffic = (await pictureTexts(page, "traffic")).join(" ");
    assert.match(traffic, /:9000/);
    assert.match(traffic, /ports :5432/);
  });

  it("an annotation edited into the workload changes the drawing", async () => {
    const cidr = () => pictureTexts(page, "traffic").then((t) => t.join(" ").includes("CIDRs 10.96.0.0/12"));
    assert.equal(await cidr(), false);
    await pasteWorkload(
      page,
      NATIVE_POD.replace(
        "  annotations:\n",
        '  annotations:\n    traffic.sidecar.istio.io/excludeOutboundIPRanges: "10.96.0.0/12"\n',
      ),
    );
    assert.equal(await cidr(), true);
    assert.match(
      (await page.locator("#traffic-rules").textContent()) ?? "",
      /-A ISTIO_OUTPUT -d 10\.96\.0\.0\/12 -j RETURN/,
    );
    await pasteWorkload(page, NATIVE_POD);
    assert.equal(await cidr(), false);
    await page.uncheck("#native");
    await page.selectOption("#example", "curl");
    await settled(page);
  });

  it("several workloads: a menu picks the one drawn", async () => {
    assert.equal(await page.isVisible("#workload-row"), false, "one workload: no menu");
    await page.click("#tab-pod");
    await pasteWorkload(page, `${NATIVE_POD}---\n${NATIVE_POD.replace("name: native", "name: second")}`);
    assert.equal(await page.isVisible("#workload-row"), true);
    const header = () => page.locator("#pod-picture svg text").first().textContent();
    assert.match((await header()) ?? "", /Pod default\/native/);
    await page.selectOption("#workload", { label: "Pod default/second" });
    assert.match((await header()) ?? "", /Pod default\/second/);
    await page.selectOption("#example", "curl");
    await settled(page);
    assert.equal(await page.isVisible("#workload-row"), false);
  });

  it("400 px wide: no horizontal page overflow on any tab, the pictures fit their panes", async () => {
    await page.setViewportSize({ width: 400, height: 900 });
    const overflow = () =>
      page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") as Promise<number>;
    for (const tab of ["pod", "injected", "diff", "why", "traffic", "proxy", "bootstrap"]) {
      await page.click(`#tab-${tab}`);
      assert.equal(await overflow(), 0, `${tab}: no horizontal page overflow`);
    }
    for (const tab of ["pod", "traffic"]) {
      await page.click(`#tab-${tab}`);
      const fits = await page.evaluate(
        `(() => { const p = document.querySelector("#${tab}-picture"); return p.scrollWidth <= p.clientWidth; })()`,
      );
      assert.equal(fits, true, `${tab}: the picture is laid out for the pane`);
      assert.deepEqual(await overflowingTexts(page, tab), [], `${tab}: every text inside its box`);
      await page.locator("#outputs").screenshot({ path: join(DOCS, `playground-${tab}-400.png`) });
    }
    assertNamed(await pictureTexts(page, "pod"), ["curl", "istio-proxy", "istio-init", ":15090"], "400 px");
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.click("#tab-pod");
  });

  it("dark mode: the page and the pictures follow prefers-color-scheme", async () => {
    const fill = () =>
      page.evaluate(
        'getComputedStyle(document.querySelector("#pod-picture g.box.container:not(.added):not(.changed) > rect") ?? document.querySelector("#pod-picture rect")).fill',
      );
    const background = () => page.evaluate("getComputedStyle(document.body).backgroundColor");
    const light = [await fill(), await background()];
    await page.emulateMedia({ colorScheme: "dark" });
    const dark = [await fill(), await background()];
    assert.notDeepEqual(dark, light);
    await page.screenshot({ path: join(DOCS, "playground-pod-dark.png") });
    await page.emulateMedia({ colorScheme: "light" });
  });

  it("why: injected, and why", async () => {
    await page.click("#tab-why");
    const why = (await panel(page, "why").textContent()) ?? "";
    assert.match(why, /verdict: injected/);
    assert.match(why, /istio-injection=enabled/);
    assert.match((await page.locator("#status").textContent()) ?? "", /Verdict: injected/);
  });

  it("the Envoy bootstrap tab: what the pod's agent would write", async () => {
    await page.click("#tab-bootstrap");
    const bootstrap = (await panel(page, "bootstrap").textContent()) ?? "";
    assert.match(bootstrap, /^# Deployment default\/curl/);
    assert.match(bootstrap, /"id": "sidecar~10\.0\.0\.1~curl-7d4c9b-x2x7z\.default~default\.svc\.cluster\.local"/);
  });

  it("the namespace label off: not injected, and why", async () => {
    await page.fill("#ns-labels", "");
    await settled(page);
    const why = (await panel(page, "why").textContent()) ?? "";
    assert.match(why, /verdict: not injected: no injection webhook is called/);
    assert.match((await page.locator("#status").textContent()) ?? "", /Verdict: not injected/);
    await page.fill("#ns-labels", "istio-injection=enabled");
    await page.waitForFunction('document.querySelector("#status")?.textContent === "Verdict: injected"');
  });

  it("invalid YAML: an inline error with the document and line", async () => {
    await page.click("#editor .cm-content");
    await page.keyboard.press("Control+End");
    // As pasted: one input event (typing would let the editor close the bracket).
    await page.keyboard.insertText("\n---\nkind: Pod\nmetadata: [oops\n");
    const error = page.locator("#errors li").first();
    await error.waitFor();
    assert.match((await error.textContent()) ?? "", /^workload \(document 2, line \d+\): /);
    assert.match((await page.locator("#status").textContent()) ?? "", /^Error/);
    // And marked on its line in the editor.
    assert.ok(
      (await page.locator("#editor .cm-lintRange-error, #editor .cm-lintPoint-error").count()) > 0,
      "the editor marks the line",
    );
    // Back to the example.
    await page.selectOption("#example", "curl");
    await page.waitForFunction('document.querySelectorAll("#errors li").length === 0');
  });

  it("a share URL reloads the same state", async () => {
    await page.selectOption("#example", "statefulset");
    await page.fill("#revision", "canary");
    await page.check("#native");
    await page.fill("#ns-labels", "istio.io/rev=canary");
    await settled(page);
    await page.click("#share");
    await page.waitForFunction('location.hash.startsWith("#s=")');
    const url = page.url();
    // Evaluated in the page (a string: this file is typed for Node, not the DOM).
    const state = () =>
      page.evaluate(`({
        example: document.querySelector("#example").value,
        revision: document.querySelector("#revision").value,
        native: document.querySelector("#native").checked,
        labels: document.querySelector("#ns-labels").value,
        injected: document.querySelector("#out-injected pre").textContent,
        status: document.querySelector("#status").textContent,
      })`) as Promise<{ example: string; injected: string }>;
    const before = await state();
    assert.equal(before.example, "statefulset");
    assert.match(before.injected ?? "", /istiod-canary/);
    const command = await clipboard(page);
    assert.match(command, /^https?:\/\/127\.0\.0\.1:\d+\/#s=/);

    const second = await page.context().newPage();
    await second.goto(url);
    await second.waitForSelector("body[data-ready=true]");
    const page0 = page;
    page = second;
    assert.deepEqual(await state(), before);
    page = page0;
    await second.close();
  });

  it("copy as kube-inject command", async () => {
    await page.click("#copy-command");
    await page.waitForFunction('document.querySelector("#copied").textContent === "kube-inject command copied"');
    const command = await clipboard(page);
    assert.match(command, /meshinject kube-inject -f workload\.yaml --revision canary --native-sidecars on\n$/);
    assert.match(command, /kind: StatefulSet/);
  });

  it("a template that needs Node's crypto: an inline error, the page keeps working", async () => {
    await page.click("#config-details summary");
    await page.fill(
      "#injector-config",
      'policy: enabled\ntemplates:\n  sidecar: |\n    metadata:\n      annotations:\n        ca: {{ (genCA "x" 1).Cert | quote }}\n',
    );
    await settled(page);
    assert.match((await page.locator("#errors li").first().textContent()) ?? "", /genCA.*needs Node's crypto module/);
    await page.fill("#injector-config", "");
    await settled(page);
    assert.match((await page.locator("#status").textContent()) ?? "", /^Verdict: /);
  });

  it("made no network request after load", () => {
    assert.deepEqual(late, []);
  });
});
