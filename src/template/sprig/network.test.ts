// biome-ignore-all lint/style/noNonNullAssertion: tests index results and tables whose entries the assertions are about; a missing one fails the test either way
import assert from "node:assert/strict";
import { test } from "node:test";
import { GoError } from "../value.js";
import { networkFuncs } from "./network.js";

const lookup = (name: string) => networkFuncs.getHostByName!.fn(name);

test("resolves IP literals and localhost synchronously", () => {
  assert.equal(lookup("127.0.0.2"), "127.0.0.2");
  assert.equal(lookup("::1"), "::1");
  assert.match(lookup("localhost") as string, /^(127\.0\.0\.1|::1)$/);
});

test("an unresolvable name fails as Sprig's empty-list rand.Intn panic does", () => {
  for (const name of ["", "nonexistent.invalid"]) {
    assert.throws(
      () => lookup(name),
      (e: unknown) => e instanceof GoError && e.message === "invalid argument to Intn",
    );
  }
});
