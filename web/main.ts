/**
 * The playground page: wires the inputs (CodeMirror for the workload, the settings) to
 * runPlayground and shows its outputs as tabs. No network request is made after the page loads.
 */
import { yaml } from "@codemirror/lang-yaml";
import { syntaxHighlighting } from "@codemirror/language";
import { type Diagnostic, setDiagnostics } from "@codemirror/lint";
import { classHighlighter } from "@lezer/highlight";
import { basicSetup, EditorView } from "codemirror";
import { installDefaultAssets } from "../src/inject/defaults.js";
import { arrowTarget } from "./arrow-keys.js";
import DEFAULT_ASSETS from "./default-assets.js";
import type { Part } from "./drawing.js";
import { EXAMPLES } from "./examples.js";
import { showYaml } from "./highlight.js";
import type { WorkloadPictures } from "./pictures.js";
import { INITIAL_STATE, kubeInjectCommand, type PlaygroundState, runPlayground } from "./playground.js";
import { podLayout } from "./pod-layout.js";
import { decodeState, encodeState } from "./share.js";
import { renderDrawing } from "./svg.js";
import { trafficLayout } from "./traffic-layout.js";

installDefaultAssets(DEFAULT_ASSETS);

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const exampleSelect = byId<HTMLSelectElement>("example");
const namespaceInput = byId<HTMLInputElement>("namespace");
const labelsInput = byId<HTMLInputElement>("ns-labels");
const revisionInput = byId<HTMLInputElement>("revision");
const nativeInput = byId<HTMLInputElement>("native");
const injectorConfigInput = byId<HTMLTextAreaElement>("injector-config");
const meshConfigInput = byId<HTMLTextAreaElement>("mesh-config");
const errorsList = byId<HTMLUListElement>("errors");
const status = byId<HTMLParagraphElement>("status");
const copied = byId<HTMLSpanElement>("copied");
const workloadSelect = byId<HTMLSelectElement>("workload");
const TABS = ["pod", "injected", "diff", "why", "traffic", "proxy", "bootstrap"] as const;

for (const ex of EXAMPLES) exampleSelect.add(new Option(ex.title, ex.id));
exampleSelect.add(new Option("(your own)", "custom"));

let timer: ReturnType<typeof setTimeout> | undefined;
const schedule = () => {
  clearTimeout(timer);
  document.body.dataset.pending = "true";
  exampleSelect.value = matchingExample();
  timer = setTimeout(update, 150);
};

const editor = new EditorView({
  parent: byId("editor"),
  extensions: [
    basicSetup,
    yaml(),
    // The tok-* classes the outputs use too (highlight.ts): one palette, light and dark, in style.css.
    syntaxHighlighting(classHighlighter),
    EditorView.contentAttributes.of({ "aria-label": "Workload YAML" }),
    EditorView.updateListener.of((u) => {
      if (u.docChanged) schedule();
    }),
  ],
});

function readState(): PlaygroundState {
  return {
    workload: editor.state.doc.toString(),
    namespace: namespaceInput.value,
    namespaceLabels: labelsInput.value,
    injectorConfig: injectorConfigInput.value,
    meshConfig: meshConfigInput.value,
    revision: revisionInput.value.trim(),
    nativeSidecars: nativeInput.checked,
  };
}

function writeState(state: PlaygroundState): void {
  editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: state.workload } });
  namespaceInput.value = state.namespace;
  labelsInput.value = state.namespaceLabels;
  injectorConfigInput.value = state.injectorConfig;
  meshConfigInput.value = state.meshConfig;
  revisionInput.value = state.revision;
  nativeInput.checked = state.nativeSidecars;
  if (state.injectorConfig !== "" || state.meshConfig !== "") byId<HTMLDetailsElement>("config-details").open = true;
  exampleSelect.value = matchingExample();
}

function matchingExample(): string {
  const text = editor.state.doc.toString();
  const config = injectorConfigInput.value;
  return EXAMPLES.find((ex) => ex.yaml === text && (ex.config ?? "") === config)?.id ?? "custom";
}

/** A unified diff with its added and removed lines marked. */
function showDiff(pre: HTMLElement, diff: string): void {
  pre.replaceChildren();
  for (const line of diff.split("\n")) {
    const span = document.createElement("span");
    if (line.startsWith("+") && !line.startsWith("+++")) span.className = "add";
    else if (line.startsWith("-") && !line.startsWith("---")) span.className = "del";
    span.textContent = `${line}\n`;
    pre.append(span);
  }
}

