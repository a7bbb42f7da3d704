/**
 * istio-iptables' run with the iptables backend (Istio's tools/istio-iptables/pkg/cmd
 * `ProgramIptables` and capture/run.go `IptablesConfigurator.Run` / `executeCommands`): the rules
 * of the config (capture/iptables.ts, conformance-tested against Istio's), checked against what is
 * in place (`iptables-save`, then `iptables -C` per rule), cleaned up first when asked
 * (`--reconcile` with differing residue, behind DROP guardrails, or `--cleanup-only`), applied with
 * `iptables-restore --noflush` (and `ip6tables-restore` with IPv6) when they differ or with
 * `--force-apply`, and the final state logged.
 */

import type { CaptureConfig } from "../../capture/config.js";
import { iptablesRuleSet } from "../../capture/iptables.js";
import {
  checkCommands,
  cleanupCommands,
  compareStates,
  guardrailCleanupCommands,
  guardrailCommands,
  isEmptyState,
  stateFromSave,
} from "../../capture/iptables-state.js";
import type { Logger } from "../../process/log.js";
import type { Dependencies, IptablesVersion } from "./dependencies.js";

/** Logs a message that spans lines the way Istio's console logger does: the lines kept as they are. */
export type MultilineLog = (message: string, level?: "info" | "error") => void;

interface Family {
  ver: IptablesVersion | undefined;
  restore: string;
  checks: string[][];
  name: string;
}

/** VerifyIptablesState: whether Istio residue is in place, and whether it differs from the plan. */
async function verifyState(
  log: Logger,
  ext: Dependencies,
  families: Family[],
): Promise<{ residue: boolean; delta: boolean }> {
  let residue = false;
  let delta = false;
  for (const f of families) {
    if (f.ver === undefined) continue;
    const expected = stateFromSave(f.restore);
    const planned = !isEmptyState(expected);
    let current: string;
    try {
      current = await ext.run(log, true, "iptables-save", f.ver, undefined, []);
    } catch {
      log.warn(`[${f.name}] iptables-save failed. Assuming clean state.`);
      if (planned) delta = true;
      continue;
    }
    const cmp = compareStates(expected, stateFromSave(current));
    let familyDelta = cmp.delta;
    if (familyDelta === undefined) {
      familyDelta = false;
      for (const check of f.checks) {
        try {
          await ext.run(log, true, "iptables", f.ver, undefined, check);
        } catch {
          familyDelta = true;
          log.debug(`[${f.name}] iptables check rules failed`);
          break;
        }
      }
    }
    delta ||= familyDelta;
    if (cmp.residue && planned) residue = true;
    else if (cmp.residue) log.info(`Ignoring residues because no rules are planned for ${f.name}`);
  }
  if (!residue) {
    log.info("Clean-state detected, new iptables are needed");
    return { residue: false, delta: true };
  }
  log.info(
    delta
      ? "Found residues of old iptables rules/chains, reconciliation is recommended"
      : "Found compatible residues of old iptables rules/chains, reconciliation not needed",
  );
  return { residue, delta };
}

async function runAll(
  log: Logger,
  ext: Dependencies,
  ver: IptablesVersion,
  commands: string[][],
  quiet: boolean,
): Promise<void> {
  for (const c of commands) {
    if (quiet) await ext.run(log, true, "iptables", ver, undefined, c).catch(() => "");
    else await ext.run(log, false, "iptables", ver, undefined, c);
  }
}

