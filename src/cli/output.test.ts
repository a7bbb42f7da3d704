import assert from "node:assert/strict";
import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
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

  it("writes through a symbolic link: the link stays, its target gets the text", async () => {
    const sub = await mkdtemp(join(dir, "link-"));
    await mkdir(join(sub, "real"));
    await writeFile(join(sub, "real", "app.yaml"), "old");
    await symlink("real/app.yaml", join(sub, "app.yaml"));
    await symlink("app.yaml", join(sub, "chain.yaml"));
    await writeFileAtomic(join(sub, "chain.yaml"), "new");
    assert.ok((await lstat(join(sub, "app.yaml"))).isSymbolicLink());
    assert.ok((await lstat(join(sub, "chain.yaml"))).isSymbolicLink());
    assert.equal(await readlink(join(sub, "app.yaml")), "real/app.yaml");
    assert.equal(await readFile(join(sub, "real", "app.yaml"), "utf8"), "new");
    assert.deepEqual((await readdir(join(sub, "real"))).sort(), ["app.yaml"]);
    // A link to a file that does not exist yet creates that file.
    await symlink("real/new.yaml", join(sub, "dangling.yaml"));
    await writeFileAtomic(join(sub, "dangling.yaml"), "made");
    assert.ok((await lstat(join(sub, "dangling.yaml"))).isSymbolicLink());
    assert.equal(await readFile(join(sub, "real", "new.yaml"), "utf8"), "made");
  });

  it("keeps the mode of the file it replaces (0444 stays 0444, 0640 stays 0640)", async () => {
    const sub = await mkdtemp(join(dir, "keep-mode-"));
    for (const mode of [0o444, 0o640, 0o755]) {
      const path = join(sub, `f${mode.toString(8)}`);
      await writeFile(path, "old");
      await chmod(path, mode);
      await writeFileAtomic(path, "new");
      assert.equal((await stat(path)).mode & 0o7777, mode);
      assert.equal(await readFile(path, "utf8"), "new");
    }
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

  it("fails, and does not spin, where the file system has no place for new folders (/proc)", {
    timeout: 5000,
  }, async () => {
    await assert.rejects(ensureFolder("/proc/meshinject-nope/sub"), {
      name: "WriteError",
      message: "cannot create folder /proc/meshinject-nope (/proc does not allow it)",
    });
  });

  it("lists the paths that exist", () => {
    assert.deepEqual(existing([join(dir, "a"), join(dir, "nope")]), [join(dir, "a")]);
  });
});
