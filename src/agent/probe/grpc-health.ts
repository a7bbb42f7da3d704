/**
 * The gRPC health check (grpc.health.v1.Health/Check) spoken over node:http2, optionally from a chosen
 * source address: the probe proxy dials its gRPC probes from 127.0.0.6 (::6) so that the sidecar's
 * inbound capture lets them pass (status/server.go handleAppProbeGRPC, d.LocalAddr); the workload health
 * checker dials from the default address (health_probers.go GRPCProber). @grpc/grpc-js has no way to
 * bind a client's source address, hence this small client: one unary call, gRPC's length-prefixed
 * framing, the status from the trailers (or a trailers-only answer). Like grpc-go's blocking dial, a
 * refused connection is retried until the deadline.
 */
import * as http2 from "node:http2";
import * as net from "node:net";
import { joinHostPort } from "../../mesh/validate-net.js";
import type { Cancellation } from "./cancel.js";
import {
  decodeHealthCheckResponse,
  encodeHealthCheckRequest,
  HEALTH_CHECK_METHOD,
  HealthCheckError,
} from "./grpc-health-codec.js";

/** grpc-go's default limit on a received message. */
const MAX_RECEIVE_BYTES = 4 * 1024 * 1024;
/** grpc-go's first reconnect backoff. */
const RECONNECT_DELAY_MS = 1000;

const UNKNOWN = 2;
const DEADLINE_EXCEEDED = 4;
const RESOURCE_EXHAUSTED = 8;
const INTERNAL = 13;
const UNAVAILABLE = 14;

export interface HealthCheckOptions {
  host: string;
  port: number;
  /** The source address of the connection (127.0.0.6 or ::6 for the probe proxy). */
  localAddress?: string;
  service: string;
  /** Absolute deadline, ms since the epoch. */
  deadline: number;
  userAgent?: string;
  cancel?: Cancellation;
}

const deadlineExceeded = () => new HealthCheckError("connect", DEADLINE_EXCEEDED, "context deadline exceeded");

/** One TCP connection from the source address; rejects on a connect error, the deadline or abort. */
function dial(o: HealthCheckOptions): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: o.host, port: o.port, localAddress: o.localAddress });
    const timer = setTimeout(() => fail(deadlineExceeded()), Math.max(0, o.deadline - Date.now()));
    let settled = false;
    o.cancel?.onCancel(() => fail(deadlineExceeded()));
    function settle() {
      settled = true;
      clearTimeout(timer);
    }
    function fail(e: Error) {
      if (settled) return;
      settle();
      socket.destroy();
      reject(e);
    }
    socket.once("error", fail);
    socket.once("connect", () => {
      settle();
      socket.off("error", fail);
      resolve(socket);
    });
  });
}

/** Connects, retrying a failed attempt after grpc-go's first backoff, until the deadline. */
async function connect(o: HealthCheckOptions): Promise<net.Socket> {
  for (let attempt = 0; attempt < 1_000; attempt++) {
    if (Date.now() >= o.deadline || o.cancel?.cancelled) break;
    try {
      return await dial(o);
    } catch (e) {
      if (e instanceof HealthCheckError) throw e;
      const wait = Math.min(RECONNECT_DELAY_MS, o.deadline - Date.now());
      if (wait <= 0) break;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
  throw deadlineExceeded();
}

function frame(message: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt32BE(message.length, 1);
  return Buffer.concat([head, message]);
}

function decodeGrpcMessage(raw: unknown): string {
  if (typeof raw !== "string") return "";
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The one message of a unary answer: its 5-byte prefix checked, uncompressed only. */
function unframe(body: Buffer): Buffer {
  if (body.length < 5) throw new HealthCheckError("call", INTERNAL, "server closed the stream without a message");
  if (body[0] !== 0) throw new HealthCheckError("call", INTERNAL, "compressed message without a negotiated encoding");
  const len = body.readUInt32BE(1);
  if (body.length < 5 + len) throw new HealthCheckError("call", INTERNAL, "truncated message");
  return body.subarray(5, 5 + len);
}

/** Calls Check once; resolves with the serving status number, rejects with a HealthCheckError. */
export async function checkHealth(o: HealthCheckOptions): Promise<number> {
  const socket = await connect(o);
  const authority = joinHostPort(o.host, o.port);
  const session = http2.connect(`http://${authority}`, { createConnection: () => socket });
  session.on("error", () => {});
  try {
    return await new Promise<number>((resolve, reject) => {
      const remaining = Math.max(0, o.deadline - Date.now());
      const headers: http2.OutgoingHttpHeaders = {
        ":method": "POST",
        ":path": HEALTH_CHECK_METHOD,
        "content-type": "application/grpc",
        te: "trailers",
        "grpc-timeout": `${Math.max(1, remaining)}m`,
      };
      if (o.userAgent) headers["user-agent"] = o.userAgent;
      const stream = session.request(headers);
      const timer = setTimeout(() => {
        stream.close(http2.constants.NGHTTP2_CANCEL);
        reject(new HealthCheckError("call", DEADLINE_EXCEEDED, "context deadline exceeded"));
      }, remaining);
      o.cancel?.onCancel(() => stream.close(http2.constants.NGHTTP2_CANCEL));
      const finish = (err: HealthCheckError | null, status?: number) => {
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(status ?? 0);
      };
      let trailers: http2.IncomingHttpHeaders | undefined;
      let head: http2.IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on("response", (h) => {
        head = h;
      });
      stream.on("trailers", (t) => {
        trailers = t;
      });
      stream.on("data", (c: Buffer) => {
        size += c.length;
        if (size > MAX_RECEIVE_BYTES + 5) {
          stream.close(http2.constants.NGHTTP2_CANCEL);
          finish(new HealthCheckError("call", RESOURCE_EXHAUSTED, "received message larger than max"));
          return;
        }
        chunks.push(c);
      });
      stream.on("error", (e: Error) => finish(new HealthCheckError("call", UNAVAILABLE, e.message)));
      stream.on("close", () => {
        if (o.cancel?.cancelled) return finish(new HealthCheckError("call", 1, "context canceled"));
        const httpStatus = Number(head[":status"] ?? 0);
        if (httpStatus !== 200) {
          return finish(
            new HealthCheckError("call", UNKNOWN, `unexpected HTTP status code received from server: ${httpStatus}`),
          );
        }
        // A trailers-only answer carries grpc-status in its headers.
        const t = trailers ?? head;
        const code = Number(t["grpc-status"] ?? Number.NaN);
        if (!Number.isInteger(code)) {
          return finish(new HealthCheckError("call", INTERNAL, "server closed the stream without sending trailers"));
        }
        if (code !== 0) return finish(new HealthCheckError("call", code, decodeGrpcMessage(t["grpc-message"])));
        try {
          finish(null, decodeHealthCheckResponse(unframe(Buffer.concat(chunks))).status);
        } catch (e) {
          finish(e instanceof HealthCheckError ? e : new HealthCheckError("call", INTERNAL, (e as Error).message));
        }
      });
      stream.end(frame(encodeHealthCheckRequest({ service: o.service })));
    });
  } finally {
    session.destroy();
  }
}
