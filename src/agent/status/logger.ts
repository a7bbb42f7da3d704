/** What the status server logs through: the agent's one log shape (../process/log.ts). */
import { type AgentLog, SILENT_LOG } from "../process/log.js";

export type StatusLogger = AgentLog;

export const silentLogger: StatusLogger = SILENT_LOG;
