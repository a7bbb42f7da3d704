// Watching files for new content: polling, fs events, once per content, read errors.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { watchFiles } from "./file-watch.js";

test("onChange fires once per new content, with every file's text; read errors are reported", async () => {
  const dir = mkdtempSync(join(tmpdir(), "meshinject-watch-"));
  const a = join(dir, "a");
  const b = join(dir, "b");
  writeFileSync(a, "1");
  writeFileSync(b, "x");
  const changes: string[] = [];
  const errors: string[] = [];
  const watch = watchFiles(
    new Map([
      [a, "1"],
      [b, "x"],
    ]),
    {
      intervalMs: 60_000,
      onChange: (texts) => {
        changes.push(`${texts.get(a)}${texts.get(b)}`);
      },
      onError: (e, path) => errors.push(`${path}: ${e.message}`),
    },
  );
  try {
    await watch.check();
    assert.deepEqual(changes, [], "unchanged files: nothing");
    writeFileSync(a, "2");
    await watch.check();
    await watch.check();
    assert.deepEqual(changes, ["2x"], "reported once");
    writeFileSync(b, "y");
    // Without check(): the folder's fs events trigger it.
    const end = Date.now() + 3000;
    while (changes.length < 2 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(changes, ["2x", "2y"]);
    unlinkSync(a);
    await watch.check();
    await watch.check();
    assert.equal(errors.length, 1, "a missing file is reported once");
    assert.match(errors[0] ?? "", /ENOENT/);
    assert.deepEqual(changes, ["2x", "2y"], "an unreadable file is not a change");
  } finally {
    watch.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("polling alone notices a change", async () => {
  const dir = mkdtempSync(join(tmpdir(), "meshinject-watch-"));
  const a = join(dir, "a");
  writeFileSync(a, "1");
  let seen = "";
  const watch = watchFiles(new Map([[a, "1"]]), {
    intervalMs: 20,
    debounceMs: 60_000, // fs events effectively ignored
    onChange: (texts) => {
      seen = texts.get(a) ?? "";
    },
    onError: () => {},
  });
  try {
    writeFileSync(a, "2");
    const end = Date.now() + 3000;
    while (seen !== "2" && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    assert.equal(seen, "2");
  } finally {
    watch.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("an optional file may appear and go: both are changes, its absence is no error", async () => {
  const dir = mkdtempSync(join(tmpdir(), "meshinject-watch-"));
  const a = join(dir, "a");
  const opt = join(dir, "mesh");
  writeFileSync(a, "1");
  const changes: string[] = [];
  const errors: string[] = [];
  const watch = watchFiles(new Map([[a, "1"]]), {
    intervalMs: 60_000,
    optional: [opt],
    onChange: (texts) => {
      changes.push(JSON.stringify([...texts].map(([p, t]) => [p === a ? "a" : "mesh", t])));
    },
    onError: (e, path) => errors.push(`${path}: ${e.message}`),
  });
  try {
    await watch.check();
    assert.deepEqual(changes, [], "absent at the start and still absent: nothing");
    writeFileSync(opt, "m");
    await watch.check();
    assert.deepEqual(changes, ['[["a","1"],["mesh","m"]]'], "appearing is a change");
    unlinkSync(opt);
    await watch.check();
    assert.deepEqual(changes.at(-1), '[["a","1"]]', "going away is a change too");
    // A ConfigMap key removed: the kubelet may leave its symlink dangling for a moment.
    symlinkSync(join("..data", "mesh"), opt);
    await watch.check();
    assert.equal(changes.length, 2, "a dangling symlink is just as absent");
    assert.deepEqual(errors, []);
  } finally {
    watch.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
