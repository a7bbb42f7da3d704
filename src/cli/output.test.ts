import assert from "node:assert/strict";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ensureFolder, existing, WriteError, writeFileAtomic } from "./output.js";

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

  it("sets the mode from the start", async () => {
    const sub = await mkdtemp(join(dir, "mode-"));
    await writeFileAtomic(join(sub, "key"), "secret", 0o600);
    assert.equal((await stat(join(sub, "key"))).mode & 0o777, 0o600);
  });

  it("fails cleanly when the directory does not exist, naming it and no temporary file", async () => {
    const missing = join(dir, "missing");
    await assert.rejects(writeFileAtomic(join(missing, "out.yaml"), "x"), (e: unknown) => {
      assert.ok(e instanceof WriteError);
      assert.equal(e.message, `folder ${missing} does not exist`);
      assert.equal(e.code, "ENOENT");
      return true;
    });
    assert.ok(!(await readdir(dir)).some((f) => f.endsWith(".tmp")));
  });

  it("says 'is a directory' when the target is a folder, and leaves it alone", async () => {
    const target = join(dir, "a-folder");
    await mkdir(target);
    await assert.rejects(writeFileAtomic(target, "x"), { name: "WriteError", message: "is a directory" });
    assert.ok((await stat(target)).isDirectory());
    assert.ok(!(await readdir(dir)).some((f) => f.endsWith(".tmp")));
  });
});

describe("ensureFolder / existing", async () => {
  const dir = await mkdtemp(join(tmpdir(), "meshinject-folder-"));
  after(() => rm(dir, { recursive: true, force: true }));

  it("creates missing folders and names a file in the way", async () => {
    await ensureFolder(join(dir, "a", "b"));
    assert.ok((await stat(join(dir, "a", "b"))).isDirectory());
    await writeFile(join(dir, "file"), "");
    await assert.rejects(ensureFolder(join(dir, "file")), { message: "is not a folder" });
    await assert.rejects(ensureFolder(join(dir, "file", "sub")), { message: `${join(dir, "file")} is not a folder` });
  });

  it("lists the paths that exist", () => {
    assert.deepEqual(existing([join(dir, "a"), join(dir, "nope")]), [join(dir, "a")]);
  });
});
