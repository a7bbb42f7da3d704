/**
 * The Pod picture laid out for a width, with no DOM: a column of init containers (in order, with an
 * arrow from each to the next) and containers, each a box of rows (ports, probes, mounts), and the
 * volumes beside them (or below them when the width is narrow), a curve from every mount row to its
 * volume. Probes loop out to the left: a re-pointed probe to the agent's status port, and from there
 * to the app port the agent really checks. Every box and row is a selectable part.
 */
import { type Drawing, type Edge, fit, line, loop, type Node, ROW, sCurve, type Text } from "./drawing.js";
import { AGENT_STATUS, type ContainerModel, type PodModel, type ProbeRow, type Yaml } from "./pod-model.js";

const PAD = 10;
/** Left of the boxes: room for the probes' loops. */
const GUTTER = 54;
const NARROW_GUTTER = 34;
const HEADER = 22;
const SECTION = 24;
/** The widest the containers' column gets, and the least the volumes' column may have beside it. */
const MAX_COLUMN = 430;
const MIN_VOLUMES = 190;
const MOUNT_GAP = 64;

const added = (n: { added?: boolean; changed?: boolean | string[] }) =>
  n.added ? " added" : (Array.isArray(n.changed) ? n.changed.length > 0 : n.changed) ? " changed" : "";

interface Placed {
  model: ContainerModel;
  node: Node;
  /** Row centre y by part id. */
  rows: Map<string, number>;
}

function probeLine(p: ProbeRow): string {
  return p.rewritten === undefined ? `${p.kind}: ${p.text}` : `${p.kind}: :${p.port} → agent → ${p.rewritten.check}`;
}

/** `:8080  containerPort · liveness, readiness probes via :15020`: the port and why the pod has it. */
function portLine(port: number | string, uses: string[]): string {
  const probes = new Map<string, string[]>();
  const other: string[] = [];
  for (const use of uses) {
    const m = /^(\w+) probe(?: \(via (:\d+)\))?$/.exec(use);
    if (m === null) {
      other.push(use);
      continue;
    }
    const via = m[2] === undefined ? "" : ` via ${m[2]}`;
    probes.set(via, [...(probes.get(via) ?? []), m[1] ?? ""]);
  }
  for (const [via, kinds] of probes) other.push(`${kinds.join(", ")} probe${kinds.length > 1 ? "s" : ""}${via}`);
  return `:${port}  ${other.join(" · ")}`;
}

/** A container's box and its rows, at (x, y), `w` wide. */
function containerBox(c: ContainerModel, x: number, y: number, w: number, nodes: Node[]): Placed {
  const badges = [
    c.init ? `init ${c.order}` : "",
    c.nativeSidecar ? "native sidecar (restartPolicy: Always)" : "",
    c.added ? "added" : c.changed.length > 0 ? `changed: ${c.changed.join(", ")}` : "",
  ].filter((b) => b !== "");
  const rows = new Map<string, number>();
  const texts: Text[] = [
    { x: x + 8, y: y + 15, text: fit(c.name, w - 16), cls: "name" },
    {
      x: x + 8,
      y: y + HEADER + 12,
      text: fit(badges.join(" · ") || (c.init ? "" : "container"), w - 16),
      cls: "muted",
    },
    { x: x + 8, y: y + HEADER + 12 + ROW, text: fit(`image ${c.image}`, w - 16), cls: "muted" },
  ];
  let yy = y + HEADER + 2 * ROW + 4;
  const rowNodes: Node[] = [];
  const row = (
    id: string,
    label: string,
    text: string,
    yaml: Yaml,
    cls: string,
    mark: { added?: boolean; changed?: boolean },
  ) => {
    rows.set(id, yy + ROW / 2);
    rowNodes.push({
      x: x + 2,
      y: yy,
      w: w - 4,
      h: ROW,
      cls: `row ${cls}${added(mark)}`,
      texts: [{ x: x + 10, y: yy + 12.5, text: fit(text, w - 20) }],
      part: { id, label, yaml },
      ...mark,
    });
    yy += ROW;
  };
  for (const p of c.ports) {
    row(p.id, `port ${p.port} of ${c.name}: ${p.uses.join(", ")}`, portLine(p.port, p.uses), p.yaml, "port", p);
  }
  for (const p of c.probes) {
    row(p.id, `${p.kind} probe of ${c.name}: ${p.text}`, probeLine(p), p.yaml, "probe", p);
  }
  for (const m of c.mounts) {
    row(
      m.id,
      `${c.name} mounts volume ${m.volume} at ${m.path}`,
      `${m.volume} at ${m.path}${m.readOnly ? " (read-only)" : ""}`,
      m.yaml,
      "mount",
      m,
    );
  }
  const node: Node = {
    x,
    y,
    w,
    h: yy - y + 6,
    cls: `box container${c.init ? " init" : ""}${c.nativeSidecar ? " native" : ""}${added(c)}`,
    texts,
    part: { id: c.id, label: `${c.init ? `init container ${c.order}` : "container"} ${c.name}`, yaml: c.yaml },
    added: c.added,
    changed: c.changed.length > 0,
  };
  nodes.push(node, ...rowNodes);
  return { model: c, node, rows };
}

