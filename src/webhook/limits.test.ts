// Request limits: content-type matching and the streaming body reader.
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { AbortedError, isJsonContentType, LimitError, readBody } from "./limits.js";

test("isJsonContentType: application/json with any parameters and letter case", () => {
  assert.equal(isJsonContentType("application/json"), true);
  assert.equal(isJsonContentType("application/json; charset=utf-8"), true);
  assert.equal(isJsonContentType(" Application/JSON "), true);
  for (const t of [undefined, "", "text/plain", "application/jsonx", "application/yaml", "json"]) {
    assert.equal(isJsonContentType(t), false, String(t));
  }
});

function fakeRequest(): PassThrough & IncomingMessage {
  return new PassThrough() as PassThrough & IncomingMessage;
}

test("readBody: the whole body, an empty one (400), one over the limit (413, stops reading), an abort", async () => {
  const ok = fakeRequest();
  const read = readBody(ok, { maxBodyBytes: 10 });
  ok.end(Buffer.from('{"a":1}'));
  assert.equal((await read).toString(), '{"a":1}');

  const empty = fakeRequest();
  const readEmpty = readBody(empty, { maxBodyBytes: 10 });
  empty.end();
  await assert.rejects(readEmpty, (e) => e instanceof LimitError && e.status === 400);

  const big = fakeRequest();
  const readBig = readBody(big, { maxBodyBytes: 10 });
  big.write(Buffer.alloc(6));
  big.write(Buffer.alloc(6));
  await assert.rejects(readBig, (e) => e instanceof LimitError && e.status === 413);
  assert.equal(big.listenerCount("data"), 0, "no longer reading");

  const aborted = fakeRequest();
  const readAborted = readBody(aborted, { maxBodyBytes: 10 });
  aborted.write(Buffer.alloc(2));
  aborted.destroy();
  await assert.rejects(readAborted, (e) => e instanceof AbortedError);
});
