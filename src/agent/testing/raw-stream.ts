/**
 * A gRPC client that sends raw bytes as messages on a bidi method, for feeding the agent's servers
 * frames that are not the proto they expect.
 */
import { Client, credentials } from "@grpc/grpc-js";

/** Sends `frames` on `method` at `target`; resolves with the call's status code. */
export function sendRawFrames(target: string, method: string, frames: Uint8Array[]): Promise<number> {
  const client = new Client(target, credentials.createInsecure());
  const call = client.makeBidiStreamRequest(
    method,
    (b: Buffer) => b,
    (b: Buffer) => b,
  );
  return new Promise((resolve) => {
    const timer = setTimeout(() => call.cancel(), 2000);
    call.on("data", () => {});
    call.on("status", (s) => {
      clearTimeout(timer);
      client.close();
      resolve(s.code);
    });
    call.on("error", () => {});
    for (const f of frames) call.write(Buffer.from(f));
    call.end();
  });
}
