// biome-ignore-all lint/style/noNonNullAssertion: tests index results and tables whose entries the assertions are about; a missing one fails the test either way
// Deterministic expectations captured from the Go oracle (Go 1.19 + Sprig 3.2.3); random outputs are
// checked for shape and by round trip.
import assert from "node:assert/strict";
import { createPrivateKey, createPublicKey, sign, verify } from "node:crypto";
import { test } from "node:test";
import bcrypt from "bcryptjs";
import { GoError } from "../../go/value.js";
import { cryptoFuncs } from "./crypto.js";

const call = (name: string, ...args: unknown[]) => cryptoFuncs[name]!.fn(...args);

test("declares Go signatures", () => {
  assert.deepEqual(cryptoFuncs.derivePassword!.params, ["uint32", "string", "string", "string", "string"]);
  assert.deepEqual(cryptoFuncs.randBytes!.params, ["int"]);
  assert.deepEqual(cryptoFuncs.encryptAES!.params, ["string", "string"]);
  assert.deepEqual(cryptoFuncs.uuidv4!.params, []);
});

test("derivePassword matches Sprig's Master Password outputs", () => {
  assert.equal(call("derivePassword", 1n, "long", "password", "user", "example.com"), "ZedaFaxcZaso9*");
  assert.equal(call("derivePassword", 2n, "long", "password", "user", "example.com"), "Fovi2@JifpTupx");
  assert.equal(call("derivePassword", 1n, "medium", "password", "user", "example.com"), "ZedJuz8$");
  assert.equal(call("derivePassword", 0n, "pin", "p", "u", "s"), "9426");
  assert.equal(call("derivePassword", 3n, "short", "", "", ""), "Nop4");
  assert.equal(call("derivePassword", 4294967295n, "basic", "pässwörd", "üser", "sité.com"), "rs33DNy3");
  assert.equal(call("derivePassword", 7n, "maximum", "correct horse", "üser", "site"), "T0=B4#$GvZ$e((OhFYJr");
  assert.equal(call("derivePassword", 1n, "nope", "a", "b", "c"), "cannot find password template nope");
});

test("bcrypt produces Go-style $2a$10$ hashes that verify", () => {
  const hash = call("bcrypt", "hello") as string;
  assert.match(hash, /^\$2a\$10\$.{53}$/);
  assert.ok(bcrypt.compareSync("hello", hash));
  // A hash made by Go verifies with the same library.
  assert.ok(bcrypt.compareSync("hello", "$2a$10$9mUzM4hTN0WLNNiCyjkNI.HK7cs85TkLFvs9nczO6h3WjCDqOyvCq"));
});

test("htpasswd", () => {
  const line = call("htpasswd", "bob", "pw") as string;
  assert.ok(line.startsWith("bob:$2a$10$"));
  assert.ok(bcrypt.compareSync("pw", line.slice(4)));
  assert.equal(call("htpasswd", "a:b", "c"), "invalid username: a:b");
});

test("decryptAES reads ciphertexts produced by Go", () => {
  assert.equal(
    call(
      "decryptAES",
      "0123456789abcdef0123456789abcdefXYZ",
      "31EWYc1+kljoD8FvnO6jCPnQ/dwrAOdH1NPdkvnL0+xyW14RxYYpXKgXTyOXJZ0BXxfI/QgEM/JxQ5eYdyJBrg==",
    ),
    "héllo wörld, a longer text of 33+",
  );
  assert.equal(call("decryptAES", "", "Q0DbrU38iLj8E9YTE4NhOJe4lLF/OOziCeKq1jy9Bzg="), "x");
});

test("encryptAES round-trips and prepends a random IV", () => {
  const a = call("encryptAES", "secretkey", "plaintext") as string;
  const b = call("encryptAES", "secretkey", "plaintext") as string;
  assert.notEqual(a, b);
  assert.equal(Buffer.from(a, "base64").length, 32);
  assert.equal(call("decryptAES", "secretkey", a), "plaintext");
  assert.equal(call("encryptAES", "k", ""), "");
  assert.equal(call("decryptAES", "k", ""), "");
});

test("decryptAES reports Go's errors and runtime panics", () => {
  const fails = (input: string, message: string) =>
    assert.throws(
      () => call("decryptAES", "k", input),
      (e: unknown) => e instanceof GoError && e.message === message,
    );
  fails("notbase64!", "illegal base64 data at input byte 9");
  fails("QUJD", "runtime error: slice bounds out of range [:16] with capacity 3");
  fails("QUJDREVGR0hJSktMTU5PUA==", "runtime error: index out of range [-1]");
  fails("QUJDREVGR0hJSktMTU5PUEE=", "crypto/cipher: input not full blocks");
  fails("QUJDREVGR0hJSktMTU5PUEFCQ0RFRkdISUpLTE1OT1A=", "runtime error: slice bounds out of range [:-138]");
});

test("randBytes and uuidv4", () => {
  assert.equal(Buffer.from(call("randBytes", 12n) as string, "base64").length, 12);
  assert.equal(call("randBytes", 0n), "");
  assert.throws(() => call("randBytes", -1n), /makeslice: len out of range/);
  assert.match(call("uuidv4") as string, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});

test("genPrivateKey writes the PEM block types Sprig writes", () => {
  const cases: [string, string, string][] = [
    ["ecdsa", "EC PRIVATE KEY", "ec"],
    ["ed25519", "PRIVATE KEY", "ed25519"],
    ["dsa", "DSA PRIVATE KEY", "dsa"],
  ];
  for (const [type, block, nodeType] of cases) {
    const pem = call("genPrivateKey", type) as string;
    assert.ok(pem.startsWith(`-----BEGIN ${block}-----\n`), type);
    const key = createPrivateKey(pem);
    assert.equal(key.asymmetricKeyType, nodeType);
    // The public half written in the PEM (Y for DSA) matches the private half.
    const sig = sign(type === "ed25519" ? null : "sha256", Buffer.from("m"), key);
    assert.ok(verify(type === "ed25519" ? null : "sha256", Buffer.from("m"), createPublicKey(key), sig), type);
  }
  assert.equal(call("genPrivateKey", "foo"), "Unknown type foo");
});

test("genPrivateKey rsa is a 4096-bit PKCS#1 key", () => {
  const pem = call("genPrivateKey", "rsa") as string;
  assert.ok(pem.startsWith("-----BEGIN RSA PRIVATE KEY-----\n"));
  assert.equal(createPrivateKey(pem).asymmetricKeyDetails?.modulusLength, 4096);
});
