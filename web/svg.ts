/**
 * A Drawing (drawing.ts) as an SVG element. Its parts are one keyboard stop: Tab enters the
 * picture at the selected part, the arrow keys (and Home/End) move between parts, and focusing or
 * clicking a part selects it, which highlights it with its edges and calls `onSelect`.
 */
import { arrowTarget } from "./arrow-keys.js";
import type { Drawing, Part } from "./drawing.js";

const NS = "http://www.w3.org/2000/svg";
let ids = 0;

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };
const esc = (v: string | number) => String(v).replace(/[&<>"]/g, (c) => ESCAPES[c] ?? c);
const attrs = (a: Record<string, string | number>) =>
  Object.entries(a)
    .map(([k, v]) => ` ${k}="${esc(v)}"`)
    .join("");

/**
 * The SVG of `drawing`; `selected` is the part to select first (kept across re-renders). Its
 * elements are written as one markup string, parsed at once: a few hundred of them, rebuilt on
 * every edit, are several times faster so than one by one.
 */
export function renderDrawing(
  drawing: Drawing,
  onSelect: (part: Part) => void,
  selected: string | undefined,
): SVGSVGElement {
  const arrow = `arrow-${++ids}`;
  const svg = document.createElementNS(NS, "svg");
  const top = {
    viewBox: `0 0 ${drawing.width} ${drawing.height}`,
    width: drawing.width,
    height: drawing.height,
    role: "group",
    "aria-label": drawing.title,
    class: "drawing",
  };
  for (const [k, v] of Object.entries(top)) svg.setAttribute(k, String(v));

  const markup: string[] = [
    `<defs><marker${attrs({ id: arrow, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 8, markerHeight: 8, markerUnits: "userSpaceOnUse", orient: "auto-start-reverse" })}><path d="M0,0 L10,5 L0,10 z" class="arrowhead"/></marker></defs>`,
  ];
  const partById = new Map<string, Part>();
  for (const node of drawing.nodes) {
    const part = node.part;
    const g: Record<string, string | number> =
      part === undefined
        ? { class: node.cls }
        : {
            class: `${node.cls} part`,
            "data-part": part.id,
            role: "button",
            "aria-label": part.label,
            tabindex: -1,
          };
    if (part !== undefined) partById.set(part.id, part);
    markup.push(`<g${attrs(g)}><rect${attrs({ x: node.x, y: node.y, width: node.w, height: node.h, rx: 4 })}/>`);
    for (const t of node.texts) {
      markup.push(
        `<text${attrs({ x: t.x, y: t.y, class: t.cls ?? "", "text-anchor": t.anchor ?? "start" })}>${esc(t.text)}</text>`,
      );
    }
    markup.push("</g>");
  }
  for (const edge of drawing.edges) {
    markup.push(
      `<path${attrs({ d: edge.d, class: `edge ${edge.cls}`, "marker-end": `url(#${arrow})`, "data-parts": edge.parts.join(" ") })}/>`,
    );
  }
  svg.innerHTML = markup.join("");
  const parts = [...svg.querySelectorAll<SVGGElement>("g.part")];
  const edges = [...svg.querySelectorAll<SVGPathElement>("path.edge")];

  const select = (g: SVGGElement, focus: boolean) => {
    const id = g.dataset.part ?? "";
    for (const p of parts) {
      const on = p === g;
      p.classList.toggle("selected", on);
      p.tabIndex = on ? 0 : -1;
      p.setAttribute("aria-pressed", String(on));
    }
    for (const e of edges) e.classList.toggle("selected", (e.dataset.parts ?? "").split(" ").includes(id));
    if (focus) g.focus();
    const part = partById.get(id);
    if (part !== undefined) onSelect(part);
  };
  const first = parts.find((p) => p.dataset.part === selected) ?? parts[0];
  if (first !== undefined) select(first, false);

  svg.addEventListener("click", (e) => {
    const g = (e.target as Element).closest<SVGGElement>("g.part");
    if (g !== null) select(g, true);
  });
  svg.addEventListener("focusin", (e) => {
    const g = (e.target as Element).closest<SVGGElement>("g.part");
    if (g !== null && !g.classList.contains("selected")) select(g, false);
  });
  svg.addEventListener("keydown", (e) => {
    const at = parts.findIndex((p) => p.classList.contains("selected"));
    const next = arrowTarget(e.key, at, parts.length, false);
    if (next === undefined) return;
    e.preventDefault();
    const g = parts[next];
    if (g !== undefined) select(g, true);
  });
  return svg;
}
