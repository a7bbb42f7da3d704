import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { writeFileAtomic } from "./output.js";

describe("writeFileAtomic", async () => {
  const dir = await mkdtemp(join(tmpdir(), "meshinject-output-"));
  after(() => rm(dir, { recursive: true, force: true }));

  it("replaces the target and leaves no temporary file", async () => {
    const path = join(dir, "out.yaml");
    await writeFile(path, "old");
    await writeFileAtomic(path, "new");
    assert.equal(await readFile(path, "utf8"), "new");
    assert.deepEqual(await readdir(dir), ["out.yaml"]);
  });

  it("fails cleanly when the directory does not exist", async () => {
    await assert.rejects(writeFileAtomic(join(dir, "missing", "out.yaml"), "x"), /ENOENT/);
    assert.deepEqual(await readdir(dir), ["out.yaml"]);
  });
});
