/** `meshinject agent`'s usage text, apart from the agent itself so that other commands do not load it. */
export const AGENT_USAGE = `usage: meshinject agent proxy [sidecar|router] [flags] [--root DIR]
       meshinject agent bootstrap [sidecar|router] [flags] [--root DIR]
       meshinject agent wait|request|version|istio-iptables [flags]   (pilot-agent's; -h for each)

Runs (proxy) or shows (bootstrap) what Istio's pilot-agent runs in the istio-proxy container:
the Envoy bootstrap written to <configPath>/envoy-rev.json, then Envoy (ProxyConfig.binaryPath)
supervised and drained on SIGTERM. Flags are pilot-agent's (--domain, --proxyLogLevel,
--proxyComponentLogLevel, --log_output_level, --log_as_json, --concurrency, --meshConfig,
--serviceCluster, --templateFile, --outlierLogPath, --stsPort; others are accepted and ignored).
The environment is pilot-agent's (POD_NAME, POD_NAMESPACE, INSTANCE_IP, SERVICE_ACCOUNT,
PROXY_CONFIG, ISTIO_META_*, ISTIO_METAJSON_*, ...); the pod's files are read under --root
(default /): ./etc/istio/pod/annotations and labels, the mesh config, the bootstrap template.
--status-host ADDR: where the status server listens (default every interface, as pilot-agent).
POD_NAME and POD_NAMESPACE are the minimum: POD_NAME=web-0 POD_NAMESPACE=shop meshinject agent bootstrap
`;