/** The pictures of the last result, and what is selected in them (kept while the user edits). */
let pictures: WorkloadPictures[] = [];
let fullTraffic = "";
const selection: { pod?: string; traffic?: string } = {};

/** The width a picture has to fill: its pane's, less the scroll bar's room. */
const paneWidth = (pane: HTMLElement) => Math.max(300, Math.floor(pane.clientWidth || byId("outputs").clientWidth) - 4);

/** The YAML the Pod tab's detail shows. */
let detailText = "";

function showPod(w: WorkloadPictures | undefined): void {
  const pane = byId("pod-picture");
  const title = byId("pod-detail-title");
  const detail = byId("pod-detail");
  if (w === undefined) {
    pane.replaceChildren();
    title.textContent = "";
    detail.textContent = "";
    detailText = "";
    return;
  }
  const select = (part: Part) => {
    selection.pod = part.id;
    title.textContent = part.label;
    // Highlighted again only when an edit changed it.
    const text = part.yaml();
    if (text !== detailText) showYaml(detail, text);
    detailText = text;
  };
  pane.replaceChildren(renderDrawing(podLayout(w.pod, paneWidth(pane)), select, selection.pod));
}

function showTraffic(w: WorkloadPictures | undefined): void {
  const pane = byId("traffic-picture");
  const rules = byId("traffic-rules");
  const title = byId("traffic-rules-title");
  if (w === undefined) {
    pane.replaceChildren();
    rules.textContent = fullTraffic;
    return;
  }
  const lines = [`# ${w.header}`, ...w.rules.split("\n")];
  const spans = lines.map((l) => {
    const span = document.createElement("span");
    span.textContent = `${l}\n`;
    if (l.startsWith("#")) span.className = "comment";
    return span;
  });
  rules.replaceChildren(...spans);
  const select = (part: Part) => {
    selection.traffic = part.id;
    const quoted = new Set(
      part
        .yaml()
        .split("\n")
        .filter((l) => l !== "" && !l.startsWith("#")),
    );
    let first: HTMLElement | undefined;
    spans.forEach((span, i) => {
      const hit = quoted.has(lines[i] ?? "");
      span.classList.toggle("hit", hit);
      if (hit && first === undefined) first = span;
    });
    title.textContent = quoted.size > 0 ? `Rules (${part.label.split(",")[0]}: highlighted)` : "Rules";
    first?.scrollIntoView({ block: "nearest" });
  };
  pane.replaceChildren(renderDrawing(trafficLayout(w.traffic, paneWidth(pane), w.rules), select, selection.traffic));
}

/** The tab shown. */
let shown: (typeof TABS)[number] = "pod";

/**
 * What the shown tab needs beyond its text, done for that tab only: the other tabs' are done when
 * they are selected (renderers keyed by tab; each takes the latest result).
 */
const finishers = new Map<(typeof TABS)[number], () => void>();

/** Finishes the shown tab: draws its picture, highlights its YAML. */
function finishShown(): void {
  finishers.get(shown)?.();
  finishers.delete(shown);
}

/** The selected workload's pictures, drawn again (after a resize, another workload). */
function showPictures(): void {
  const w = pictures[Number(workloadSelect.value) || 0] ?? pictures[0];
  finishers.set("pod", () => showPod(w));
  finishers.set("traffic", () => showTraffic(w));
  finishShown();
}

