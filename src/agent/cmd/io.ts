/** What an `agent` subcommand is given: the environment (only the variables that are set) and its two streams. */
export interface AgentIo {
  readonly env: Readonly<Record<string, string>>;
  stdout(text: string): void;
  stderr(text: string): void;
}

/** An `agent` subcommand: reads its arguments (after its name) and resolves with the exit code. */
export type AgentSubcommand = (args: readonly string[], io: AgentIo) => Promise<number>;
