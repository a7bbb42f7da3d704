// `-o PATH` of every command that has it, on what PATH can be: a character device and a FIFO made
// with mknod in a temporary folder (they stay what they are, and a FIFO's reader gets the text), a
// Unix socket (its server gets the text), `-` and the standard streams' names (the run's stdout).
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { childOutput, meshinject, meshinjectProcess, repoRoot } from "../../test/meshinject-cli.js";
import { standardStream } from "./output-target.js";

const isRoot = process.getuid?.() === 0;

const template = join(repoRoot, "examples/deployment.tmpl");
const values = join(repoRoot, "examples/values.yaml");
const curl = join(repoRoot, "examples/curl.yaml");

/** Every command with `-o`, as arguments before `-o PATH`. */
const COMMANDS: Record<string, () => Promise<string[]>> = {
  "template render": async () => ["template", "render", "-f", template, "--values", values],
  "kube-inject": async () => ["kube-inject", "-f", curl],
  uninject: async () => {
    const injected = join(dir, "injected.yaml");
    await writeFile(injected, (await meshinject("kube-inject", "-f", curl)).stdout);
    return ["uninject", "-f", injected];
  },
  "webhook-config": async () => ["webhook-config"],
};

const dir = await mkdtemp(join(tmpdir(), "meshinject-output-target-"));
after(() => rm(dir, { recursive: true, force: true }));

/** What the command prints on stdout without -o. */
async function expected(args: string[]): Promise<string> {
  const run = await meshinject(...args);
  assert.equal(run.code, 0, run.stderr);
  return run.stdout;
}

describe("-o on what is not a regular file", () => {
  for (const [name, argsOf] of Object.entries(COMMANDS)) {
    it(`${name}: a character device stays a device`, {
      skip: !isRoot && "making a character device with mknod needs root: run the tests as root",
    }, async () => {
      const args = await argsOf();
      const device = join(dir, `null-${name.replace(" ", "-")}`);
      execFileSync("mknod", [device, "c", "1", "3"]); // the kernel's null device
      const run = await meshinject(...args, "-o", device);
      assert.equal(run.code, 0, run.stderr);
      assert.ok((await stat(device)).isCharacterDevice(), `${device} is no longer a character device`);
      assert.ok(!(await readdir(dir)).some((f) => f.endsWith(".tmp")));
    });

    it(`${name}: a FIFO's reader gets the whole output, and the FIFO stays one`, async () => {
      const args = await argsOf();
      const fifo = join(dir, `fifo-${name.replace(" ", "-")}`);
      execFileSync("mknod", [fifo, "p"]);
      const reader = childOutput(spawn("cat", [fifo], { stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 }));
      const run = await meshinject(...args, "-o", fifo);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(await reader.exited, 0, reader.stderr);
      assert.equal(reader.stdout, await expected(args));
      assert.ok((await stat(fifo)).isFIFO());
    });

    it(`${name}: a Unix socket's server gets the whole output`, async () => {
      const args = await argsOf();
      const path = join(dir, `sock-${name.replace(" ", "-")}`);
      let received = "";
      const done = new Promise<void>((resolve) => {
        const server = createServer((socket) => {
          socket.on("data", (chunk: Buffer) => {
            received += chunk.toString();
          });
          socket.on("end", () => server.close(() => resolve()));
        });
        server.listen(path);
      });
      const run = await meshinject(...args, "-o", path);
      assert.equal(run.code, 0, run.stderr);
      await done;
      assert.equal(received, await expected(args));
    });

    it(`${name}: -o - and -o /dev/stdout are standard output`, async () => {
      const args = await argsOf();
      const want = await expected(args);
      for (const path of ["-", "/dev/stdout", "/dev/fd/1"]) {
        const run = await meshinject(...args, "-o", path);
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.stdout, want, path);
      }
      assert.ok(!(await readdir(dir)).includes("-"));
    });
  }
});

describe("-o /dev/stdout of the real binary in a pipe", () => {
  it("kube-inject writes into the pipe", async () => {
    const run = meshinjectProcess(["kube-inject", "-f", "examples/curl.yaml", "-o", "/dev/stdout"]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, await expected(["kube-inject", "-f", curl]));
  });
});

describe("-o on a regular file", () => {
  it("is still replaced in one step, its folder left clean", async () => {
    const path = join(dir, "out.yaml");
    await writeFile(path, "old");
    const run = await meshinject("kube-inject", "-f", curl, "-o", path);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(await readFile(path, "utf8"), await expected(["kube-inject", "-f", curl]));
    assert.ok(!(await readdir(dir)).some((f) => f.endsWith(".tmp")));
  });
});

describe("standardStream", () => {
  it("names the run's streams, and nothing else", () => {
    assert.equal(standardStream("-"), "stdout");
    assert.equal(standardStream("/dev/stdout"), "stdout");
    assert.equal(standardStream("/proc/self/fd/1"), "stdout");
    assert.equal(standardStream("/dev/stderr"), "stderr");
    assert.equal(standardStream("/dev/fd/2"), "stderr");
    assert.equal(standardStream("/dev/fd/3"), undefined);
    assert.equal(standardStream("./-"), undefined);
    assert.equal(standardStream("stdout"), undefined);
  });
});
