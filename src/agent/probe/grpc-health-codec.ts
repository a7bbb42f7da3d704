/**
 * The gRPC health protocol's messages (grpc.health.v1.Health/Check) and grpc-go's status names. The two
 * messages have one field each (request: `string service = 1`, response: `ServingStatus status = 1`), so
 * they are encoded here by hand rather than loading a .proto file at run time.
 */

export const HEALTH_CHECK_METHOD = "/grpc.health.v1.Health/Check";

export const SERVING_STATUS = ["UNKNOWN", "SERVING", "NOT_SERVING", "SERVICE_UNKNOWN"] as const;
export type ServingStatus = (typeof SERVING_STATUS)[number];

function varint(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}

function readVarint(buf: Buffer, at: number): [number, number] {
  let value = 0;
  let scale = 1;
  let i = at;
  for (;;) {
    if (i >= buf.length) throw new Error("truncated varint");
    const b = buf[i++];
    value += (b & 0x7f) * scale;
    if ((b & 0x80) === 0) return [value, i];
    scale *= 128;
  }
}

/** Skips one field of the given wire type; returns the offset after it. */
function skipField(buf: Buffer, wireType: number, at: number): number {
  if (wireType === 0) return readVarint(buf, at)[1];
  if (wireType === 1) return at + 8;
  if (wireType === 5) return at + 4;
  if (wireType === 2) {
    const [len, next] = readVarint(buf, at);
    return next + len;
  }
  throw new Error(`unsupported wire type ${wireType}`);
}

/** Reads field `number` as a varint or length-delimited bytes; undefined when absent. */
function readField(buf: Buffer, number: number): number | Buffer | undefined {
  let i = 0;
  let found: number | Buffer | undefined;
  while (i < buf.length) {
    const [key, next] = readVarint(buf, i);
    const wireType = key & 7;
    if (key >>> 3 === number && wireType === 0) {
      [found, i] = readVarint(buf, next);
    } else if (key >>> 3 === number && wireType === 2) {
      const [len, start] = readVarint(buf, next);
      found = buf.subarray(start, start + len);
      i = start + len;
    } else {
      i = skipField(buf, wireType, next);
    }
  }
  return found;
}

export function encodeHealthCheckRequest(req: { service: string }): Buffer {
  const name = Buffer.from(req.service, "utf8");
  if (name.length === 0) return Buffer.alloc(0);
  return Buffer.concat([Buffer.from([0x0a, ...varint(name.length)]), name]);
}

export function decodeHealthCheckResponse(buf: Buffer): { status: number } {
  const v = readField(buf, 1);
  return { status: typeof v === "number" ? v : 0 };
}

/** grpc-go's names of the status codes, as its errors print them. */
const CODE_NAMES = [
  "OK",
  "Canceled",
  "Unknown",
  "InvalidArgument",
  "DeadlineExceeded",
  "NotFound",
  "AlreadyExists",
  "PermissionDenied",
  "ResourceExhausted",
  "FailedPrecondition",
  "Aborted",
  "OutOfRange",
  "Unimplemented",
  "Internal",
  "Unavailable",
  "DataLoss",
  "Unauthenticated",
];

export function grpcCodeName(code: number): string {
  return CODE_NAMES[code] ?? `Code(${code})`;
}

/** Why a health check failed: no connection by the deadline, or the call's gRPC status. */
export class HealthCheckError extends Error {
  constructor(
    readonly phase: "connect" | "call",
    readonly code: number,
    readonly details: string,
  ) {
    super(phase === "connect" ? details : `rpc error: code = ${grpcCodeName(code)} desc = ${details}`);
  }
}