/** The Pod picture of `model`, `width` pixels wide. */
export function podLayout(model: PodModel, width: number): Drawing {
  const nodes: Node[] = [];
  const edges: Edge[] = [];
  const wide = width - 2 * PAD - GUTTER >= 260 + MOUNT_GAP + MIN_VOLUMES;
  // Narrow: a thinner gutter for the probes, and the mounts loop out on the right.
  const gutter = wide ? GUTTER : NARROW_GUTTER;
  const usable = width - 2 * PAD - gutter;
  const x0 = PAD + gutter;
  const colW = wide ? Math.min(MAX_COLUMN, usable - MOUNT_GAP - MIN_VOLUMES) : Math.max(160, usable - 22);
  let y = PAD;

  const section = (text: string, x: number, w: number, at: number) =>
    nodes.push({
      x,
      y: at,
      w,
      h: SECTION - 6,
      cls: "section",
      texts: [{ x, y: at + 13, text: fit(text, w), cls: "section" }],
    });

  // The pod itself: its header, and what injection added to its metadata.
  const podTexts: Text[] = [
    { x: PAD + 8, y: y + 16, text: fit(`Pod of ${model.header}`, width - 2 * PAD - 16), cls: "name" },
  ];
  if (model.addedMetadata.length > 0) {
    podTexts.push({
      x: PAD + 8,
      y: y + 16 + ROW,
      text: fit(
        `injection added ${model.addedMetadata.length} annotations/labels (select to see)`,
        width - 2 * PAD - 16,
      ),
      cls: "muted",
    });
  }
  const podHeader: Node = {
    x: PAD,
    y,
    w: width - 2 * PAD,
    h: podTexts.length === 1 ? 24 : 24 + ROW,
    cls: "box pod",
    texts: podTexts,
    part: {
      id: "pod",
      label: `pod of ${model.header}`,
      yaml: () =>
        model.addedMetadata.length === 0
          ? model.podYaml()
          : `# added by injection:\n${model.addedMetadata.map((m) => `#   ${m}`).join("\n")}\n${model.podYaml()}`,
    },
  };
  nodes.push(podHeader);
  y += podHeader.h + 10;

  const placed: Placed[] = [];
  if (model.inits.length > 0) {
    section("init containers, in order", x0, colW, y);
    y += SECTION;
    model.inits.forEach((c, i) => {
      const p = containerBox(c, x0, y, colW, nodes);
      placed.push(p);
      y += p.node.h;
      if (i < model.inits.length - 1) {
        edges.push({ d: line(x0 + colW / 2, y, x0 + colW / 2, y + 14), cls: "order", parts: [c.id] });
        y += 16;
      }
    });
    y += 12;
  }
  section("containers, run together", x0, colW, y);
  y += SECTION;
  for (const c of model.containers) {
    const p = containerBox(c, x0, y, colW, nodes);
    placed.push(p);
    y += p.node.h + 10;
  }
  const containersBottom = y;

  // Volumes: beside the containers, or below them.
  const vx = wide ? x0 + colW + MOUNT_GAP : x0;
  const vw = wide ? Math.min(320, width - PAD - vx) : colW;
  let vy = wide ? podHeader.y + podHeader.h + 10 : containersBottom + 4;
  const volumeY = new Map<string, Node>();
  if (model.volumes.length > 0) {
    section("volumes", vx, vw, vy);
    vy += SECTION;
  }
  for (const v of model.volumes) {
    const node: Node = {
      x: vx,
      y: vy,
      w: vw,
      h: HEADER + ROW,
      cls: `box volume${v.added ? " added" : ""}`,
      texts: [
        { x: vx + 8, y: vy + 15, text: fit(v.name, vw - 16), cls: "name" },
        { x: vx + 8, y: vy + HEADER + 11, text: fit(v.source, vw - 16), cls: "muted" },
      ],
      part: { id: v.id, label: `volume ${v.name}: ${v.source}`, yaml: v.yaml },
      added: v.added,
    };
    nodes.push(node);
    volumeY.set(v.name, node);
    vy += node.h + 8;
  }

  // Mounts: each mount row to its volume.
  for (const p of placed) {
    for (const m of p.model.mounts) {
      const v = volumeY.get(m.volume);
      const y1 = p.rows.get(m.id);
      if (v === undefined || y1 === undefined) continue;
      const y2 = v.y + v.h / 2;
      const d = wide
        ? sCurve(p.node.x + p.node.w, y1, v.x, y2)
        : loop(p.node.x + p.node.w, y1, v.x + v.w, y2, 8 + (edges.length % 4) * 3);
      edges.push({ d, cls: `mount${m.added ? " added" : ""}`, parts: [m.id, v.part?.id ?? "", p.model.id] });
    }
  }

  // Probes: to the port the kubelet connects to, and for a re-pointed one on to the port the agent checks.
  let lane = 0;
  const out = () => -(10 + (lane++ % 5) * (wide ? 8 : 5));
  const portRow = (container: Placed | undefined, port: number | string | undefined) =>
    container === undefined || port === undefined
      ? undefined
      : container.rows.get(container.model.ports.find((r) => String(r.port) === String(port))?.id ?? "");
  const proxy = placed.find((p) => p.model.ports.some((r) => r.uses.includes(AGENT_STATUS)));
  for (const p of placed) {
    for (const probe of p.model.probes) {
      const y1 = p.rows.get(probe.id);
      if (y1 === undefined) continue;
      const x = p.node.x;
      if (probe.rewritten !== undefined && proxy !== undefined) {
        const status = portRow(proxy, probe.port);
        const app = portRow(p, probe.rewritten.port);
        if (status !== undefined) {
          edges.push({ d: loop(x, y1, proxy.node.x, status, out()), cls: "probe changed", parts: [probe.id] });
        }
        if (status !== undefined && app !== undefined) {
          edges.push({ d: loop(proxy.node.x, status, x, app, out()), cls: "probe real", parts: [probe.id] });
        }
      } else {
        const own = portRow(p, probe.port);
        if (own !== undefined && own !== y1)
          edges.push({ d: loop(x, y1, x, own, out()), cls: "probe", parts: [probe.id] });
      }
    }
  }

  const height = Math.max(containersBottom, vy) + PAD;
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
  return {
    width,
    height,
    title: `The injected pod of ${model.header}: ${count(model.inits.length, "init container")}, ${count(model.containers.length, "container")}, ${count(model.volumes.length, "volume")}`,
    nodes,
    edges,
  };
}
