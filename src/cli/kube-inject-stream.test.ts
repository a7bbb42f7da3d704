// End-to-end tests of streaming `meshinject kube-inject`: each document is written as soon as it is
// injected (before the input ends), an error in a late document names it and its line in the whole
// input, and `-o FILE` then leaves the file as it was and no temporary file.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { deployment, deploymentStream, lineCount } from "../../test/deployment-stream.js";
import { childOutput, meshinject, repoRoot } from "../../test/meshinject-cli.js";

const service = (name: string) => `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\n`;

describe("streaming meshinject kube-inject", async () => {
  const dir = await mkdtemp(join(tmpdir(), "meshinject-stream-"));
  after(() => rm(dir, { recursive: true, force: true }));

  it("writes the first injected document before standard input is closed", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", "kube-inject", "-f", "-"], {
      cwd: repoRoot,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out = childOutput(child);
    // The first document (its end is the separator line), then nothing until its output is seen.
    child.stdin.write(`${deployment(1)}---\n`);
    const firstOut = await new Promise<string>((resolve, reject) => {
      const check = () => {
        if (out.stdout.endsWith("---\n")) resolve(out.stdout);
      };
      child.stdout.on("data", check);
      out.exited.then(() => reject(new Error(`exited before any output; stderr: ${out.stderr}`)));
    });
    assert.match(firstOut, /^apiVersion: apps\/v1\nkind: Deployment\nmetadata:\n/);
    assert.match(firstOut, /name: istio-proxy\n/);
    assert.equal(firstOut.match(/^kind: /gm)?.length, 1);
    child.stdin.end(deployment(2));
    assert.equal(await out.exited, 0, out.stderr);
    assert.ok(out.stdout.startsWith(firstOut));
    assert.match(out.stdout.slice(firstOut.length), /name: app-2\n.*name: istio-proxy\n.*---\n$/s);
  });

  it("stops quietly when the reader of its output goes away (| head)", async () => {
    await writeFile(join(dir, "many.yaml"), deploymentStream(300));
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "src/cli/main.ts", "kube-inject", "-f", join(dir, "many.yaml")],
      { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] },
    );
    const out = childOutput(child);
    // The first piece of output, then the pipe is closed, as `head -1` does.
    child.stdout.once("data", () => child.stdout.destroy());
    assert.equal(await out.exited, 0, out.stderr);
    assert.equal(out.stderr, "");
  });

  it("-o removes its temporary file when interrupted mid-stream, and keeps the old file", async () => {
    const out = await mkdtemp(join(dir, "signal-"));
    const target = join(out, "injected.yaml");
    await writeFile(target, "old content\n");
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "src/cli/main.ts", "kube-inject", "-f", "-", "-o", target],
      { cwd: repoRoot, stdio: ["pipe", "pipe", "pipe"] },
    );
    const exited = new Promise<[number | null, string | null]>((resolve) =>
      child.on("close", (code, signal) => resolve([code, signal])),
    );
    child.stdin.write(`${deployment(1)}---\n`);
    // Until the first document is in the temporary file (the input still open); a minute at most.
    for (const deadline = Date.now() + 60_000; ; ) {
      assert.ok(Date.now() < deadline, "no temporary file with the first document after a minute");
      const temps = (await readdir(out)).filter((f) => f.endsWith(".tmp"));
      const size = temps[0] === undefined ? 0 : (await stat(join(out, temps[0]))).size;
      if (size > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill("SIGTERM");
    assert.deepEqual(await exited, [143, null]);
    assert.deepEqual(await readdir(out), ["injected.yaml"]);
    assert.equal(await readFile(target, "utf8"), "old content\n");
  });

  it("names a late document and its line in the whole input, after writing the documents before it", async () => {
    const broken = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: broken\nspec:\n  containers: [\n";
    const before = deploymentStream(40);
    const input = `${before}${broken}`;
    await writeFile(join(dir, "late.yaml"), input);
    const r = await meshinject("kube-inject", "-f", join(dir, "late.yaml"));
    assert.equal(r.code, 1);
    // The YAML reader stops at the end of the Pod's text, the line after its last one.
    const line = lineCount(input) + 1;
    assert.equal(
      r.stderr,
      `meshinject: ${join(dir, "late.yaml")}: document 41 (Pod "broken"): invalid YAML: line ${line}, column 1: Flow sequence in block collection must be sufficiently indented and end with a ]\n`,
    );
    assert.equal(r.stdout.match(/^kind: Deployment\n/gm)?.length, 40);
    assert.equal(r.stdout.match(/name: istio-proxy\n/g)?.length, 40);
  });

  it("-o leaves the file as it was and nothing else behind on a late error", async () => {
    const out = await mkdtemp(join(dir, "out-"));
    const target = join(out, "injected.yaml");
    await writeFile(target, "old content\n");
    const thirty = deploymentStream(30);
    const cases: [string, string | Buffer, RegExp][] = [
      [
        "bad-doc.yaml",
        `${thirty}kind: Pod\nmetadata: {name: p}\nspec: [\n`,
        new RegExp(`document 31 \\(Pod\\): invalid YAML: line ${lineCount(thirty) + 4},`),
      ],
      [
        "bad-separator.yaml",
        `${thirty}--- x\n${service("s")}`,
        new RegExp(`invalid YAML stream at line ${lineCount(thirty) + 1}: invalid Yaml document separator: x$`),
      ],
      // Past the first 64 KiB read: the bad byte is found after many documents were written.
      [
        "latin1.yaml",
        Buffer.concat([Buffer.from(`${service("s")}---\n`.repeat(2000)), Buffer.from("# caf\xe9\n", "latin1")]),
        /input .*latin1\.yaml is not UTF-8 text \(line 10001\); save it as UTF-8$/,
      ],
    ];
    for (const [name, text, pattern] of cases) {
      await writeFile(join(dir, name), text);
      const r = await meshinject("kube-inject", "-f", join(dir, name), "-o", target);
      assert.equal(r.code, 1, name);
      assert.equal(r.stdout, "", name);
      assert.match(r.stderr, /^meshinject: [^\n]+\n$/, name);
      assert.match(r.stderr.trimEnd(), pattern, name);
      assert.equal(await readFile(target, "utf8"), "old content\n", name);
      assert.deepEqual(await readdir(out), ["injected.yaml"], name);
    }
  });
});
