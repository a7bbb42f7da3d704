/**
 * istio-iptables' run with `--native-nftables` (Istio's tools/istio-nftables/pkg/nft
 * `ProgramNftables`): the transaction of the config (capture/nftables.ts, conformance-tested
 * against Istio's) handed to `nft -f -` in one piece, as knftables runs it. As in Istio, this path
 * does not look at `--dry-run` (only the routes are skipped then): the transaction is applied.
 */
import { spawn } from "node:child_process";
import type { CaptureConfig } from "../../capture/config.js";
import { nftablesRules } from "../../capture/nftables.js";
import type { Logger } from "../../process/log.js";
import type { MultilineLog } from "./program-iptables.js";

export class NftablesError extends Error {
  override name = "NftablesError";
}

function nft(input: string): Promise<{ code: number | null; stderr: string; missing: boolean }> {
  return new Promise((resolve) => {
    const child = spawn("nft", ["-f", "-"], { stdio: ["pipe", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    child.on("error", (e: NodeJS.ErrnoException) =>
      resolve({ code: null, stderr: e.message, missing: e.code === "ENOENT" }),
    );
    child.on("close", (code) => resolve({ code, stderr, missing: false }));
    child.stdin.on("error", () => {});
    child.stdin.end(input);
  });
}

/** Programs the nftables rules of `cfg`; resolves with the transaction's lines. */
export async function programNftables(cfg: CaptureConfig, log: Logger, logLines: MultilineLog): Promise<string[]> {
  log.info("native nftables enabled, using nft rules for traffic redirection.");
  const lines = nftablesRules(cfg);
  if (lines.length > 0) {
    const r = await nft(lines.map((l) => `${l}\n`).join(""));
    if (r.missing) {
      const where = cfg.HostFilesystemPodNetwork ? "on the host filesystem" : "in the sidecar container image";
      throw new NftablesError(
        `nativeNftables is enabled, but the nft binary is missing ${where}: exec: "nft": executable file not found in $PATH`,
      );
    }
    if (r.code !== 0) throw new NftablesError(`nftables run failed: ${r.stderr.trim()}`);
  }
  logLines(`nftables rules programmed:\n${lines.join("\n")}`);
  return lines;
}
