/**
 * Sprig's date functions (date.go) over Go's time.Time (src/go/time).
 */

import { parseInt64 } from "../../go/strconv.js";
import { durationString, parseDuration, roundToSecond } from "../../go/time/duration.js";
import { loadLocation, local, UTC } from "../../go/time/location.js";
import { parseTime } from "../../go/time/parse.js";
import { GoTime } from "../../go/time/time.js";
import { GoError, type GoFunc, type GoValue, goFunc, TypedNumber } from "../../go/value.js";
import { type Execution, executionFunc } from "../execution.js";

/** The instant Sprig's date functions take: a time.Time or unix seconds as int/int64/int32, else now. */
function toTime(run: Execution, date: GoValue, intTypes: string[]): GoTime {
  if (date instanceof GoTime) return date;
  if (typeof date === "bigint") return new GoTime(Number(date), 0);
  if (date instanceof TypedNumber && intTypes.includes(date.type)) return new GoTime(Number(date.value), 0);
  return GoTime.now(run.host.now());
}

function dateInZone(run: Execution, layout: GoValue, date: GoValue, zone: GoValue): string {
  const t = toTime(run, date, ["int64", "int32"]);
  return t.in(loadLocation(zone as string) ?? UTC).format(layout as string);
}

function durationRound(run: Execution, v: GoValue): string {
  let d = 0n;
  if (typeof v === "string") {
    try {
      d = parseDuration(v);
    } catch {
      d = 0n;
    }
  } else if (v instanceof TypedNumber && v.type === "int64") d = v.value as bigint;
  else if (v instanceof GoTime) d = run.host.now() - v.unixNano();
  let u = BigInt.asUintN(64, d);
  if (d < 0n) u = BigInt.asUintN(64, -u);
  const hour = 3_600_000_000_000n;
  const steps: Array<[bigint, string]> = [
    [hour * 24n * 365n, "y"],
    [hour * 24n * 30n, "mo"],
    [hour * 24n, "d"],
    [hour, "h"],
    [60_000_000_000n, "m"],
    [1_000_000_000n, "s"],
  ];
  for (const [unit, suffix] of steps) if (u > unit) return `${u / unit}${suffix}`;
  return "0s";
}

function duration(v: GoValue): string {
  let n = 0n;
  // ParseInt(v, 10, 64): 0 on a syntax error, clamped when out of range (Sprig ignores the error).
  if (typeof v === "string") n = parseInt64(v, 10).value;
  else if (v instanceof TypedNumber && v.type === "int64") n = v.value as bigint;
  return durationString(n * 1_000_000_000n);
}

function dateModify(fmt: GoValue, date: GoValue): GoValue {
  return (date as GoTime).add(parseDuration(fmt as string));
}

const TIME = "time.Time";

export const datesFuncs: Record<string, GoFunc> = {
  ago: executionFunc(
    "ago",
    ["any"],
    (run, date) => {
      const t = toTime(run, date, ["int64"]);
      return durationString(roundToSecond(run.host.now() - t.unixNano()));
    },
    "string",
  ),
  date: executionFunc("date", ["string", "any"], (run, fmt, date) => dateInZone(run, fmt, date, "Local"), "string"),
  date_in_zone: executionFunc("date_in_zone", ["string", "any", "string"], dateInZone, "string"),
  dateInZone: executionFunc("dateInZone", ["string", "any", "string"], dateInZone, "string"),
  date_modify: goFunc(
    "date_modify",
    ["string", TIME],
    (fmt, date) => {
      try {
        return dateModify(fmt, date);
      } catch {
        return date;
      }
    },
    TIME,
  ),
  dateModify: goFunc(
    "dateModify",
    ["string", TIME],
    (fmt, date) => {
      try {
        return dateModify(fmt, date);
      } catch {
        return date;
      }
    },
    TIME,
  ),
  must_date_modify: goFunc("must_date_modify", ["string", TIME], dateModify, `(${TIME}, error)`),
  mustDateModify: goFunc("mustDateModify", ["string", TIME], dateModify, `(${TIME}, error)`),
  duration: goFunc("duration", ["any"], duration, "string"),
  durationRound: executionFunc("durationRound", ["any"], durationRound, "string"),
  htmlDate: executionFunc("htmlDate", ["any"], (run, date) => dateInZone(run, "2006-01-02", date, "Local"), "string"),
  htmlDateInZone: executionFunc(
    "htmlDateInZone",
    ["any", "string"],
    (run, date, zone) => dateInZone(run, "2006-01-02", date, zone),
    "string",
  ),
  mustToDate: goFunc(
    "mustToDate",
    ["string", "string"],
    (fmt, str) => parseTime(fmt as string, str as string, local()),
    `(${TIME}, error)`,
  ),
  now: executionFunc("now", [], (run) => GoTime.now(run.host.now()), TIME),
  toDate: goFunc(
    "toDate",
    ["string", "string"],
    (fmt, str) => {
      try {
        return parseTime(fmt as string, str as string, local());
      } catch (e) {
        if (e instanceof GoError) return GoTime.zero();
        throw e;
      }
    },
    TIME,
  ),
  unixEpoch: goFunc("unixEpoch", [TIME], (date) => String((date as GoTime).unix), "string"),
};
