/**
 * The Traffic picture laid out for a width, with no DOM: one lane per direction (inbound, outbound,
 * and DNS when it is captured), each a chain of stages (where the packet enters the rules, the
 * listener it is redirected to, where it ends) with arrows between them, and under it what the rules
 * leave alone, joined by a dashed arrow that goes around Envoy. Stages sit in a row when the width
 * allows, else in a column. Each stage is a selectable part whose text is the rules it stands for.
 */
import { CHAR_WIDTH, cubic, type Drawing, type Edge, line, loop, type Node, ROW, type Text } from "./drawing.js";
import type { TrafficModel } from "./traffic-model.js";

const PAD = 10;
const ARROW = 30;
const LANE_TITLE = 24;

interface Stage {
  id: string;
  title: string;
  lines: string[];
  cls: string;
  /** Rule lines mentioning one of these (lower case, `-` for `_`) are the stage's text. */
  keywords: string[];
}

interface Lane {
  id: string;
  title: string;
  stages: Stage[];
  /** What goes around Envoy: from stage `from` straight to stage `to`. */
  bypass?: { from: number; to: number; lines: string[] };
  off?: string;
}

/** `text` split into lines of at most `width` pixels, at spaces and commas where it can. */
export function wrap(text: string, width: number): string[] {
  const max = Math.max(8, Math.floor(width / CHAR_WIDTH));
  const out: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const cut = Math.max(rest.lastIndexOf(" ", max), rest.lastIndexOf(",", max - 1) + 1);
    const at = cut > max / 3 ? cut : max;
    out.push(rest.slice(0, at).trimEnd());
    rest = rest.slice(at).trimStart();
  }
  if (rest !== "") out.push(rest);
  return out;
}

const ports = (ps: string[]) => ps.map((p) => `:${p}`).join(", ");

