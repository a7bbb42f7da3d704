import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decodeAppProbers, encodeAppProbers, goJSONString } from "./probes-json.js";

describe("prober JSON decoding", () => {
  it("matches field names case-insensitively, drops unknown fields, fails on type mismatches", () => {
    const decoded = decodeAppProbers('{"/p":{"HTTPGET":{"port":"http","extra":1},"timeoutSeconds":0}}');
    assert.deepEqual(decoded, { "/p": { httpGet: { port: "http" } } });
    assert.equal(encodeAppProbers(decoded ?? {}), '{"/p":{"httpGet":{"port":"http"}}}');
    assert.equal(decodeAppProbers('{"/p":{"timeoutSeconds":"1"}}'), undefined);
    assert.deepEqual(decodeAppProbers('{"/p":null}'), { "/p": null });
  });
});

describe("goJSONString", () => {
  it("escapes like encoding/json", () => {
    assert.equal(goJSONString("<a&b>\u2028\ud800"), '"\\u003ca\\u0026b\\u003e\\u2028\ufffd"');
  });
});
