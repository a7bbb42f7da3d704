/**
 * A fake upstream DNS resolver of ours for tests, conformance and benchmarks, on loopback, one port
 * for UDP and TCP. Like the miekg/dns ServeMux of Istio's tests it routes a question to the zone that
 * is the longest label suffix of its name (`.` catches the rest) and replies with the request's ID,
 * RD, CD and question, that zone's rcode and records, and no OPT record; a zone may cut its reply to
 * the request's UDP size (EDNS0 size, at least 512) on both transports. `silent` never answers.
 */
import type { Buffer } from "node:buffer";
import { createSocket, type Socket as UdpSocket } from "node:dgram";
import { createServer, type Server, type Socket } from "node:net";
import { replyTo } from "../accept.js";
import { FrameReader, frame } from "../tcp-frame.js";
import { type Answer, decodeMessage, encodeMessage, type Packet, packReply, RCODE, replySizeLimit } from "../wire.js";

export interface FakeZone {
  /** `www.bing.com.`, `.` for everything else. */
  zone: string;
  rcode?: keyof typeof RCODE;
  answer?: Answer[];
  /** Cut the reply to the request's UDP size, compressing as miekg's Truncate does. */
  truncate?: boolean;
}

export interface FakeResolver {
  host: string;
  port: number;
  /** `127.0.0.1:<port>` */
  address: string;
  /** Queries received so far. */
  queries: () => number;
  close(): Promise<void>;
}

function zoneFor(zones: readonly FakeZone[], name: string): FakeZone | undefined {
  const fqdn = `${name.toLowerCase().replace(/\.$/, "")}.`;
  let best: FakeZone | undefined;
  for (const z of zones) {
    const zone = z.zone.toLowerCase();
    const matches = zone === "." || fqdn === zone || fqdn.endsWith(`.${zone}`);
    if (matches && (!best || zone.length > best.zone.length || best.zone === ".")) best = z;
  }
  return best;
}

export function fakeAnswer(zones: readonly FakeZone[], request: Buffer): Buffer | undefined {
  let query: Packet;
  try {
    query = decodeMessage(request);
  } catch {
    return undefined;
  }
  const q = query.questions?.[0];
  const zone = q ? zoneFor(zones, q.name) : undefined;
  const reply = replyTo(query, RCODE[zone?.rcode ?? "NXDOMAIN"]);
  reply.answers = zone?.answer ?? [];
  return zone?.truncate ? packReply(reply, replySizeLimit("udp", query)) : encodeMessage(reply);
}

export async function startFakeResolver(options: {
  zones?: FakeZone[];
  silent?: boolean;
  host?: string;
}): Promise<FakeResolver> {
  const host = options.host ?? "127.0.0.1";
  const zones = options.zones ?? [];
  let count = 0;
  const answer = (msg: Buffer): Buffer | undefined => {
    count++;
    return options.silent ? undefined : fakeAnswer(zones, msg);
  };
  const connections = new Set<Socket>();
  const serveTcp = (socket: Socket) => {
    connections.add(socket);
    socket.on("close", () => connections.delete(socket));
    socket.on("error", () => socket.destroy());
    const reader = new FrameReader();
    socket.on("data", (chunk: Buffer) => {
      for (const message of reader.push(chunk)) {
        const reply = answer(message);
        if (reply) socket.write(frame(reply));
      }
    });
  };
  // UDP on an ephemeral port, then TCP on the same one (retried if that TCP port is taken).
  for (let attempt = 0; attempt < 20; attempt++) {
    const udp: UdpSocket = createSocket(host.includes(":") ? "udp6" : "udp4");
    udp.on("message", (msg, rinfo) => {
      const reply = answer(msg);
      if (reply) udp.send(reply, rinfo.port, rinfo.address, () => {});
    });
    await new Promise<void>((resolve) => udp.bind(0, host, () => resolve()));
    const port = udp.address().port;
    const tcp: Server = createServer(serveTcp);
    const ok = await new Promise<boolean>((resolve) => {
      tcp.once("error", () => resolve(false));
      tcp.listen(port, host, () => resolve(true));
    });
    if (!ok) {
      udp.close();
      continue;
    }
    return {
      host,
      port,
      address: host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`,
      queries: () => count,
      close: async () => {
        for (const c of connections) c.destroy();
        await Promise.all([
          new Promise<void>((r) => udp.close(() => r())),
          new Promise<void>((r) => tcp.close(() => r())),
        ]);
      },
    };
  }
  throw new Error("fake resolver: no port free for both UDP and TCP");
}