/** Programs the rules of `cfg`; rejects with the first command's error that is not ignored. */
export async function programIptables(
  cfg: CaptureConfig,
  ext: Dependencies,
  log: Logger,
  logLines: MultilineLog,
): Promise<void> {
  const iptV = await ext.detectIptablesVersion(false);
  let ipt6V: IptablesVersion | undefined;
  try {
    ipt6V = await ext.detectIptablesVersion(true);
  } catch (e) {
    if (cfg.EnableIPv6) throw e;
    log.warn(
      `Failed to detect a working ip6tables binary; continuing because IPv6 support is disabled (ENABLE_INBOUND_IPV6=false): ${(e as Error).message}`,
    );
  }
  const text = (lines: string[]) => lines.map((l) => `${l}\n`).join("");
  try {
    // Built inside Run, as Istio's, so that a refused range still ends with the final state.
    const rules = iptablesRuleSet(cfg);
    const restoreV4 = rules.restoreV4();
    const restoreV6 = rules.restoreV6();
    const families: Family[] = [
      { ver: iptV, restore: text(restoreV4), checks: checkCommands(rules.v4), name: "IPv4" },
      { ver: ipt6V, restore: text(restoreV6), checks: checkCommands(rules.v6), name: "IPv6" },
    ];
    // Istio checks the IPv6 state with the detected (or empty) binary set even without IPv6.
    if (ipt6V === undefined) families[1] = { ...(families[1] as Family), ver: EMPTY_VERSION };
    const { residue, delta } = await verifyState(log, ext, families);
    if (residue && delta && !cfg.Reconcile) {
      log.info(
        "reconcile is recommended but no-reconcile flag is set. Unexpected behavior may occur due to preexisting iptables rules",
      );
    }
    const versions = cfg.EnableIPv6 && ipt6V !== undefined ? [iptV, ipt6V] : [iptV];
    let guardrails = false;
    try {
      if ((residue && delta && cfg.Reconcile) || cfg.CleanupOnly) {
        if (!cfg.CleanupOnly) {
          log.info("Setting up guardrails");
          for (const ver of versions) {
            await runAll(log, ext, ver, guardrailCleanupCommands(), true);
            await runAll(log, ext, ver, guardrailCommands(), false);
            guardrails = true;
          }
        }
        log.info("Performing cleanup of existing iptables");
        await runAll(log, ext, iptV, cleanupCommands(rules.v4), true);
        if (cfg.EnableIPv6 && ipt6V !== undefined) await runAll(log, ext, ipt6V, cleanupCommands(rules.v6), true);
      }
      if ((delta || cfg.ForceApply) && !cfg.CleanupOnly) {
        log.info("Applying iptables chains and rules");
        const families = [
          [iptV, restoreV4] as const,
          ...(cfg.EnableIPv6 && ipt6V ? [[ipt6V, restoreV6] as const] : []),
        ];
        for (const [ver, restore] of families) {
          logLines(
            `Running iptables restore with: ${ver.restoreBinary} and the following input:\n${restore.join("\n")}`,
          );
          await ext.run(log, false, "iptables-restore", ver, text(restore), ["--noflush"]);
        }
      }
      if (!delta && cfg.ForceApply) {
        log.warn(
          "The forced apply of iptables changes succeeded despite the presence of conflicting rules or chains. If you encounter this message, please consider reporting it as an issue.",
        );
      }
    } finally {
      if (guardrails) {
        log.info("Removing guardrails");
        for (const ver of versions) await runAll(log, ext, ver, guardrailCleanupCommands(), false).catch(() => {});
      }
    }
  } finally {
    // Best effort, as the commands may not exist.
    const v4 = await ext.run(log, true, "iptables-save", iptV, undefined, []).catch(() => undefined);
    if (v4 !== undefined) logLines(`Final iptables state (IPv4):\n${v4}`);
    if (cfg.EnableIPv6) {
      const v6 = await ext
        .run(log, true, "iptables-save", ipt6V ?? EMPTY_VERSION, undefined, [])
        .catch(() => undefined);
      if (v6 !== undefined) logLines(`Final iptables state (IPv6):\n${v6}`);
    }
  }
}

/** Istio's zero IptablesVersion: no binaries, so every command with it fails. */
const EMPTY_VERSION: IptablesVersion = {
  binary: "",
  saveBinary: "",
  restoreBinary: "",
  version: [0, 0, 0],
  legacy: false,
  existingRules: false,
};
