/**
 * A laid-out picture, with no DOM: rectangles with text, and edges as SVG path data. The layout
 * code (pod-layout.ts, traffic-layout.ts) computes one from a model, pure and testable in Node;
 * svg.ts only turns it into elements.
 *
 * The layouts are written by hand rather than with a graph-layout library: the pictures are a few
 * fixed columns and lanes (init containers in order, containers, volumes; inbound and outbound
 * chains), where a general layered layout (dagre, elk: 100+ KB) would place the same boxes less
 * predictably and cost the bundle budget.
 */

/** A selectable part: what it is called (for screen readers) and the YAML shown when it is selected. */
export interface Part {
  id: string;
  label: string;
  /** Written when the part is selected. */
  yaml: () => string;
}

export interface Text {
  x: number;
  y: number;
  text: string;
  /** CSS classes (`title`, `muted`, `port`...). */
  cls?: string;
  anchor?: "start" | "middle" | "end";
}

/** A rectangle with its texts; a node with `part` can be focused and selected. */
export interface Node {
  x: number;
  y: number;
  w: number;
  h: number;
  cls: string;
  texts: Text[];
  part?: Part;
  /** Added by injection (highlighted), or changed by it. */
  added?: boolean;
  changed?: boolean;
}

export interface Edge {
  /** SVG path data. */
  d: string;
  cls: string;
  /** Parts whose selection highlights this edge. */
  parts: string[];
}

export interface Drawing {
  width: number;
  height: number;
  /** What the picture shows, in one sentence (the SVG's accessible name). */
  title: string;
  nodes: Node[];
  edges: Edge[];
}

/** The picture's font: 12 px monospace, whose advance is close to this for the fonts browsers pick. */
export const CHAR_WIDTH = 7.3;
export const ROW = 17;

/** `text` cut to fit `width` pixels, with an ellipsis. */
export function fit(text: string, width: number): string {
  const max = Math.max(1, Math.floor(width / CHAR_WIDTH));
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

const r = (n: number) => Math.round(n * 10) / 10;

/** A horizontal S-curve from (x1, y1) to (x2, y2). */
export function sCurve(x1: number, y1: number, x2: number, y2: number): string {
  const dx = Math.max(20, Math.abs(x2 - x1) / 2);
  return `M${r(x1)},${r(y1)} C${r(x1 + dx)},${r(y1)} ${r(x2 - dx)},${r(y2)} ${r(x2)},${r(y2)}`;
}

/** A loop out to the side `out` pixels (negative: to the left) from (x1, y1) back to (x2, y2). */
export function loop(x1: number, y1: number, x2: number, y2: number, out: number): string {
  const xm = out < 0 ? Math.min(x1, x2) + out : Math.max(x1, x2) + out;
  return `M${r(x1)},${r(y1)} C${r(xm)},${r(y1)} ${r(xm)},${r(y2)} ${r(x2)},${r(y2)}`;
}

/** A straight line. */
export const line = (x1: number, y1: number, x2: number, y2: number): string => `M${r(x1)},${r(y1)} L${r(x2)},${r(y2)}`;

/** A cubic Bézier from (x1, y1) to (x2, y2) with the given control points. */
export const cubic = (
  x1: number,
  y1: number,
  c1x: number,
  c1y: number,
  c2x: number,
  c2y: number,
  x2: number,
  y2: number,
) => `M${r(x1)},${r(y1)} C${r(c1x)},${r(c1y)} ${r(c2x)},${r(c2y)} ${r(x2)},${r(y2)}`;
