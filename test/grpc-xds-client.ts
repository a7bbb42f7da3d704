// A proxyless gRPC client for the agent tests, run as a child process because @grpc/grpc-js-xds reads
// its bootstrap once per process (GRPC_XDS_BOOTSTRAP names the file). It calls the unary method
// `/echo.Echo/Say` of the `xds:///` target given as the first argument with the second argument as
// the request bytes, and prints the reply (or `ERROR <code> <details>`), one line, then exits. With a
// third argument `xds` its channel credentials are @grpc/grpc-js-xds's XdsChannelCredentials (the
// cluster's UpstreamTlsContext decides: mTLS from the bootstrap's certificate provider, else the
// insecure fallback); without, plain insecure credentials whatever xDS says.
import { Client, credentials, type ServiceError } from "@grpc/grpc-js";
import * as xds from "@grpc/grpc-js-xds";
import { raw, SAY } from "./echo-service.js";

xds.register();
const [target, text, mode] = process.argv.slice(2);
if (!target || text === undefined || (mode !== undefined && mode !== "xds")) {
  console.error("usage: grpc-xds-client.ts xds:///name:port TEXT [xds]");
  process.exit(2);
}
const insecure = credentials.createInsecure();
const client = new Client(target, mode === "xds" ? new xds.XdsChannelCredentials(insecure) : insecure);
const deadline = new Date(Date.now() + 20_000);
client.makeUnaryRequest(
  SAY,
  raw,
  raw,
  Buffer.from(text),
  { deadline },
  (error: ServiceError | null, reply?: Buffer) => {
    console.log(error ? `ERROR ${error.code} ${error.details}` : `REPLY ${reply?.toString()}`);
    client.close();
    process.exit(0);
  },
);