function lanes(m: TrafficModel): Lane[] {
  const table = m.backend === "nftables" ? "nftables" : "iptables nat";
  // TPROXY marks inbound packets in the mangle table and Envoy connects to the app from the
  // client's own address; REDIRECT rewrites them in nat and Envoy connects from 127.0.0.6.
  const tproxy = m.mode === "TPROXY";
  const inboundTable = m.backend === "nftables" ? "nftables" : tproxy ? "iptables mangle" : "iptables nat";
  const ifaces = m.interfaces.excluded.length > 0 ? [`interfaces ${m.interfaces.excluded.join(", ")}`] : [];
  const app = m.appPorts.length > 0 ? `app ${ports(m.appPorts)}` : "app (the port the client asked for)";

  const inbound: Lane = {
    id: "inbound",
    title: `Inbound (${m.mode})`,
    stages: [
      { id: "in-client", title: "client", lines: ["connects to the pod"], cls: "endpoint", keywords: [] },
      {
        id: "in-prerouting",
        title: `PREROUTING (${inboundTable})`,
        lines:
          m.inbound.captured === "all"
            ? ["every TCP port", "→ ISTIO_INBOUND"]
            : m.inbound.captured === "some"
              ? [`only ${ports(m.inbound.ports)}`, "→ ISTIO_INBOUND"]
              : ["no port captured"],
        cls: "chain",
        keywords: ["prerouting", "istio-inbound", "istio-in-redirect", "istio-divert", "istio-tproxy"],
      },
      {
        id: "in-envoy",
        title: `Envoy :${m.inbound.capturePort}`,
        lines: ["inbound listener"],
        cls: `envoy${m.inbound.captured === "none" ? " off" : ""}`,
        keywords: [`:${m.inbound.capturePort}`, `ports ${m.inbound.capturePort}`, `port ${m.inbound.capturePort}`],
      },
      {
        id: "in-app",
        title: app,
        lines: [tproxy ? "from the client's address" : "from 127.0.0.6"],
        cls: "endpoint",
        keywords: [tproxy ? "istio-tproxy" : "127.0.0.6"],
      },
    ],
    bypass: {
      from: 1,
      to: 3,
      lines: [
        "not captured:",
        ...(m.inbound.captured === "all"
          ? [`ports ${ports(m.inbound.excluded)}`]
          : m.inbound.captured === "some"
            ? [`every port but ${ports(m.inbound.ports)}`]
            : ["all inbound traffic"]),
        ...(m.inbound.captured === "none" ? [] : ifaces),
        ...(m.interfaces.virtual.length > 0
          ? [`virtual interfaces ${m.interfaces.virtual.join(", ")} (rerouted to outbound)`]
          : []),
      ],
    },
  };

  const o = m.outbound;
  const owners = [
    ...(o.uids.length > 0 ? [`uid ${o.uids.join(", ")}`] : []),
    ...(o.gids.length > 0 ? [`gid ${o.gids.join(", ")}`] : []),
  ];
  const groups = o.ownerGroups.except
    ? o.ownerGroups.values.length > 0
      ? [`groups ${o.ownerGroups.values.join(", ")}`]
      : []
    : [`groups other than ${o.ownerGroups.values.join(", ")}`];
  const outbound: Lane = {
    id: "outbound",
    title: "Outbound",
    stages: [
      { id: "out-app", title: "app", lines: ["connects out"], cls: "endpoint", keywords: [] },
      {
        id: "out-output",
        title: `OUTPUT (${table})`,
        lines:
          o.captured === "all"
            ? ["every destination", "→ ISTIO_OUTPUT"]
            : o.captured === "some"
              ? [`only ${o.ranges.join(", ")}`, "→ ISTIO_OUTPUT"]
              : o.includedPorts.length > 0
                ? [`only ports ${ports(o.includedPorts)}`]
                : ["no destination captured"],
        cls: "chain",
        keywords: ["-a output", " output ", "istio-output"],
      },
      {
        id: "out-envoy",
        title: `Envoy :${o.proxyPort}`,
        lines: ["outbound listener"],
        cls: `envoy${o.captured === "none" && o.includedPorts.length === 0 ? " off" : ""}`,
        keywords: ["istio-redirect", `:${o.proxyPort}`, `ports ${o.proxyPort}`],
      },
      { id: "out-upstream", title: "upstream", lines: ["the destination"], cls: "endpoint", keywords: [] },
    ],
    bypass: {
      from: 1,
      to: 3,
      lines: [
        "not captured:",
        ...(owners.length > 0 ? [`Envoy's own traffic: ${owners.join(", ")}`] : []),
        ...groups,
        ...(o.loopback === "" ? [] : [`loopback ${o.loopback}`]),
        ...(o.excludedRanges.length > 0 ? [`CIDRs ${o.excludedRanges.join(", ")}`] : []),
        ...(o.captured === "some" ? ["other destinations"] : []),
        ...(o.excludedPorts.length > 0 ? [`ports ${ports(o.excludedPorts)}`] : []),
        ...ifaces,
      ],
    },
  };
  if (o.includedPorts.length > 0) outbound.bypass?.lines.push(`(ports ${ports(o.includedPorts)} always captured)`);

  const all: Lane[] = [inbound, outbound];
  const dns = m.dns;
  all.push({
    id: "dns",
    title: "DNS",
    stages:
      dns === undefined
        ? []
        : [
            { id: "dns-app", title: "app", lines: ["resolves a name"], cls: "endpoint", keywords: [] },
            {
              id: "dns-output",
              title: `OUTPUT (${table})`,
              lines: [
                "UDP/TCP :53",
                dns.all
                  ? "to any server"
                  : dns.servers.length > 0
                    ? `to ${dns.servers.join(", ")}`
                    : "to the resolv.conf servers (known at run time)",
              ],
              cls: "chain",
              keywords: ["dport 53", "istio-output-dns", "istio-dns", "raw"],
            },
            {
              id: "dns-proxy",
              title: `agent :${dns.port}`,
              lines: ["DNS proxy"],
              cls: "envoy",
              keywords: [`:${dns.port}`, `ports ${dns.port}`, `port ${dns.port}`],
            },
            {
              id: "dns-upstream",
              title: "name server",
              lines: ["if not answered locally"],
              cls: "endpoint",
              keywords: [],
            },
          ],
    off:
      dns === undefined
        ? "not captured: port 53 goes to the name server directly (ISTIO_META_DNS_CAPTURE is not true)"
        : undefined,
  });
  return all;
}

/** The rule lines that mention one of `keywords`. */
function rulesOf(rules: string[], keywords: string[]): string {
  if (keywords.length === 0) return "";
  const hits = rules.filter((r) => {
    const l = ` ${r.toLowerCase().replaceAll("_", "-")} `;
    return !r.startsWith("#") && keywords.some((k) => l.includes(k));
  });
  return hits.join("\n");
}

