/**
 * The outcome of one admission review, for metrics and logs: the server counts these
 * (requests, success, skip, failure{reason}) and logs the reason.
 */

export type Outcome =
  | { kind: "injected" }
  | { kind: "skipped"; reason: string }
  | { kind: "failed"; reason: string }
  | { kind: "invalid"; reason: string };
