/** Go's time.ParseInLocation, with Go's error messages. */
import { GoError } from "../value.js";
import { DAYS_IN, daysIn, isLeap, LONG_DAYS, LONG_MONTHS, SHORT_DAYS, SHORT_MONTHS } from "./calendar.js";
import { chunks } from "./layout.js";
import { fixedZone, type Location, lookup, UTC } from "./location.js";
import { timeQuote } from "./quote.js";
import { GoTime } from "./time.js";

class ParseError extends GoError {
  constructor(layout: string, value: string, layoutElem: string, valueElem: string, message = "") {
    super(
      message === ""
        ? `parsing time ${timeQuote(value)} as ${timeQuote(layout)}: cannot parse ${timeQuote(valueElem)} as ${timeQuote(layoutElem)}`
        : `parsing time ${timeQuote(value)}${message}`,
    );
  }
}

const isDigitAt = (s: string, i: number): boolean => i < s.length && s[i] >= "0" && s[i] <= "9";

/** time's atoi: optional sign, decimal digits, nothing else. */
function tAtoi(s: string): number | undefined {
  return /^[+-]?\d+$/.test(s) ? Number(s) : undefined;
}

function getnum(s: string, fixed: boolean): [number, string] | undefined {
  if (!isDigitAt(s, 0)) return undefined;
  if (!isDigitAt(s, 1)) return fixed ? undefined : [Number(s[0]), s.slice(1)];
  return [Number(s.slice(0, 2)), s.slice(2)];
}

function getnum3(s: string, fixed: boolean): [number, string] | undefined {
  let n = 0;
  let i = 0;
  for (; i < 3 && isDigitAt(s, i); i++) n = n * 10 + Number(s[i]);
  if (i === 0 || (fixed && i !== 3)) return undefined;
  return [n, s.slice(i)];
}

/** Case-insensitive prefix match against a table of names; returns the index. */
function lookupName(tab: string[], s: string): [number, string] | undefined {
  for (let i = 0; i < tab.length; i++) {
    if (s.length >= tab[i].length && s.slice(0, tab[i].length).toLowerCase() === tab[i].toLowerCase()) {
      return [i, s.slice(tab[i].length)];
    }
  }
  return undefined;
}

/** time's skip: match a literal prefix, where a space matches any run of spaces. */
function skip(value: string, prefix: string): string | undefined {
  while (prefix.length > 0) {
    if (prefix[0] === " ") {
      if (value.length > 0 && value[0] !== " ") return undefined;
      prefix = prefix.replace(/^ +/, "");
      value = value.replace(/^ +/, "");
      continue;
    }
    if (value.length === 0 || value[0] !== prefix[0]) return undefined;
    prefix = prefix.slice(1);
    value = value.slice(1);
  }
  return value;
}

function parseSignedOffset(v: string): number {
  if (v[0] !== "-" && v[0] !== "+") return 0;
  const m = /^\d+/.exec(v.slice(1));
  if (!m || Number(m[0]) > 23) return 0;
  return 1 + m[0].length;
}

/** time's parseTimeZone: how much of value looks like a zone abbreviation. */
function parseTimeZone(v: string): number {
  if (v.length < 3) return 0;
  if (v.startsWith("ChST") || v.startsWith("MeST")) return 4;
  if (v.startsWith("GMT")) return v.length === 3 ? 3 : 3 + parseSignedOffset(v.slice(3));
  if (v[0] === "+" || v[0] === "-") return parseSignedOffset(v);
  let n = 0;
  while (n < 6 && n < v.length && v[n] >= "A" && v[n] <= "Z") n++;
  if (n === 3) return 3;
  if (n === 4 && (v[3] === "T" || v.startsWith("WITA"))) return 4;
  if (n === 5 && v[4] === "T") return 5;
  return 0;
}

function parseNanos(value: string, nbytes: number): number | undefined {
  if (value[0] !== "." && value[0] !== ",") return undefined;
  const n = Math.min(nbytes, 10);
  const ns = tAtoi(value.slice(1, n));
  if (ns === undefined) return undefined;
  return ns * 10 ** (10 - n);
}

