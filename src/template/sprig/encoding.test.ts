// biome-ignore-all lint/style/noNonNullAssertion: tests index results and tables whose entries the assertions are about; a missing one fails the test either way
// Expectations captured from the Go oracle (Go 1.19 + Sprig 3.2.3).
import assert from "node:assert/strict";
import { test } from "node:test";
import { encodingFuncs } from "./encoding.js";

const call = (name: string, ...args: unknown[]) => encodingFuncs[name]!.fn(...args);

test("declares Go signatures", () => {
  for (const name of ["b64enc", "b64dec", "b32enc", "b32dec", "sha1sum", "sha256sum", "adler32sum"]) {
    assert.deepEqual(encodingFuncs[name]!.params, ["string"], name);
  }
});

test("base64 encodes UTF-8 bytes", () => {
  assert.equal(call("b64enc", "hello"), "aGVsbG8=");
  assert.equal(call("b64enc", "héllo"), "aMOpbGxv");
  assert.equal(call("b64enc", ""), "");
});

test("base64 decoding follows Go's strict padding and newline rules", () => {
  assert.equal(call("b64dec", "aGVsbG8="), "hello");
  assert.equal(call("b64dec", "QUJD\nRA=="), "ABCD");
  assert.equal(call("b64dec", "QUJD\r\nRA=="), "ABCD");
  assert.equal(call("b64dec", ""), "");
});

test("base64 decode errors come back as the result text", () => {
  assert.equal(call("b64dec", "!!"), "illegal base64 data at input byte 0");
  assert.equal(call("b64dec", "QQ="), "illegal base64 data at input byte 3");
  assert.equal(call("b64dec", "QUJDRA==x"), "illegal base64 data at input byte 8");
  assert.equal(call("b64dec", "notbase64!"), "illegal base64 data at input byte 9");
});

test("base32", () => {
  assert.equal(call("b32enc", "coffee"), "MNXWMZTFMU======");
  assert.equal(call("b32enc", "héllo"), "NDB2S3DMN4======");
  assert.equal(call("b32dec", "NBSWY3DP"), "hello");
  assert.equal(call("b32dec", "MZXW6==="), "foo");
  assert.equal(call("b32dec", "MFRGG"), "illegal base32 data at input byte 0");
  assert.equal(call("b32dec", "M======="), "illegal base32 data at input byte 1");
});

test("checksums", () => {
  assert.equal(call("sha1sum", "abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  assert.equal(call("sha1sum", "héllo"), "35b5ea45c5e41f78b46a937cc74d41dfea920890");
  assert.equal(call("sha256sum", "abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  assert.equal(call("sha256sum", ""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  assert.equal(call("adler32sum", "abc"), "38600999");
  assert.equal(call("adler32sum", "héllo wörld"), "773523054");
});
