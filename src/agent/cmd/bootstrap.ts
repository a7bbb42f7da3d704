/**
 * `meshinject agent bootstrap`: the Envoy bootstrap `agent proxy` would write, printed; nothing is
 * started or written. The options are read as `agent proxy` reads them (../options).
 */
import { bootstrapText } from "../bootstrap/render.js";
import { type AgentCommandLine, bootstrapTemplate, planFromCommandLine } from "../options/agent-options.js";
import { bootstrapConfig } from "../plan.js";

export async function renderAgentBootstrap(cl: AgentCommandLine): Promise<string> {
  const { plan, node } = await planFromCommandLine(cl);
  return bootstrapText(bootstrapConfig(plan, node), await bootstrapTemplate(plan, cl.root));
}

export async function bootstrapCommand(io: AgentCommandLine & { stdout: (text: string) => void }): Promise<number> {
  io.stdout(await renderAgentBootstrap(io));
  return 0;
}
