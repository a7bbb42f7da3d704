/** The error type of the bootstrap module: what pilot-agent would refuse, or input it cannot read. */

/** A pod whose proxy start cannot be worked out (or that pilot-agent would refuse); one line, naming the cause. */
export class BootstrapError extends Error {
  override name = "BootstrapError";
}