/** The Traffic picture of `model`, `width` pixels wide; `rules` the rule text its stages quote. */
export function trafficLayout(model: TrafficModel, width: number, rules: string): Drawing {
  const nodes: Node[] = [];
  const edges: Edge[] = [];
  const ruleLines = rules.split("\n");
  let y = PAD;
  const full = width - 2 * PAD;
  const title = (text: string, cls = "section") =>
    nodes.push({ x: PAD, y, w: full, h: LANE_TITLE - 6, cls: "section", texts: [{ x: PAD, y: y + 13, text, cls }] });

  const byWho =
    model.by === "none"
      ? (model.note ?? "no capture")
      : `${model.by === "istio-init" ? "istio-init programs" : "the istio-cni plugin programs"} ${model.backend} rules in the pod's network namespace`;
  for (const l of wrap(byWho, full)) {
    title(l, "muted");
    y += ROW;
  }
  y += 6;
  if (model.by === "none") return { width, height: y + PAD, title: byWho, nodes, edges };

  for (const lane of lanes(model)) {
    title(lane.title);
    y += LANE_TITLE;
    if (lane.stages.length === 0) {
      for (const l of wrap(lane.off ?? "", full)) {
        nodes.push({
          x: PAD,
          y,
          w: full,
          h: ROW,
          cls: "note",
          texts: [{ x: PAD + 4, y: y + 12, text: l, cls: "muted" }],
        });
        y += ROW;
      }
      y += 10;
      continue;
    }
    const n = lane.stages.length;
    // In a row when the stages fit; else in a column, with what is left alone beside it, or below.
    const mode: "row" | "side" | "column" =
      (full - (n - 1) * ARROW) / n >= 120 ? "row" : full >= 440 ? "side" : "column";
    const w = mode === "row" ? (full - (n - 1) * ARROW) / n : mode === "side" ? Math.round(full * 0.55) : full - 40;
    const placed: Node[] = [];
    const stageLines = lane.stages.map((s) => s.lines.flatMap((l) => wrap(l, w - 14)));
    const titles = lane.stages.map((s) => wrap(s.title, w - 14));
    const rowH =
      10 + Math.max(...lane.stages.map((_, i) => ((titles[i]?.length ?? 1) + (stageLines[i]?.length ?? 0)) * 15));
    lane.stages.forEach((s, i) => {
      const heads = titles[i] ?? [];
      const lines = stageLines[i] ?? [];
      const bh = mode === "row" ? rowH : 10 + (heads.length + lines.length) * 15;
      const x = mode === "row" ? PAD + i * (w + ARROW) : PAD;
      const texts: Text[] = [
        ...heads.map((l, j) => ({ x: x + 7, y: y + 16 + j * 15, text: l, cls: "name" })),
        ...lines.map((l, j) => ({ x: x + 7, y: y + 16 + (heads.length + j) * 15, text: l, cls: "muted" })),
      ];
      const node: Node = {
        x,
        y,
        w,
        h: bh,
        cls: `box stage ${s.cls}`,
        texts,
        part: {
          id: `${lane.id}:${s.id}`,
          label: `${lane.title}: ${s.title}, ${s.lines.join(", ")}`,
          yaml: () => {
            const quoted = rulesOf(ruleLines, s.keywords);
            return `# ${s.title}: ${s.lines.join(" ")}\n${quoted === "" ? "# (no rule of its own)" : quoted}\n`;
          },
        },
      };
      nodes.push(node);
      placed.push(node);
      if (mode !== "row") y += bh + (i < n - 1 ? 22 : 0);
    });
    for (let i = 0; i < n - 1; i++) {
      const a = placed[i] as Node;
      const b = placed[i + 1] as Node;
      const off = a.cls.includes(" off") || b.cls.includes(" off");
      edges.push({
        d:
          mode === "row"
            ? line(a.x + a.w, a.y + rowH / 2, b.x - 1, b.y + rowH / 2)
            : line(a.x + a.w / 2, a.y + a.h, b.x + b.w / 2, b.y - 1),
        cls: `flow${off ? " off" : ""}`,
        parts: [a.part?.id ?? "", b.part?.id ?? ""],
      });
    }
    if (mode === "row") y += rowH;
    const bypass = lane.bypass;
    if (bypass !== undefined && bypass.lines.length > 1) {
      const from = placed[bypass.from] as Node;
      const to = placed[bypass.to] as Node;
      const fromX = from.x + from.w / 2;
      const toX = to.x + to.w / 2;
      const bx = mode === "row" ? fromX : mode === "side" ? PAD + w + 34 : PAD;
      const bw = mode === "row" ? toX - fromX : mode === "side" ? full + PAD - bx : full - 40;
      const lines = bypass.lines.flatMap((l) => wrap(l, bw - 14));
      const by = mode === "row" ? y + 22 : mode === "side" ? from.y : y + 22;
      const bh = 10 + lines.length * 15;
      const id = `${lane.id}:bypass`;
      nodes.push({
        x: bx,
        y: by,
        w: bw,
        h: bh,
        cls: "box bypass",
        texts: lines.map((l, j) => ({ x: bx + 7, y: by + 17 + j * 15, text: l, cls: j === 0 ? "name" : "muted" })),
        part: {
          id,
          label: `${lane.title}, ${bypass.lines.join(" ")}`,
          yaml: () => `# ${bypass.lines.join("\n#   ")}\n${rulesOf(ruleLines, [" return"])}\n`,
        },
      });
      const fy = from.y + from.h / 2;
      const ty = to.y + to.h / 2;
      edges.push({
        d:
          mode === "row"
            ? `${line(fromX, from.y + from.h, fromX, by)} ${line(toX, by, toX, to.y + to.h + 1)}`
            : mode === "side"
              ? `${cubic(from.x + from.w, fy, bx - 12, fy, bx - 20, by + 12, bx, by + 12)} ${cubic(bx, by + bh - 8, bx - 24, by + bh - 8, to.x + to.w + 24, ty, to.x + to.w + 1, ty)}`
              : loop(from.x + from.w, fy, to.x + to.w, ty, 24),
        cls: "bypass",
        parts: [id],
      });
      y = mode === "side" ? Math.max(y, by + bh) : by + bh;
    }
    y += 16;
  }
  return {
    width,
    height: y + PAD,
    title: `Traffic capture: ${byWho}`,
    nodes,
    edges,
  };
}
