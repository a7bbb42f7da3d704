/**
 * envoy-args.json and grpc-bootstrap.json of the `bootstrap` corpus: Envoy's command line, the log
 * level split, the bootstrap override, the active-connection count, the drain call against a closed
 * admin port (src/agent/envoy); the node ID and the proxyless gRPC bootstrap (src/agent/bootstrap).
 */
import { isDeepStrictEqual } from "node:util";
import { grpcBootstrap, grpcBootstrapText } from "../../src/agent/bootstrap/grpc.js";
import { serviceNode } from "../../src/agent/bootstrap/identity.js";
import { getNodeMetaData } from "../../src/agent/bootstrap/node-metadata.js";
import { activeConnections } from "../../src/agent/envoy/active-connections.js";
import { drainListeners, EnvoyAdminError } from "../../src/agent/envoy/admin.js";
import { envoyArgs, extraArgs, splitComponentLog } from "../../src/agent/envoy/args.js";
import { bootstrapOverrideJSON } from "../../src/agent/envoy/override.js";
import { freePort } from "../../test/loopback.js";
import type { Verdict } from "./bootstrap-options.js";

type Json = Record<string, unknown>;

function check(expected: unknown, got: unknown, what: string): Verdict {
  return isDeepStrictEqual(got, expected) ? undefined : { reason: `${what} differs`, expected, got };
}

function envoyConfig(cfg: Json) {
  return {
    logLevel: cfg.LogLevel as string | undefined,
    componentLogLevel: cfg.ComponentLogLevel as string | undefined,
    nodeIPs: (cfg.NodeIPs as string[] | undefined) ?? [],
    drainDuration: cfg.DrainDuration as string | undefined,
    concurrency: cfg.Concurrency as number | undefined,
    skipDeprecatedLogs: cfg.SkipDeprecatedLogs === true,
    fileFlushInterval: cfg.FileFlushInterval as string | undefined,
    fileFlushMinSizeKB: cfg.FileFlushMinSizeKB as number | undefined,
  };
}

export const envoyJudges: Record<string, (v: Json) => Verdict | Promise<Verdict>> = {
  envoyArgs: (v) => {
    const cfg = envoyConfig(v.cfg as Json);
    const call = v.call as Json;
    const want = v.want as Json;
    const override =
      call.overrideFname === undefined || call.overrideFname === ""
        ? undefined
        : bootstrapOverrideJSON(call.overrideFileContent as string, undefined, call.overrideFname as string);
    return (
      check(want.extraArgs, extraArgs(cfg), "extra args") ??
      check(want.args, envoyArgs(cfg, call.fname as string, override), "args")
    );
  },
  splitComponentLog: (v) => check(v.want, splitComponentLog(v.input as string), "split"),
  readBootstrapToJSON: (v) =>
    check(
      (v.want as Json).json,
      bootstrapOverrideJSON(
        v.fileContent as string,
        ((v.env as Json).HOST_IP as string | undefined) ?? undefined,
        v.file as string,
      ),
      "JSON",
    ),
  activeConnections: (v) => {
    const a = v.agent as Json;
    const got = activeConnections(v.statsResponse as string, {
      statusPort: a.statusPort as number,
      prometheusPort: a.prometheusPort as number,
      secureMetricsPort: a.secureMetricsPort as number,
      secureMergedMetricsPort: a.secureMergedMetricsPort as number,
    });
    return check((v.want as Json).activeConnections, got, "active connections");
  },
  drainListeners: async (v) => {
    const port = await freePort();
    try {
      await drainListeners({ port, timeoutMs: 2000 }, v.inboundOnly === true, v.skipExit === true);
      return { reason: "draining a closed admin port should fail", expected: "error", got: "ok" };
    } catch (e) {
      return e instanceof EnvoyAdminError
        ? undefined
        : { reason: "wrong error", expected: "EnvoyAdminError", got: String(e) };
    }
  },
  serviceNode: (v) => {
    const p = v.proxy as Json;
    const got = serviceNode({
      type: p.Type as string,
      ipAddresses: p.IPAddresses as string[],
      id: p.ID as string,
      dnsDomain: p.DNSDomain as string,
    });
    return check(v.want, got, "service node");
  },
  grpcBootstrapGolden: (v) => {
    const inputs = v.inputs as Json;
    const xdsUdsPath = "/tmp/meshinject-grpc/XDS";
    const node = getNodeMetaData({
      envs: [],
      platform: { metadata: {}, locality: {}, labels: undefined, isKubernetes: true },
      instanceIPs: inputs.instanceIPs as string[],
      id: inputs.nodeID as string,
      proxyConfig: { discoveryAddress: "localhost:15012" },
      pilotSubjectAltName: ["istiod.istio-system.svc"],
      workloadIdentitySocketFile: inputs.workloadIdentitySocketFile as string,
      binaryVersion: v.binaryVersion as string,
    });
    node.metadata.GENERATOR = "grpc";
    const value = grpcBootstrap({
      node,
      xdsUdsPath,
      discoveryAddress: "localhost:15012",
      certDir: inputs.certDir as string,
    });
    const metadata = (value.node as Json).metadata as Json;
    delete metadata.PROV_CERT;
    delete metadata.PROXY_CONFIG;
    const text = grpcBootstrapText(value).replaceAll(xdsUdsPath, "etc/istio/XDS");
    return check(((v.want as Json).text as string).trim(), text.trim(), "gRPC bootstrap text");
  },
};
