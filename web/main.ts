/**
 * The playground page: wires the inputs (CodeMirror for the workload, the settings) to
 * runPlayground and shows its outputs as tabs. No network request is made after the page loads.
 */
import { yaml } from "@codemirror/lang-yaml";
import { type Diagnostic, setDiagnostics } from "@codemirror/lint";
import { basicSetup, EditorView } from "codemirror";
import { installDefaultAssets } from "../src/inject/defaults.js";
import DEFAULT_ASSETS from "./default-assets.js";
import { EXAMPLES } from "./examples.js";
import { INITIAL_STATE, kubeInjectCommand, type PlaygroundState, runPlayground } from "./playground.js";
import { decodeState, encodeState } from "./share.js";

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
const TABS = ["injected", "diff", "why", "traffic", "proxy", "bootstrap"] as const;

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

function update(): void {
  delete document.body.dataset.pending;
  const started = performance.now();
  const result = runPlayground(readState());
  const pre = (tab: (typeof TABS)[number]) => byId(`out-${tab}`).firstElementChild as HTMLPreElement;
  pre("injected").textContent = result.injected;
  showDiff(pre("diff"), result.diff);
  pre("why").textContent = result.why;
  pre("traffic").textContent = result.traffic;
  pre("proxy").textContent = result.proxy;
  pre("bootstrap").textContent = result.bootstrap;
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
}

TABS.forEach((t, i) => {
  const tab = byId(`tab-${t}`);
  // The panels scroll: reachable with the keyboard.
  byId(`out-${t}`).tabIndex = 0;
  tab.addEventListener("click", () => selectTab(t));
  tab.addEventListener("keydown", (e) => {
    const step = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
    if (step !== 0) selectTab(TABS[(i + step + TABS.length) % TABS.length] ?? t, true);
  });
});

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
