// The echo service of the proxyless gRPC tests: the unary method `/echo.Echo/Say`, raw bytes both
// ways, answered with `echo:` and the request.
import type { ServiceDefinition } from "@grpc/grpc-js";

export const SAY = "/echo.Echo/Say";

export const raw = (b: Buffer): Buffer => b;

export const ECHO_SERVICE: ServiceDefinition = {
  Say: {
    path: SAY,
    requestStream: false,
    responseStream: false,
    requestSerialize: raw,
    requestDeserialize: raw,
    responseSerialize: raw,
    responseDeserialize: raw,
  },
};

export function echoReply(request: Buffer): Buffer {
  return Buffer.concat([Buffer.from("echo:"), request]);
}
