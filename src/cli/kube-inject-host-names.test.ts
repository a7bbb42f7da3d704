// `meshinject kube-inject` with an injection template that calls getHostByName: the name is
// resolved (asynchronously, through the process's resolver) and the input injected with it. Only
// "localhost" (from /etc/hosts: no DNS traffic).
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { meshinjectWithInput } from "../../test/meshinject-cli.js";
import { HOST_NAME_POD, hostNameConfig } from "../inject/testing/host-name-config.js";

const CONFIG = hostNameConfig("localhost");

test("kube-inject resolves the names an injection template asks getHostByName for", async () => {
  const dir = await mkdtemp(join(tmpdir(), "meshinject-host-names-"));
  try {
    await writeFile(join(dir, "config.yaml"), CONFIG);
    const r = await meshinjectWithInput(
      HOST_NAME_POD,
      "kube-inject",
      "-f",
      "-",
      "--injectConfigFile",
      join(dir, "config.yaml"),
    );
    assert.equal(r.stderr, "");
    assert.equal(r.code, 0);
    assert.match(r.stdout, /- name: HOST_ADDR\n\s+value: (127\.0\.0\.1|::1)\n/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
