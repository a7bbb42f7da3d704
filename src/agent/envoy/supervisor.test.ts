/**
 * Envoy supervision against the fake Envoy (testdata/fake-envoy.mjs, a real process serving the
 * admin API on loopback): exit codes pass through, the drain follows pilot-agent's two modes, a
 * missing binary is a one-line error.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { freePort, postLocal } from "../../../test/loopback.js";
import { Logger } from "../process/log.js";
import { EnvoyProcess, EnvoyStartError } from "./supervisor.js";

const FAKE = fileURLToPath(new URL("./testdata/fake-envoy.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "meshinject-supervisor-"));
after(() => rmSync(dir, { recursive: true, force: true }));

async function untilUp(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      await postLocal(port, "/fake/ready?value=false");
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error("the fake Envoy did not come up");
}

async function envoy(env: Record<string, string>, drain: Partial<EnvoyProcessDrain> = {}) {
  const port = await freePort();
  const bootstrap = join(dir, `bootstrap-${port}.json`);
  writeFileSync(
    bootstrap,
    JSON.stringify({ admin: { address: { socket_address: { address: "127.0.0.1", port_value: port } } } }),
  );
  const lines: string[] = [];
  const log = new Logger({ write: (l) => lines.push(l) });
  const proc = new EnvoyProcess({
    binaryPath: FAKE,
    args: ["-c", bootstrap, "--drain-time-s", "45"],
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", ...env },
    admin: { host: "127.0.0.1", port },
    ports: { statusPort: 15021, prometheusPort: 15090 },
    drain: {
      inboundOnly: true,
      terminationDrainMs: 300,
      minDrainMs: 100,
      exitOnZeroActiveConnections: false,
      ...drain,
    },
    log,
    stdio: "pipe",
  });
  return { proc, port, lines, log };
}
type EnvoyProcessDrain = {
  inboundOnly: boolean;
  terminationDrainMs: number;
  minDrainMs: number;
  exitOnZeroActiveConnections: boolean;
};

function outputOf(proc: EnvoyProcess): { text: string } {
  const out = { text: "" };
  proc.process?.stdout?.on("data", (c) => {
    out.text += c;
  });
  return out;
}

describe("EnvoyProcess", () => {
  it("reports Envoy's own exit code", async () => {
    const { proc } = await envoy({ FAKE_ENVOY_EXIT_AFTER_MS: "200", FAKE_ENVOY_EXIT_CODE: "3" });
    await proc.start();
    assert.equal(await proc.exited, 3);
  });

  it("drains inbound listeners, waits the termination drain duration, then kills Envoy", async () => {
    const { proc, port, lines } = await envoy({});
    await proc.start();
    const out = outputOf(proc);
    await untilUp(port);
    const started = Date.now();
    await proc.stop();
    assert.ok(Date.now() - started >= 300, "waited the drain duration");
    assert.match(out.text, /drain_listeners \?inboundonly&graceful/);
    assert.match(lines.join(""), /Graceful termination period is 300 ms/);
    assert.equal(proc.isRunning, false);
  });

  it("with EXIT_ON_ZERO_ACTIVE_CONNECTIONS, waits until no connection is active", async () => {
    const { proc, port, lines } = await envoy(
      { FAKE_ENVOY_CONNECTIONS: "2" },
      { exitOnZeroActiveConnections: true, inboundOnly: false, terminationDrainMs: 60_000 },
    );
    await proc.start();
    const out = outputOf(proc);
    await untilUp(port);
    const stopping = proc.stop();
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(proc.isRunning, true, "still draining while 2 connections are active");
    await postLocal(port, "/fake/connections?value=0");
    await stopping;
    assert.equal(proc.isRunning, false);
    assert.match(out.text, /drain_listeners \?graceful\n/);
    assert.match(lines.join(""), /There are still 2 active connections/);
    assert.match(lines.join(""), /no more active connections/);
  });

  it("skips the drain after /quitquitquit", async () => {
    const { proc, port } = await envoy({});
    await proc.start();
    const out = outputOf(proc);
    await untilUp(port);
    proc.skipDrain();
    await proc.stop();
    assert.doesNotMatch(out.text, /drain_listeners/);
  });

  it("drains now on the status server's /drain, keeps Envoy running, and skips the drain when stopping", async () => {
    const { proc, port } = await envoy({});
    await proc.start();
    const out = outputOf(proc);
    await untilUp(port);
    await proc.drainNow();
    for (let i = 0; i < 200 && !out.text.includes("drain_listeners"); i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(proc.isRunning, true);
    await proc.stop();
    assert.equal(proc.isRunning, false);
    // One drain only, the one that keeps Envoy running; the stop that follows does not drain again.
    assert.deepEqual(out.text.match(/drain_listeners .*/g), ["drain_listeners ?inboundonly&graceful&skip_exit"]);
  });

  it("starts Envoy as uid and gid 1337 when the agent is root (pkg/envoy AgentIsRoot)", {
    skip: process.getuid?.() !== 0 && "only root can start a process as another user",
  }, async () => {
    // A binary the proxy user may run, in a directory it may enter, printing who it runs as.
    const open = mkdtempSync(join(tmpdir(), "meshinject-uid-"));
    try {
      chmodSync(open, 0o755);
      const binary = join(open, "envoy");
      writeFileSync(binary, '#!/bin/sh\necho "uid=$(id -u) gid=$(id -g)"\n', { mode: 0o755 });
      const lines: string[] = [];
      for (const agentIsRoot of [true, false]) {
        const proc = new EnvoyProcess({
          binaryPath: binary,
          args: [],
          cwd: open,
          env: { PATH: process.env.PATH ?? "" },
          admin: { host: "127.0.0.1", port: 1 },
          ports: { statusPort: 15021, prometheusPort: 15090 },
          drain: { inboundOnly: true, terminationDrainMs: 0, minDrainMs: 0, exitOnZeroActiveConnections: false },
          log: new Logger({ write: () => {} }),
          stdio: "pipe",
          agentIsRoot,
        });
        await proc.start();
        const out = outputOf(proc);
        await proc.exited;
        lines.push(out.text.trim());
      }
      assert.deepEqual(lines, ["uid=1337 gid=1337", "uid=0 gid=0"]);
    } finally {
      rmSync(open, { recursive: true, force: true });
    }
  });

  it("reports a missing binary in one line", async () => {
    const { log } = await envoy({});
    const proc = new EnvoyProcess({
      binaryPath: join(dir, "no-envoy"),
      args: [],
      cwd: dir,
      env: {},
      admin: { port: 1 },
      ports: { statusPort: 15021, prometheusPort: 15090 },
      drain: { inboundOnly: true, terminationDrainMs: 0, minDrainMs: 0, exitOnZeroActiveConnections: false },
      log,
    });
    await assert.rejects(
      proc.start(),
      (e: Error) => e instanceof EnvoyStartError && /no-envoy: no such file$/.test(e.message),
    );
  });
});
