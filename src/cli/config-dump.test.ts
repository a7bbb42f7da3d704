// `meshinject config dump`: creates the folder, refuses to replace files without --force.
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { meshinject } from "../../test/meshinject-cli.js";

describe("meshinject config dump", async () => {
  const dir = await mkdtemp(join(tmpdir(), "meshinject-dump-"));
  after(() => rm(dir, { recursive: true, force: true }));

  it("creates a missing -d folder and writes the three files", async () => {
    const out = join(dir, "new", "cfg");
    const r = await meshinject("config", "dump", "-d", out);
    assert.equal(r.stderr, "");
    assert.equal(r.code, 0);
    assert.deepEqual((await readdir(out)).sort(), ["inject-config.yaml", "mesh.yaml", "values.json"]);
    assert.match(r.stdout, /--meshConfigFile .*mesh\.yaml\n$/);
  });

  it("refuses to replace existing files without --force, naming them", async () => {
    const out = join(dir, "edited");
    assert.equal((await meshinject("config", "dump", "-d", out)).code, 0);
    await writeFile(join(out, "mesh.yaml"), "# edited\n");
    const r = await meshinject("config", "dump", "-d", out);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, "");
    assert.equal(
      r.stderr,
      `meshinject: ${join(out, "inject-config.yaml")}, ${join(out, "values.json")}, ${join(out, "mesh.yaml")} already exist (use --force to replace)\n`,
    );
    assert.equal(await readFile(join(out, "mesh.yaml"), "utf8"), "# edited\n");

    await rm(join(out, "inject-config.yaml"));
    await rm(join(out, "values.json"));
    const one = await meshinject("config", "dump", "-d", out);
    assert.equal(one.code, 1);
    assert.match(one.stderr, /mesh\.yaml already exists \(use --force/);
    assert.deepEqual((await readdir(out)).sort(), ["mesh.yaml"]);

    const forced = await meshinject("config", "dump", "-d", out, "--force");
    assert.equal(forced.code, 0, forced.stderr);
    assert.notEqual(await readFile(join(out, "mesh.yaml"), "utf8"), "# edited\n");
  });

  it("says which path is not a folder, without temporary file names", async () => {
    await writeFile(join(dir, "a-file"), "");
    const r = await meshinject("config", "dump", "-d", join(dir, "a-file", "cfg"));
    assert.equal(r.code, 1);
    assert.equal(r.stderr, `meshinject: -d ${join(dir, "a-file", "cfg")}: ${join(dir, "a-file")} is not a folder\n`);
  });
});
