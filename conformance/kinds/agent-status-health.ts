/** health-checkers.json: the agent's WorkloadEntry health checking (pkg/istio-agent/health). */
type Json = Record<string, unknown>;

export async function judgeHealthChecker(
  v: Json,
): Promise<{ pass: boolean; reason?: string; expected?: string; got?: string }> {
  return {
    pass: false,
    reason: "not run: WorkloadEntry health checking is not implemented",
    expected: String(v.prober),
    got: "",
  };
}
