/**
 * `meshinject proxy-config`: what pilot-agent in the istio-proxy container of each injected pod
 * starts with: the effective ProxyConfig (as pilot-agent's ConstructProxyConfig builds it), the
 * SPIFFE identity, the DNS domain, the discovery address and the status port. The work is the pure
 * src/agent/bootstrap; this file reads the input and the mesh config, and prints (./manifest-command.ts).
 * Errors are printed as `meshinject: MESSAGE` (exit code 1), one line each.
 */
import { Command } from "commander";
import { BootstrapError, proxyConfigReport } from "../agent/bootstrap/index.js";
import { DurationError } from "../go/time/duration.js";
import { ConfigError } from "../inject/config.js";
import { defaultConfigFiles } from "../inject/defaults.js";
import { configMapKey } from "../inject/injector.js";
import { type MeshConfig, MeshConfigError, MeshYamlError, ProtoJSONError, readMeshConfig } from "../mesh/index.js";
import {
  filenameOption,
  inputName,
  type ManifestCommandIO,
  namespaceOption,
  runManifestCommand,
} from "./manifest-command.js";

/** An error for the user (exit code 1, one line). */
export class ProxyConfigCliError extends Error {
  override name = "ProxyConfigCliError";
}

/** What the command reads and writes; replaceable for tests. */
export type ProxyConfigIO = ManifestCommandIO;

const isUserError = (e: unknown) => e instanceof ProxyConfigCliError || e instanceof BootstrapError;

interface ProxyConfigCliOptions {
  filename: string;
  meshConfigFile?: string;
  namespace: string;
}

const oneLine = (s: string) => s.replace(/\s*\n\s*/g, " ").trim();

/** The mesh config text (the ConfigMap's `mesh` key, or the file as given) and its MeshConfig. */
function readMesh(text: string, source: string): { meshConfigText: string; mesh: MeshConfig } {
  try {
    const meshConfigText = configMapKey(text, "mesh", source);
    return { meshConfigText, mesh: readMeshConfig(meshConfigText) };
  } catch (e) {
    if (
      e instanceof ConfigError ||
      e instanceof MeshConfigError ||
      e instanceof MeshYamlError ||
      e instanceof ProtoJSONError ||
      e instanceof DurationError
    ) {
      throw new ProxyConfigCliError(`${source}: ${oneLine(e.message)}`, { cause: e });
    }
    throw e;
  }
}

const HELP = `
For every Pod, Deployment, DaemonSet, StatefulSet, ReplicaSet, ReplicationController, Job, CronJob
and DeploymentConfig (Lists too) of an injected manifest, prints what pilot-agent in its istio-proxy
container starts with, under a "# Kind namespace/name" line (YAML documents separated by ---):
  identity          the SPIFFE ID istiod issues: spiffe://<trustDomain>/ns/<namespace>/sa/<serviceAccount>
  domain            pilot-agent's --domain, $(POD_NAMESPACE) expanded (default <namespace>.svc.cluster.local)
  discoveryAddress, statusPort, concurrency (and where it came from)
  sources           what shaped the proxy config, lowest precedence first
  proxyConfig       the effective ProxyConfig (protobuf-JSON field names), resolved as pilot-agent does:
                    Istio's defaults < the mesh config file (only if the container mounts one at its
                    --meshConfig path, ./etc/istio/config/mesh) < env PROXY_CONFIG < annotation
                    proxy.istio.io/config; then concurrency from env ISTIO_CPU_LIMIT (the CPU limit,
                    rounded up) when still unset, a non-zero --concurrency flag over everything, an
                    empty serviceCluster from --serviceCluster, validation, and last the annotations
                    sidecar.istio.io/discoveryAddress and status.sidecar.istio.io/port.
  notes             what only the cluster knows (env from valueFrom, a CPU limit left to the node).

The mesh config (--meshConfigFile: the mesh key of ConfigMap istio, or the whole ConfigMap, as
kubectl -n istio-system get cm istio -o yaml prints it) gives the trust domain, and the file
pilot-agent reads where the pod mounts it. A workload without an istio-proxy container (one
kube-inject skips, e.g. a hostNetwork pod) is listed as not injected, in a section of comments only.

Examples:
  meshinject kube-inject -f app.yaml | meshinject proxy-config -f -
  meshinject proxy-config -f injected.yaml --meshConfigFile mesh.yaml
  meshinject proxy-config -f injected.yaml -n shop

Errors name the document (Kind "name") and the cause, and exit with code 1; so does an input with
no injected pod (inject it first with meshinject kube-inject).
`;

/** `meshinject proxy-config`: register with `program.addCommand(proxyConfigCommand(io))`. */
export function proxyConfigCommand(io: ProxyConfigIO): Command {
  return new Command("proxy-config")
    .description("show the proxy config, identity and domain pilot-agent starts with in each injected pod")
    .addOption(filenameOption())
    .option(
      "--meshConfigFile <file>",
      "mesh config (the mesh key of ConfigMap istio, or the ConfigMap); default: the built-in one",
    )
    .addOption(namespaceOption())
    .addHelpText("after", HELP)
    .action((opts: ProxyConfigCliOptions) =>
      runManifestCommand(io, isUserError, async () => {
        const meshText =
          opts.meshConfigFile === undefined ? defaultConfigFiles().mesh : await io.readInput(opts.meshConfigFile);
        const { meshConfigText, mesh } = readMesh(meshText, opts.meshConfigFile ?? "built-in mesh config");
        const input = await io.readInput(opts.filename);
        const source = inputName(opts.filename);
        io.stdout(proxyConfigReport(input, { source, meshConfigText, mesh, namespace: opts.namespace }));
      }),
    );
}