/** time.ParseInLocation. Throws ParseError (a GoError) with Go's messages. */
export function parseTime(layout: string, value: string, loc: Location): GoTime {
  const avalue = value;
  let year = 0;
  let month = -1;
  let day = -1;
  let yday = -1;
  let hour = 0;
  let min = 0;
  let sec = 0;
  let nsec = 0;
  let z: Location | undefined;
  let zoneOffset = -1;
  let zoneName = "";
  let amSet = false;
  let pmSet = false;
  const list = chunks(layout);
  for (let ci = 0; ci <= list.length; ci++) {
    const ch = list[ci];
    if (ch === undefined) {
      if (value.length !== 0) throw new ParseError(layout, avalue, "", value, `: extra text: ${timeQuote(value)}`);
      break;
    }
    if ("lit" in ch) {
      const rest = skip(value, ch.lit);
      if (rest === undefined) throw new ParseError(layout, avalue, ch.lit, value);
      value = rest;
      continue;
    }
    let bad = false;
    let rangeErr = "";
    const num = (r: [number, string] | undefined): number => {
      if (!r) {
        bad = true;
        return 0;
      }
      value = r[1];
      return r[0];
    };
    switch (ch.std) {
      case "06": {
        const y = value.length >= 2 ? tAtoi(value.slice(0, 2)) : undefined;
        if (y === undefined) bad = true;
        else {
          year = y >= 69 ? y + 1900 : y + 2000;
          value = value.slice(2);
        }
        break;
      }
      case "2006": {
        const y = value.length >= 4 && isDigitAt(value, 0) ? tAtoi(value.slice(0, 4)) : undefined;
        if (y === undefined) bad = true;
        else {
          year = y;
          value = value.slice(4);
        }
        break;
      }
      case "Jan":
      case "January":
        month = num(lookupName(ch.std === "Jan" ? SHORT_MONTHS : LONG_MONTHS, value)) + 1;
        break;
      case "1":
      case "01":
        month = num(getnum(value, ch.std === "01"));
        if (!bad && (month <= 0 || month > 12)) rangeErr = "month";
        break;
      case "Mon":
      case "Monday":
        num(lookupName(ch.std === "Mon" ? SHORT_DAYS : LONG_DAYS, value));
        break;
      case "2":
      case "_2":
      case "02":
        if (ch.std === "_2" && value[0] === " ") value = value.slice(1);
        day = num(getnum(value, ch.std === "02"));
        break;
      case "__2":
      case "002":
        for (let k = 0; k < 2; k++) if (ch.std === "__2" && value[0] === " ") value = value.slice(1);
        yday = num(getnum3(value, ch.std === "002"));
        break;
      case "15":
        hour = num(getnum(value, false));
        if (hour < 0 || hour >= 24) rangeErr = "hour";
        break;
      case "3":
      case "03":
        hour = num(getnum(value, ch.std === "03"));
        if (hour < 0 || hour > 12) rangeErr = "hour";
        break;
      case "4":
      case "04":
        min = num(getnum(value, ch.std === "04"));
        if (min < 0 || min >= 60) rangeErr = "minute";
        break;
      case "5":
      case "05": {
        sec = num(getnum(value, ch.std === "05"));
        if (sec < 0 || sec >= 60) {
          rangeErr = "second";
          break;
        }
        // A fractional second in the input that the layout does not spell out.
        const next = list[ci + 1];
        const layoutHasFrac = next !== undefined && "std" in next && (next.std === ".0" || next.std === ".9");
        if (
          !bad &&
          value.length >= 2 &&
          (value[0] === "." || value[0] === ",") &&
          isDigitAt(value, 1) &&
          !layoutHasFrac
        ) {
          let n = 2;
          while (isDigitAt(value, n)) n++;
          const ns = parseNanos(value, n);
          if (ns === undefined) bad = true;
          else nsec = ns;
          value = value.slice(n);
        }
        break;
      }
      case "PM":
      case "pm": {
        if (value.length < 2) {
          bad = true;
          break;
        }
        // Go consumes the two characters before judging them, so errors show the rest.
        const p = value.slice(0, 2);
        value = value.slice(2);
        const [am, pm] = ch.std === "PM" ? ["AM", "PM"] : ["am", "pm"];
        if (p === pm) pmSet = true;
        else if (p === am) amSet = true;
        else bad = true;
        break;
      }
      case "MST": {
        if (value.startsWith("UTC")) {
          z = UTC;
          value = value.slice(3);
          break;
        }
        const n = parseTimeZone(value);
        if (n === 0) bad = true;
        else {
          zoneName = value.slice(0, n);
          value = value.slice(n);
        }
        break;
      }
      case ".0": {
        const ndigit = 1 + (ch.digits ?? 0);
        const ns = value.length >= ndigit ? parseNanos(value, ndigit) : undefined;
        if (ns === undefined) bad = true;
        else {
          nsec = ns;
          value = value.slice(ndigit);
        }
        break;
      }
      case ".9": {
        if (value.length < 2 || (value[0] !== "." && value[0] !== ",") || !isDigitAt(value, 1)) break;
        let k = 0;
        while (k < 9 && isDigitAt(value, k + 1)) k++;
        const ns = parseNanos(value, 1 + k);
        if (ns === undefined) bad = true;
        else nsec = ns;
        value = value.slice(1 + k);
        break;
      }
      default: {
        // Numeric zones: -0700, Z07:00 and friends.
        if (ch.std.startsWith("Z") && ["Z0700", "Z07", "Z07:00"].includes(ch.std) && value[0] === "Z") {
          value = value.slice(1);
          z = UTC;
          break;
        }
        const body = ch.std.slice(1);
        const m = zonePattern(body).exec(value);
        if (!m || (m[1] !== "+" && m[1] !== "-")) {
          bad = true;
          break;
        }
        value = value.slice(m[0].length);
        zoneOffset = (Number(m[2]) * 60 + Number(m[3] ?? 0)) * 60 + Number(m[4] ?? 0);
        if (m[1] === "-") zoneOffset = -zoneOffset;
      }
    }
    if (rangeErr !== "") throw new ParseError(layout, avalue, ch.text, value, `: ${rangeErr} out of range`);
    if (bad) throw new ParseError(layout, avalue, ch.text, value);
  }
  if (pmSet && hour < 12) hour += 12;
  else if (amSet && hour === 12) hour = 0;

  if (yday >= 0) {
    let d = 0;
    let m = 0;
    if (isLeap(year)) {
      if (yday === 60) {
        m = 2;
        d = 29;
      } else if (yday > 60) yday--;
    }
    if (yday < 1 || yday > 365) throw new ParseError(layout, avalue, "", value, ": day-of-year out of range");
    if (m === 0) {
      m = 1;
      let before = 0;
      while (before + DAYS_IN[m - 1] < yday) before += DAYS_IN[m++ - 1];
      d = yday - before;
    }
    if (month >= 0 && month !== m)
      throw new ParseError(layout, avalue, "", value, ": day-of-year does not match month");
    month = m;
    if (day >= 0 && day !== d) throw new ParseError(layout, avalue, "", value, ": day-of-year does not match day");
    day = d;
  } else {
    if (month < 0) month = 1;
    if (day < 0) day = 1;
  }
  if (day < 1 || day > daysIn(month, year)) throw new ParseError(layout, avalue, "", value, ": day out of range");

  if (z) return GoTime.date(year, month, day, hour, min, sec, nsec, z);
  if (zoneOffset !== -1) {
    const t = GoTime.date(year, month, day, hour, min, sec, nsec, UTC).add(BigInt(-zoneOffset) * 1_000_000_000n);
    const l = lookup(loc, t.unix);
    if (l.offset === zoneOffset && (zoneName === "" || l.abbr === zoneName)) return t.in(loc);
    return t.in(fixedZone(zoneName, zoneOffset));
  }
  if (zoneName !== "") {
    const t = GoTime.date(year, month, day, hour, min, sec, nsec, UTC);
    const l = lookup(loc, t.unix);
    if (l.abbr === zoneName) return t.add(BigInt(-l.offset) * 1_000_000_000n).in(loc);
    const offset = zoneName.length > 3 && zoneName.startsWith("GMT") ? Number(zoneName.slice(3)) * 3600 : 0;
    return t.in(fixedZone(zoneName, offset));
  }
  return GoTime.date(year, month, day, hour, min, sec, nsec, loc);
}

/** The input shape of each numeric zone layout: sign, hours, and minutes/seconds as the layout asks. */
function zonePattern(body: string): RegExp {
  switch (body) {
    case "07:00":
      return /^(.)(\d\d):(\d\d)/;
    case "07":
      return /^(.)(\d\d)/;
    case "07:00:00":
      return /^(.)(\d\d):(\d\d):(\d\d)/;
    case "070000":
      return /^(.)(\d\d)(\d\d)(\d\d)/;
    default:
      return /^(.)(\d\d)(\d\d)/;
  }
}
