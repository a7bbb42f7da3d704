// `meshinject kube-inject` with an injection template that calls getHostByName: the name is
// resolved (asynchronously, through the process's resolver) and the input injected with it. Only
// "localhost" (from /etc/hosts: no DNS traffic).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { HOST_NAME_POD, hostNameConfig } from "../inject/testing/host-name-config.js";

const root = fileURLToPath(new URL("../../", import.meta.url));

const CONFIG = hostNameConfig("localhost");

test("kube-inject resolves the names an injection template asks getHostByName for", async () => {
  const dir = await mkdtemp(join(tmpdir(), "meshinject-host-names-"));
  try {
    await writeFile(join(dir, "config.yaml"), CONFIG);
    const r = spawnSync(
      process.execPath,
      ["--import", "tsx", "src/cli/main.ts", "kube-inject", "-f", "-", "--injectConfigFile", join(dir, "config.yaml")],
      { cwd: root, encoding: "utf8", input: HOST_NAME_POD },
    );
    assert.equal(r.stderr, "");
    assert.equal(r.status, 0);
    assert.match(r.stdout, /- name: HOST_ADDR\n\s+value: (127\.0\.0\.1|::1)\n/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
