/**
 * An exec probe: runs a command, exit 0 is success; past the timeout the command is killed (Go's
 * exec.CommandContext). Only the workload health checker has exec probes (the kubelet runs its own).
 */
import { spawn } from "node:child_process";

/** Undefined when the command exited 0, else Go's text of why not (`exit status 1`, `signal: killed`, …). */
export function runCommand(command: readonly string[], timeoutMs: number): Promise<string | undefined> {
  const [cmd, ...args] = command;
  if (cmd === undefined) return Promise.resolve("exec: no command");
  return new Promise((resolve) => {
    let timedOut = false;
    const child = spawn(cmd, args, { stdio: "ignore" });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.once("error", (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      const why = e.code === "ENOENT" ? "executable file not found in $PATH" : e.message;
      resolve(`exec: "${cmd}": ${why}`);
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) {
        resolve(undefined);
        return;
      }
      const how = signal === "SIGKILL" ? "signal: killed" : signal ? `signal: ${signal}` : `exit status ${code}`;
      resolve(timedOut ? `command timeout exceeded: ${how}` : how);
    });
  });
}
