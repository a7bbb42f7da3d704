/** The conformance kinds that have a runner, by the `kind` of their corpus.json. */
import type { KindRunner } from "../result.js";
import { runAgentStatus } from "./agent-status.js";
import { runAnnotations } from "./annotations.js";
import { runAppProbe } from "./app-probe.js";
import { runBootstrap } from "./bootstrap.js";
import { runDns } from "./dns.js";
import { runGotemplate } from "./gotemplate.js";
import { runInjectPolicy } from "./inject-policy.js";
import { runIptables } from "./iptables.js";
import { runIstioInject } from "./istio-inject.js";
import { runProxyconfig } from "./proxyconfig.js";

export const kinds: Record<string, KindRunner> = {
  "agent-status": runAgentStatus,
  annotations: runAnnotations,
  "app-probe": runAppProbe,
  dns: runDns,
  bootstrap: runBootstrap,
  gotemplate: runGotemplate,
  "istio-inject": runIstioInject,
  "inject-policy": runInjectPolicy,
  iptables: runIptables,
  proxyconfig: runProxyconfig,
};
