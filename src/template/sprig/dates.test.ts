// Expectations captured from the Go oracle (Go 1.19, Sprig 3.2.3, local zone pinned to UTC).
import assert from "node:assert/strict";
import { test } from "node:test";
import { durationString, parseDuration } from "../../go/time/duration.js";
import type { GoTime } from "../../go/time/time.js";
import type { GoFunc } from "../../go/value.js";
import { TypedNumber } from "../../go/value.js";
import type { Execution } from "../execution.js";
import { templateHost } from "../host.js";
import { datesFuncs as T } from "./dates.js";

/** Calls a func as the executor does, with a fresh execution on the default host where it takes one. */
function call(f: GoFunc | undefined, ...args: unknown[]): unknown {
  const run = { host: templateHost(), includeDepth: 0 } as unknown as Execution;
  return f?.execution ? f.fn(run, ...args) : f?.fn(...args);
}

const day = () => call(T.toDate, "2006-01-02", "2020-05-06") as GoTime;
const method = (t: GoTime, name: string, ...args: unknown[]) => t.goMethod(name)?.fn(...args);

test("formatting layouts", () => {
  assert.equal(
    call(T.date, "2006-01-02 15:04:05.000 Mon Jan MST -0700 Z07:00 pm 3 03 _2 002 .999999999 ,000", 1600000000n),
    "2020-09-13 12:26:40.000 Sun Sep UTC +0000 Z pm 12 12 13 257  ,000",
  );
  assert.equal(call(T.date, "2006", new TypedNumber("int64", 1600000000n)), "2020");
  assert.equal(call(T.htmlDate, 0n), "1970-01-01");
  assert.equal(call(T.htmlDateInZone, 0n, "Asia/Tokyo"), "1970-01-01");
  assert.equal(call(T.dateInZone, "2006-01-02 15:04 MST", 1600000000n, "America/New_York"), "2020-09-13 08:26 EDT");
  assert.equal(
    call(T.dateInZone, "2006-01-02 15:04 MST -0700", 1600000000n, "Asia/Kolkata"),
    "2020-09-13 17:56 IST +0530",
  );
  assert.equal(call(T.dateInZone, "2006-01-02 15:04 MST", 1600000000n, "Bogus/Zone"), "2020-09-13 12:26 UTC");
});

test("toDate / mustToDate parse with Go's rules and messages", () => {
  assert.equal(String(day()), "2020-05-06 00:00:00 +0000 UTC");
  assert.equal(
    String(call(T.toDate, "2006-01-02T15:04:05Z07:00", "2020-05-06T10:20:30.123+02:00")),
    "2020-05-06 10:20:30.123 +0200 +0200",
  );
  assert.equal(String(call(T.toDate, "2006-01-02 MST", "2020-05-06 PDT")), "2020-05-06 00:00:00 +0000 PDT");
  assert.equal(String(call(T.toDate, "2006-01-02 -0700", "2020-05-06 +0530")), "2020-05-06 00:00:00 +0530 +0530");
  assert.equal(String(call(T.toDate, "2006-01-02", "2020-13-06")), "0001-01-01 00:00:00 +0000 UTC");
  assert.throws(() => call(T.mustToDate, "2006-01-02", "2020-13-06"), {
    message: 'parsing time "2020-13-06": month out of range',
  });
  assert.throws(() => call(T.mustToDate, "2006-01-02", "x"), {
    message: 'parsing time "x" as "2006-01-02": cannot parse "x" as "2006"',
  });
  assert.throws(() => call(T.mustToDate, "2006-01-02", "2020-01-02x"), {
    message: 'parsing time "2020-01-02x": extra text: "x"',
  });
});

test("time.Time methods", () => {
  const t = day();
  assert.equal(t.goTypeName(), "time.Time");
  assert.equal((method(t, "Unix") as TypedNumber).value, 1588723200n);
  assert.equal(method(t, "Year"), 2020n);
  assert.equal(String((method(t, "Month") as GoTime).goMethod("String")?.fn()), "May");
  assert.equal(String((method(t, "Weekday") as GoTime).goMethod("String")?.fn()), "Wednesday");
  assert.equal(method(t, "Format", "Jan 2"), "May 6");
  assert.equal(call(T.unixEpoch, t), "1588723200");
  assert.equal(t.marshalJSON(), '"2020-05-06T00:00:00Z"');
  assert.match(String(call(T.now)), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? \+0000 UTC m=\+\d+\.\d{9}$/);
});

test("dateModify and durations", () => {
  assert.equal(String(call(T.dateModify, "1h30m", day())), "2020-05-06 01:30:00 +0000 UTC");
  assert.equal(String(call(T.dateModify, "bad", day())), "2020-05-06 00:00:00 +0000 UTC");
  assert.equal(String(call(T.mustDateModify, "-1.5h", day())), "2020-05-05 22:30:00 +0000 UTC");
  assert.throws(() => call(T.mustDateModify, "bad", day()), { message: 'time: invalid duration "bad"' });
  assert.equal(call(T.duration, 3723n), "0s"); // an int, not int64: Sprig ignores it
  assert.equal(call(T.duration, "3723"), "1h2m3s");
  // ParseInt(s, 10, 64) with the error ignored: 0 for what does not parse, a sign allowed, no base prefix.
  assert.equal(call(T.duration, "x"), "0s");
  assert.equal(call(T.duration, "0x10"), "0s");
  assert.equal(call(T.duration, "+60"), "1m0s");
  assert.equal(call(T.duration, "-60"), "-1m0s");
  assert.equal(call(T.duration, new TypedNumber("int64", 90061n)), "25h1m1s");
  assert.equal(call(T.durationRound, "2h30m"), "2h");
  assert.equal(call(T.durationRound, "-49h"), "2d");
  assert.equal(call(T.durationRound, new TypedNumber("int64", 1500000000n)), "1s");
  assert.equal(call(T.durationRound, 3600n), "0s");
  assert.equal(call(T.durationRound, "8760h1s"), "1y");
  assert.equal(durationString(1_500_000n), "1.5ms");
  assert.equal(durationString(-90_000_000_000n), "-1m30s");
  assert.equal(parseDuration("1h2m3.5s"), 3_723_500_000_000n);
  assert.throws(() => parseDuration("1x"), { message: 'time: unknown unit "x" in duration "1x"' });
  assert.throws(() => parseDuration("1"), { message: 'time: missing unit in duration "1"' });
});