function update(): void {
  delete document.body.dataset.pending;
  const started = performance.now();
  const result = runPlayground(readState());
  const pre = (tab: (typeof TABS)[number]) => byId(`out-${tab}`).firstElementChild as HTMLPreElement;
  // The text at once; highlighted when its tab is shown.
  for (const [tab, text] of [
    ["injected", result.injected],
    ["proxy", result.proxy],
  ] as const) {
    pre(tab).textContent = text;
    finishers.set(tab, () => showYaml(pre(tab), text));
  }
  showDiff(pre("diff"), result.diff);
  pre("why").textContent = result.why;
  pre("bootstrap").textContent = result.bootstrap;
  pictures = result.pictures;
  fullTraffic = result.traffic;
  const chosen = workloadSelect.value;
  workloadSelect.replaceChildren(...pictures.map((w, i) => new Option(w.header, String(i))));
  workloadSelect.value = Number(chosen) < pictures.length ? chosen : "0";
  byId("workload-row").hidden = pictures.length < 2;
  const drawing = performance.now();
  showPictures();
  document.body.dataset.picturesMs = (performance.now() - drawing).toFixed(1);
  errorsList.replaceChildren(
    ...result.errors.map((e) => {
      const li = document.createElement("li");
      const where = [
        e.document === undefined ? "" : `document ${e.document}`,
        e.line === undefined ? "" : `line ${e.line}`,
      ]
        .filter((s) => s !== "")
        .join(", ");
      li.textContent = `${e.input}${where === "" ? "" : ` (${where})`}: ${e.message}`;
      return li;
    }),
    ...result.warnings.map((w) => {
      const li = document.createElement("li");
      li.textContent = `warning: ${w}`;
      return li;
    }),
  );
  // The workload's errors with a line, marked in the editor too.
  const doc = editor.state.doc;
  const diagnostics: Diagnostic[] = result.errors
    .filter((e) => e.input === "workload" && e.line !== undefined)
    .map((e) => {
      const line = doc.line(Math.min(Math.max(e.line ?? 1, 1), doc.lines));
      return { from: line.from, to: line.to, severity: "error", message: e.message };
    });
  editor.dispatch(setDiagnostics(editor.state, diagnostics));
  if (result.errors.length > 0) {
    status.textContent = `Error: ${result.errors.length} problem(s), see below the editor`;
    status.className = "error";
  } else {
    status.textContent = `Verdict: ${result.verdict}`;
    status.className = result.verdict === "injected" ? "injected" : "not-injected";
  }
  document.body.dataset.ms = (performance.now() - started).toFixed(1);
  document.body.dataset.runs = String(Number(document.body.dataset.runs ?? "0") + 1);
}

function selectTab(name: (typeof TABS)[number], focus = false): void {
  for (const t of TABS) {
    const tab = byId(`tab-${t}`);
    const selected = t === name;
    tab.setAttribute("aria-selected", String(selected));
    tab.tabIndex = selected ? 0 : -1;
    byId(`out-${t}`).hidden = !selected;
    if (selected && focus) tab.focus();
  }
  // A hidden pane has no width: its picture is drawn now that it is shown.
  shown = name;
  if (name === "pod" || name === "traffic") showPictures();
  else finishShown();
}

for (const id of ["pod-detail", "traffic-rules"]) byId(id).tabIndex = 0;

TABS.forEach((t, i) => {
  const tab = byId(`tab-${t}`);
  // The panels scroll: reachable with the keyboard (the pictures' panels scroll in their parts).
  if (t !== "pod" && t !== "traffic") byId(`out-${t}`).tabIndex = 0;
  tab.addEventListener("click", () => selectTab(t));
  tab.addEventListener("keydown", (e) => {
    // A horizontal tablist: Up and Down are left to the page.
    if (e.key === "ArrowUp" || e.key === "ArrowDown") return;
    const to = arrowTarget(e.key, i, TABS.length, true);
    if (to === undefined) return;
    e.preventDefault();
    selectTab(TABS[to] ?? t, true);
  });
});

workloadSelect.addEventListener("change", () => {
  selection.pod = undefined;
  selection.traffic = undefined;
  showPictures();
});

// The pictures are laid out for their pane's width: again when it changes.
let drawnWidth = 0;
new ResizeObserver(() => {
  const width = byId("out-pod").clientWidth || byId("out-traffic").clientWidth;
  if (width !== 0 && width !== drawnWidth) {
    drawnWidth = width;
    showPictures();
  }
}).observe(byId("outputs"));

exampleSelect.addEventListener("change", () => {
  const ex = EXAMPLES.find((x) => x.id === exampleSelect.value);
  if (ex === undefined) return;
  writeState({ ...readState(), workload: ex.yaml, injectorConfig: ex.config ?? "" });
  clearTimeout(timer);
  update();
});
for (const input of [namespaceInput, labelsInput, revisionInput, injectorConfigInput, meshConfigInput]) {
  input.addEventListener("input", schedule);
}
nativeInput.addEventListener("change", schedule);

async function copy(text: string, what: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    copied.textContent = `${what} copied`;
  } catch {
    copied.textContent = `${what}: copy failed (see the address bar)`;
  }
}

byId("share").addEventListener("click", async () => {
  const hash = await encodeState(readState());
  history.replaceState(null, "", hash);
  await copy(location.href, "Share link");
});
byId("copy-command").addEventListener("click", () => copy(kubeInjectCommand(readState()), "kube-inject command"));

const shared = await decodeState(location.hash);
writeState({ ...INITIAL_STATE, workload: EXAMPLES[0]?.yaml ?? "", ...shared });
update();
// Milliseconds from navigation start to the first injected result (bench/web.ts reads it).
document.body.dataset.firstResult = performance.now().toFixed(1);
document.body.dataset.ready = "true";
