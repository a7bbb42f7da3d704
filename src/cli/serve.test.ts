// `meshinject serve` as a process: starts with no flags, answers, exits 0 on SIGTERM; bad flags exit 1.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { postReview } from "../webhook/https-client.js";
import { readNamespacesFile } from "./serve.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const EXAMPLE = JSON.parse(readFileSync(new URL("../../examples/admission-review.json", import.meta.url), "utf8"));

function serve(args: string[]): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", "serve", ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Collects the JSON log lines and resolves with the first one whose msg matches. */
function logLine(child: ChildProcess, lines: Record<string, unknown>[], msg: RegExp): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let buffered = "";
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => {
      buffered += chunk;
      let nl = buffered.indexOf("\n");
      while (nl >= 0) {
        const line = JSON.parse(buffered.slice(0, nl)) as Record<string, unknown>;
        lines.push(line);
        buffered = buffered.slice(nl + 1);
        if (msg.test(String(line.msg))) resolve(line);
        nl = buffered.indexOf("\n");
      }
    });
    child.once("exit", (code) => reject(new Error(`exited with ${code} before logging ${msg}`)));
  });
}

describe("meshinject serve", () => {
  test("no flags: built-in config, self-signed certificate, a curl hint; SIGTERM exits 0", {
    timeout: 30_000,
  }, async () => {
    const child = serve(["--port", "0", "--metrics-port", "0"]);
    const lines: Record<string, unknown>[] = [];
    try {
      const hint = await logLine(child, lines, /self-signed certificate/);
      const listening = lines.find((l) => l.msg === "sidecar injector webhook listening");
      const port = Number(listening?.port);
      assert.ok(port > 0);
      assert.match(
        String(hint.try),
        new RegExp(`curl -k .*--data @examples/admission-review.json https://127.0.0.1:${port}/inject`),
      );
      const answer = await postReview({ port, review: EXAMPLE });
      assert.equal((answer.response as { allowed: boolean }).allowed, true);
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      const [code] = await exited;
      assert.equal(code, 0);
      assert.ok(lines.some((l) => l.msg === "stopped"));
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });

  test("bad flags and unreadable config exit 1 with one line", { timeout: 60_000 }, async () => {
    for (const [args, message] of [
      [["--native-sidecars", "maybe"], /--native-sidecars must be on, off or auto/],
      [["--port", "70000"], /--port must be an integer/],
      [["--tls-cert-file", "x.pem"], /--tls-cert-file and --tls-key-file go together/],
      [["--config-dir", "/nonexistent/meshinject"], /cannot read \/nonexistent\/meshinject\/config/],
      [["--platform", "gcp"], /--platform must be openshift/],
      [["--namespace-source", "in-cluster"], /--namespace-source is only read with --platform openshift/],
      [["--platform", "openshift", "--namespace-source", "/nonexistent/ns.yaml"], /--namespace-source: cannot read/],
    ] as const) {
      const child = serve(["--port", "0", "--metrics-port", "0", ...args]);
      let stderr = "";
      child.stderr?.setEncoding("utf8");
      child.stderr?.on("data", (c: string) => {
        stderr += c;
      });
      child.stdout?.resume();
      const [code] = await once(child, "exit");
      assert.equal(code, 1, args.join(" "));
      assert.match(stderr, message);
      assert.equal(stderr.trim().split("\n").length, 1, stderr);
    }
  });
});

describe("readNamespacesFile", () => {
  test("reads Namespaces, Lists of them and streams; refuses other kinds", async () => {
    const dir = mkdtempSync(join(tmpdir(), "meshinject-serve-"));
    try {
      const file = join(dir, "ns.yaml");
      writeFileSync(
        file,
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n---\nkind: List\nitems:\n- kind: Namespace\n  metadata: {name: b}\n",
      );
      const got = await readNamespacesFile(file);
      assert.deepEqual(
        got.map((n) => n.metadata?.name),
        ["a", "b"],
      );
      writeFileSync(file, "kind: Pod\n");
      await assert.rejects(readNamespacesFile(file), /holds a "Pod", not a Namespace/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
