/** What the status server logs through (pilot-agent's levels); the agent command passes its logger. */
export interface StatusLogger {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

export const silentLogger: StatusLogger = { info() {}, warn() {}, error() {} };
