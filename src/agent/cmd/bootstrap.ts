/**
 * `meshinject agent bootstrap`: the Envoy bootstrap `agent proxy` would write, printed; nothing is
 * started or written. The options are read as `agent proxy` reads them (../options).
 */
import { join } from "node:path";
import { renderBootstrap } from "../bootstrap/render.js";
import { templateParams } from "../bootstrap/template-params.js";
import { type AgentCommandLine, bootstrapTemplate, planFromCommandLine } from "../options/agent-options.js";

export async function renderAgentBootstrap(cl: AgentCommandLine): Promise<string> {
  const { plan, node } = await planFromCommandLine(cl);
  const template = await bootstrapTemplate(plan, cl.root);
  const params = templateParams({
    node,
    compliancePolicy: plan.compliancePolicy,
    logAsJSON: plan.logAsJSON,
    features: plan.features,
    lightstepTokenPath: join(plan.proxyConfig.configPath ?? "", "lightstep_access_token.txt"),
  });
  return renderBootstrap(template.text, params, template.name);
}

export async function bootstrapCommand(io: AgentCommandLine & { stdout: (text: string) => void }): Promise<number> {
  io.stdout(await renderAgentBootstrap(io));
  return 0;
}
