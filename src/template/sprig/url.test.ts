// biome-ignore-all lint/style/noNonNullAssertion: tests index results and tables whose entries the assertions are about; a missing one fails the test either way
// Expectations captured from the Go oracle (Go 1.19 + Sprig 3.2.3).
import assert from "node:assert/strict";
import { test } from "node:test";
import { GoError, newMap, sortedKeys } from "../../go/value.js";
import { urlFuncs } from "./url.js";

function parsed(url: string): Record<string, unknown> {
  const m = urlFuncs.urlParse!.fn(url) as Record<string, unknown>;
  return Object.fromEntries(sortedKeys(m).map((k) => [k, m[k]]));
}

const dict = (o: Record<string, unknown>) => Object.assign(newMap(), o);
const join = (o: Record<string, unknown>) => urlFuncs.urlJoin!.fn(dict(o));
const goError = (message: string) => (e: unknown) => e instanceof GoError && e.message === message;

test("urlParse returns Sprig's eight keys", () => {
  assert.deepEqual(parsed("https://user:pa%3Ass@[::1]:8443/a%20b/c?x=1&y=%20#frag%21"), {
    fragment: "frag!",
    host: "[::1]:8443",
    hostname: "::1",
    opaque: "",
    path: "/a b/c",
    query: "x=1&y=%20",
    scheme: "https",
    userinfo: "user:pa%3Ass",
  });
  assert.deepEqual(parsed("mailto:joe@x.com"), {
    fragment: "",
    host: "",
    hostname: "",
    opaque: "joe@x.com",
    path: "",
    query: "",
    scheme: "mailto",
    userinfo: "",
  });
  assert.equal(parsed("https://host:8080/p").host, "host:8080");
  assert.equal(parsed("http://u:p%20@h/p%20q?x=1#f%20g").userinfo, "u:p%20");
});

test("urlParse errors carry Go's messages", () => {
  assert.throws(
    () => urlFuncs.urlParse!.fn("%zz"),
    goError('unable to parse url: parse "%zz": invalid URL escape "%zz"'),
  );
  assert.throws(
    () => urlFuncs.urlParse!.fn("http://[::1"),
    goError(`unable to parse url: parse "http://[::1": missing ']' in host`),
  );
  assert.throws(
    () => urlFuncs.urlParse!.fn("http://h\n/"),
    goError('unable to parse url: parse "http://h\\n/": net/url: invalid control character in URL'),
  );
});

test("urlJoin", () => {
  assert.equal(join({ scheme: "https", host: "h", path: "/p", query: "a=1" }), "https://h/p?a=1");
  assert.equal(
    join({ scheme: "https", host: "h:1", path: "/a b", query: "q=1", fragment: "f g", userinfo: "u:p@x" }),
    "https://u:p%40x@h:1/a%20b?q=1#f%20g",
  );
  assert.equal(join({ userinfo: "a:b@c" }), "//a:b%40c@");
  assert.equal(join({}), "");
});

test("urlJoin rejects non-string entries and bad userinfo as Sprig does", () => {
  assert.throws(() => join({ host: 1n }), goError("unable to parse host key, must be of type string, but int found"));
  assert.throws(
    () => join({ path: 1.5 }),
    goError("unable to parse path key, must be of type string, but float64 found"),
  );
  assert.throws(
    () => join({ userinfo: "a b" }),
    goError('unable to parse userinfo in dict: parse "proto://a b@host": net/url: invalid userinfo'),
  );
});
