// `meshinject serve` as a process: starts with no flags, answers, exits 0 on SIGTERM; a config it
// cannot read or a port in use exits 1. Flags refused before anything starts are checked in process.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Logs } from "../../test/json-logs.js";
import { runMeshinject } from "../../test/meshinject-cli.js";
import { postReview } from "../webhook/https-client.js";
import { curlHint, listenErrorMessage, readNamespacesFile } from "./serve.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const EXAMPLE = JSON.parse(readFileSync(new URL("../../examples/admission-review.json", import.meta.url), "utf8"));

function serve(args: string[]): ChildProcess {
  // One process, as before --workers (src/cli/serve-workers.test.ts starts workers).
  return spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", "serve", "--workers", "1", ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Runs `meshinject serve ARGS` to its end: its exit code and stderr. */
async function serveToExit(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = serve(args);
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (c: string) => {
    stderr += c;
  });
  child.stdout?.resume();
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, stderr };
}

describe("meshinject serve", () => {
  test("no flags: built-in config, self-signed certificate, a curl hint; SIGTERM exits 0", {
    timeout: 30_000,
  }, async () => {
    const child = serve(["--port", "0", "--metrics-port", "0"]);
    const logs = new Logs(child);
    try {
      const [hint = {}] = await logs.wait("the certificate hint", (l) => /self-signed certificate/.test(String(l.msg)));
      const listening = logs.lines.find((l) => l.msg === "sidecar injector webhook listening");
      const port = Number(listening?.port);
      assert.ok(port > 0);
      // From a source checkout the hint names the example by its absolute path: it works from any folder.
      const example = fileURLToPath(new URL("../../examples/admission-review.json", import.meta.url));
      assert.equal(
        String(hint.try),
        `curl -k -H 'Content-Type: application/json' --data @${example} https://127.0.0.1:${port}/inject`,
      );
      // Without the example beside the package (an installed copy) the review is given inline; it is answered.
      const inline = /--data '([^']+)'/.exec(curlHint(port, undefined))?.[1];
      assert.ok(inline !== undefined);
      const injected = await postReview({ port, review: JSON.parse(inline) });
      const response = injected.response as { allowed: boolean; patch?: string };
      assert.equal(response.allowed, true);
      assert.match(Buffer.from(response.patch ?? "", "base64").toString(), /istio-proxy/);
      const answer = await postReview({ port, review: EXAMPLE });
      assert.equal((answer.response as { allowed: boolean }).allowed, true);
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      const [code] = await exited;
      assert.equal(code, 0);
      assert.ok(logs.lines.some((l) => l.msg === "stopped"));
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });

  for (const [names, flags, how] of [
    [
      "--host localhost --ip 127.0.0.1",
      ["--host", "localhost", "--ip", "127.0.0.1"],
      /--cacert \S+ca\.crt -H .* https:\/\/127\.0\.0\.1:/,
    ],
    [
      "only the Service's names",
      [],
      /--cacert \S+ca\.crt --resolve istio-sidecar-injector:\d+:127\.0\.0\.1 -H .* https:\/\/istio-sidecar-injector:/,
    ],
  ] as const) {
    test(`certs (${names}) + serve --cert-dir: the hint's curl verifies the certificate and is answered`, {
      timeout: 60_000,
    }, async () => {
      const dir = mkdtempSync(join(tmpdir(), "meshinject-serve-certs-"));
      const child = { current: undefined as ChildProcess | undefined };
      try {
        const certs = await runMeshinject(["certs", "--out-dir", dir, ...flags]);
        assert.equal(certs.code, 0, certs.stderr);
        child.current = serve(["--port", "0", "--metrics-port", "0", "--cert-dir", dir, "--no-istiod-check"]);
        const logs = new Logs(child.current);
        const [hint = {}] = await logs.wait("the curl hint", (l) => typeof l.try === "string");
        const curl = String(hint.try);
        assert.match(curl, how);
        // Run as printed, by a shell, from another folder: curl verifies the chain and the name.
        const run = spawn("sh", ["-c", `${curl} --silent --show-error --fail`], { cwd: tmpdir() });
        let out = "";
        let err = "";
        run.stdout.on("data", (c: Buffer) => {
          out += c;
        });
        run.stderr.on("data", (c: Buffer) => {
          err += c;
        });
        const [code] = await once(run, "close");
        assert.equal(code, 0, err);
        assert.equal((JSON.parse(out) as { response: { allowed: boolean } }).response.allowed, true);
      } finally {
        if (child.current !== undefined && child.current.exitCode === null) child.current.kill("SIGKILL");
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  test("SIGTERM exits after --shutdown-delay + --shutdown-timeout although connections never finished a TLS handshake", {
    timeout: 60_000,
  }, async () => {
    const child = serve([
      "--port",
      "0",
      "--metrics-port",
      "0",
      "--host",
      "127.0.0.1",
      "--metrics-host",
      "127.0.0.1",
      "--shutdown-delay",
      "100",
      "--shutdown-timeout",
      "300",
    ]);
    const logs = new Logs(child);
    const sockets: Socket[] = [];
    try {
      await logs.wait("the certificate hint", (l) => /self-signed certificate/.test(String(l.msg)));
      const port = Number(logs.lines.find((l) => l.msg === "sidecar injector webhook listening")?.port);
      // Plain TCP connections that send nothing, and one with half a ClientHello: the handshake
      // timeout (10 s) is far off, so only the shutdown can close them.
      for (let i = 0; i < 20; i++) {
        const socket = connect({ host: "127.0.0.1", port });
        socket.on("error", () => {});
        await once(socket, "connect");
        if (i === 0) socket.write(Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]));
        sockets.push(socket);
      }
      const exited = once(child, "exit");
      const signalled = Date.now();
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 8_000);
      const [code, signal] = await exited;
      clearTimeout(timer);
      assert.equal(signal, null, `still running ${Date.now() - signalled} ms after SIGTERM: killed`);
      assert.equal(code, 0);
      assert.ok(logs.lines.some((l) => l.msg === "shutdown timeout: closing remaining connections"));
      assert.ok(logs.lines.some((l) => l.msg === "stopped"));
    } finally {
      for (const socket of sockets) socket.destroy();
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });

  test("bad flags exit 1 with one line, before anything starts", { timeout: 60_000 }, async () => {
    for (const [args, message] of [
      [["--native-sidecars", "maybe"], /--native-sidecars must be on, off or auto/],
      [["--port", "70000"], /--port must be an integer/],
      [["--max-connections", "-1"], /--max-connections must be an integer/],
      [["--tls-cipher-suites", "TLS_NOPE"], /--tls-cipher-suites: unknown cipher suite "TLS_NOPE"/],
      [["--tls-min-version", "VersionTLS10"], /--tls-min-version must be VersionTLS12 or VersionTLS13/],
      [["--tls-cert-file", "x.pem"], /--tls-cert-file and --tls-key-file go together/],
      [["--platform", "gcp"], /--platform must be openshift/],
      [["--namespace-source", "in-cluster"], /--namespace-source is only read with --platform openshift/],
      [["--platform", "openshift", "--namespace-source", "/nonexistent/ns.yaml"], /--namespace-source: cannot read/],
    ] as const) {
      const r = await runMeshinject(["serve", "--port", "0", "--metrics-port", "0", ...args]);
      assert.equal(r.code, 1, args.join(" "));
      assert.equal(r.stdout, "");
      assert.match(r.stderr, message);
      assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
    }
  });

  test("an unreadable config exits 1 with one line", { timeout: 60_000 }, async () => {
    const { code, stderr } = await serveToExit([
      "--port",
      "0",
      "--metrics-port",
      "0",
      "--config-dir",
      "/nonexistent/meshinject",
    ]);
    assert.equal(code, 1);
    assert.match(stderr, /cannot read \/nonexistent\/meshinject\/config/);
    assert.equal(stderr.trim().split("\n").length, 1, stderr);
  });
});

describe("serve's listen errors", () => {
  test("a port in use names the listener and the flag", { timeout: 60_000 }, async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, resolve));
    const busy = String((blocker.address() as { port: number }).port);
    try {
      for (const [args, message] of [
        [["--port", busy, "--metrics-port", "0"], `HTTPS port ${busy} is already in use: choose another with --port`],
        [
          ["--port", "0", "--metrics-port", busy],
          `metrics port ${busy} is already in use: choose another with --metrics-port`,
        ],
      ] as const) {
        const { code, stderr } = await serveToExit([...args]);
        assert.equal(code, 1);
        assert.match(stderr, new RegExp(`^meshinject: ${message} \\(0 picks a free port\\)\\n$`));
      }
    } finally {
      blocker.close();
    }
  });

  test("listenErrorMessage", () => {
    const err = (code: string, port: number) =>
      Object.assign(new Error(code), { code, syscall: "listen", port, address: "::" });
    const ports = { port: 9443, metricsPort: 9444 };
    assert.match(listenErrorMessage(err("EACCES", 9443), ports) ?? "", /^HTTPS port 9443: permission denied.*--port$/);
    assert.match(listenErrorMessage(err("EADDRINUSE", 9444), ports) ?? "", /^metrics port 9444 .*--metrics-port/);
    assert.match(
      listenErrorMessage(err("EADDRINUSE", 9443), { port: 9443, metricsPort: 9443 }) ?? "",
      /--port and --metrics-port are both 9443/,
    );
    assert.equal(listenErrorMessage(new Error("other"), ports), undefined);
  });

  test("curlHint quotes paths for the shell", () => {
    assert.match(curlHint(1, "/opt/my dir/review.json"), / --data '@\/opt\/my dir\/review\.json' /);
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
