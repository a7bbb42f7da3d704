/**
 * A Drawing (drawing.ts) as an SVG element. Its parts are one keyboard stop: Tab enters the
 * picture at the selected part, the arrow keys (and Home/End) move between parts, and focusing or
 * clicking a part selects it, which highlights it with its edges and calls `onSelect`.
 */
import { arrowTarget } from "./arrow-keys.js";
import type { Drawing, Part } from "./drawing.js";

const NS = "http://www.w3.org/2000/svg";
let ids = 0;

function el<K extends keyof SVGElementTagNameMap>(
  name: K,
  attrs: Record<string, string | number>,
): SVGElementTagNameMap[K] {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

/** The SVG of `drawing`; `selected` is the part to select first (kept across re-renders). */
export function renderDrawing(
  drawing: Drawing,
  onSelect: (part: Part) => void,
  selected: string | undefined,
): SVGSVGElement {
  const arrow = `arrow-${++ids}`;
  const svg = el("svg", {
    viewBox: `0 0 ${drawing.width} ${drawing.height}`,
    width: drawing.width,
    height: drawing.height,
    role: "group",
    "aria-label": drawing.title,
    class: "drawing",
  });
  const defs = el("defs", {});
  const marker = el("marker", {
    id: arrow,
    viewBox: "0 0 10 10",
    refX: 9,
    refY: 5,
    markerWidth: 8,
    markerHeight: 8,
    markerUnits: "userSpaceOnUse",
    orient: "auto-start-reverse",
  });
  marker.append(el("path", { d: "M0,0 L10,5 L0,10 z", class: "arrowhead" }));
  defs.append(marker);
  svg.append(defs);

  const parts: SVGGElement[] = [];
  const partById = new Map<string, Part>();
  for (const node of drawing.nodes) {
    const g = el("g", { class: node.cls });
    g.append(el("rect", { x: node.x, y: node.y, width: node.w, height: node.h, rx: 4 }));
    for (const t of node.texts) {
      const text = el("text", { x: t.x, y: t.y, class: t.cls ?? "", "text-anchor": t.anchor ?? "start" });
      text.textContent = t.text;
      g.append(text);
    }
    if (node.part !== undefined) {
      g.classList.add("part");
      g.dataset.part = node.part.id;
      g.setAttribute("role", "button");
      g.setAttribute("aria-label", node.part.label);
      g.tabIndex = -1;
      parts.push(g);
      partById.set(node.part.id, node.part);
    }
    svg.append(g);
  }
  const edges: SVGPathElement[] = [];
  for (const edge of drawing.edges) {
    const path = el("path", { d: edge.d, class: `edge ${edge.cls}`, "marker-end": `url(#${arrow})` });
    path.dataset.parts = edge.parts.join(" ");
    edges.push(path);
    svg.append(path);
  }

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
