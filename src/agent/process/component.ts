/**
 * The agent's parts as components — Envoy, the status server, and later the xDS proxy, SDS and the
 * DNS proxy — each started in order, asked for readiness, and stopped in reverse order.
 */

export interface Component {
  /** For logs and readiness messages: `envoy`, `status server`, `dns proxy`. */
  readonly name: string;
  /** Starts the component; rejects (with a one-line error) when it cannot. */
  start(): Promise<void>;
  /** Stops it (draining first if it has to); called once, after a successful start. */
  stop(): Promise<void>;
  /** Undefined when ready, else why not (one line). Absent: always ready once started. */
  ready?(): Promise<string | undefined>;
  /** Settles with an exit code when the component ends by itself (Envoy exiting); absent for servers. */
  readonly exited?: Promise<number>;
}

/** A component that could not start (a port in use, a missing binary); one line, naming it. */
export class ComponentStartError extends Error {
  override name = "ComponentStartError";
}
