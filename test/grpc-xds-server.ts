// A proxyless gRPC server for the agent tests: a @grpc/grpc-js-xds XdsServer, run as a child process
// because @grpc/grpc-js-xds reads its bootstrap once per process (GRPC_XDS_BOOTSTRAP names the file).
// It serves the unary method `/echo.Echo/Say` on 127.0.0.1:PORT (the first argument) with
// XdsServerCredentials, so the Listener its bootstrap's server listener template names decides the
// transport (mTLS from the bootstrap's certificate provider, else the insecure fallback). It prints
// `SERVING` once the listener is applied, and for each call `PEER <SHA-256 fingerprint> <subject alt
// names>` of the certificate the caller presented (`PEER - -` without one).
import { ServerCredentials, type ServerUnaryCall, type sendUnaryData, status } from "@grpc/grpc-js";
import * as xds from "@grpc/grpc-js-xds";
import { ECHO_SERVICE, echoReply } from "./echo-service.js";

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0) {
  console.error("usage: grpc-xds-server.ts PORT");
  process.exit(2);
}
// The HTTP filters (the router among them) are registered with the rest.
xds.register();
const address = `127.0.0.1:${port}`;
const server = new xds.XdsServer();
server.addService(ECHO_SERVICE, {
  Say: (call: ServerUnaryCall<Buffer, Buffer>, done: sendUnaryData<Buffer>) => {
    const cert = call.getAuthContext().sslPeerCertificate;
    console.log(`PEER ${cert?.fingerprint256 ?? "-"} ${cert?.subjectaltname ?? "-"}`);
    if (!cert) return done({ code: status.UNAUTHENTICATED, details: "no client certificate" });
    done(null, echoReply(call.request));
  },
});
// The callback comes once the Listener is applied and the port serves.
server.bindAsync(address, new xds.XdsServerCredentials(ServerCredentials.createInsecure()), (error) => {
  if (error) {
    console.log(`ERROR ${error.message}`);
    process.exit(1);
  }
  console.log("SERVING");
});
server.addServingStateListener(address, (s) => {
  if (s.code !== status.OK) console.log(`NOT_SERVING ${s.code} ${s.details}`);
});
