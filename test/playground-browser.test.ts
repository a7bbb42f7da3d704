/**
 * The playground in a real browser: Debian's chromium (installed by .ci/run) driven by
 * playwright-core, against `meshinject playground`'s server on loopback, serving a fresh
 * `build:web` output. Checks what a visitor sees: the curl example injected, the diff, the why
 * tab, the namespace label switched off, an inline YAML error, a share URL reloaded, and that the
 * page makes no network request after it has loaded. Writes docs/playground.png.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type Browser, chromium, type Page } from "playwright-core";
import { type PlaygroundServer, startPlaygroundServer } from "../src/cli/playground.js";
import { buildWeb } from "../web/build.js";
import { CHROMIUM, CHROMIUM_ARGS } from "./chromium.js";

/** Waits until the inputs' changes have been run (the page debounces them). */
const settled = (page: Page) => page.waitForSelector("body:not([data-pending])", { state: "attached" });

const clipboard = (page: Page) => page.evaluate("navigator.clipboard.readText()") as Promise<string>;

const panel = (page: Page, tab: string) => page.locator(`#out-${tab} pre`);

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
