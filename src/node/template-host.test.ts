import assert from "node:assert/strict";
import { test } from "node:test";
import { parse, sprigFuncs } from "../template/index.js";
import { processTemplateHost } from "./template-host.js";

// Only loopback names: /etc/hosts and IP literals, no DNS traffic.
test("the process host reads the run's environment and resolves localhost and IP literals asynchronously", async () => {
  const t = parse(
    "t",
    '{{ env "MESHINJECT_HOST_TEST" }} {{ getHostByName "127.0.0.2" }} {{ getHostByName "localhost" }}',
    { funcs: sprigFuncs },
  );
  const host = processTemplateHost({ MESHINJECT_HOST_TEST: "v" });
  assert.match(await t.executeAsync(null, host), /^v 127\.0\.0\.2 (127\.0\.0\.1|::1)$/);
});
