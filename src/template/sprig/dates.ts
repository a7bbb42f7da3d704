/**
 * Sprig's date functions (date.go) and the Go time.Time they work on.
 *
 * `GoTime` stands for time.Time: unix seconds + nanoseconds + a location. Formatting and parsing
 * follow Go's layout language ("2006-01-02 15:04:05 MST"); durations print as Go's Duration.String
 * (`1h2m3s`). The local zone is UTC unless the TZ environment variable names another zone. IANA
 * zones use Intl for offsets; their abbreviations come from Intl as well, which mostly agrees with
 * Go's tzdata ("EDT", "IST") and otherwise falls back to tzdata's numeric style ("-03").
 */
import { GO_OBJECT, GoError, type GoFunc, type GoObject, type GoValue, goFunc, TypedNumber } from "../../go/value.js";

// ---- locations ---------------------------------------------------------------------------------

interface Location {
  name: string;
  /** Fixed offset and abbreviation; absent for IANA zones, which consult Intl. */
  fixed?: { offset: number; abbr: string };
  iana?: string;
}

export const UTC: Location = { name: "UTC", fixed: { offset: 0, abbr: "UTC" } };

function makeLocal(): Location {
  const tz = process.env.TZ;
  if (tz === undefined || tz === "" || tz === "UTC") return { name: "Local", fixed: { offset: 0, abbr: "UTC" } };
  const loc = loadLocation(tz.startsWith(":") ? tz.slice(1) : tz);
  return loc ? { ...loc, name: "Local" } : { name: "Local", fixed: { offset: 0, abbr: "UTC" } };
}

let localCache: Location | undefined;
const local = (): Location => (localCache ??= makeLocal());

const fixedZone = (abbr: string, offset: number): Location => ({ name: abbr, fixed: { offset, abbr } });

/** time.LoadLocation: "" and "UTC" are UTC, "Local" the local zone, else an IANA name (undefined if unknown). */
export function loadLocation(name: string): Location | undefined {
  if (name === "" || name === "UTC") return UTC;
  if (name === "Local") return local();
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
  } catch {
    return undefined;
  }
  return { name, iana: name };
}

const partsFormatters = new Map<string, Intl.DateTimeFormat>();

/** Offset east of UTC, in seconds, of an IANA zone at a unix time. */
function ianaOffset(zone: string, unix: number): number {
  let f = partsFormatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      era: "short",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    partsFormatters.set(zone, f);
  }
  const ms = Math.max(-8.64e15, Math.min(8.64e15, unix * 1000));
  const p: Record<string, string> = {};
  for (const part of f.formatToParts(ms)) p[part.type] = part.value;
  let year = Number(p.year);
  if (p.era === "BC" || p.era === "B") year = 1 - year;
  const localSec =
    daysFromCivil(year, Number(p.month), Number(p.day)) * 86400 +
    Number(p.hour) * 3600 +
    Number(p.minute) * 60 +
    Number(p.second);
  return localSec - Math.floor(ms / 1000);
}

const ABBR_LOCALES = ["en-US", "en-GB", "en-IN", "en-AU", "en-NZ", "ja-JP", "ko-KR"];
const abbrFormatters = new Map<string, Intl.DateTimeFormat>();

/** The zone abbreviation as tzdata would give it, as far as Intl can tell. */
function ianaAbbr(zone: string, unix: number, offset: number): string {
  const ms = Math.max(-8.64e15, Math.min(8.64e15, unix * 1000));
  for (const locale of ABBR_LOCALES) {
    const key = `${locale}|${zone}`;
    let f = abbrFormatters.get(key);
    if (!f) {
      f = new Intl.DateTimeFormat(locale, { timeZone: zone, timeZoneName: "short" });
      abbrFormatters.set(key, f);
    }
    const name = f.formatToParts(ms).find((x) => x.type === "timeZoneName")?.value ?? "";
    if (/^[A-Z]{3,5}$/.test(name) && (offset === 0 || (name !== "GMT" && name !== "UTC"))) return name;
  }
  // tzdata names zones without an abbreviation by their offset: +04, -03, +0530.
  const sign = offset < 0 ? "-" : "+";
  const m = Math.floor(Math.abs(offset) / 60);
  return `${sign}${pad(Math.floor(m / 60), 2)}${m % 60 ? pad(m % 60, 2) : ""}`;
}

function lookup(loc: Location, unix: number): { offset: number; abbr: string } {
  if (loc.fixed) return loc.fixed;
  const zone = loc.iana as string;
  const offset = ianaOffset(zone, unix);
  return { offset, abbr: ianaAbbr(zone, unix, offset) };
}

// ---- calendar arithmetic (proleptic Gregorian, any year) ---------------------------------------

function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(z: number): [number, number, number] {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [era * 400 + yoe + (m <= 2 ? 1 : 0), m, d];
}

const isLeap = (y: number): boolean => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
const DAYS_IN = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysIn = (m: number, y: number): number => (m === 2 && isLeap(y) ? 29 : DAYS_IN[m - 1]);

const LONG_MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const LONG_DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const SHORT_MONTHS = LONG_MONTHS.map((m) => m.slice(0, 3));
const SHORT_DAYS = LONG_DAYS.map((d) => d.slice(0, 3));

function pad(n: number, width: number, fill = "0"): string {
  const s = String(Math.abs(n)).padStart(width, fill);
  return n < 0 ? `-${s}` : s;
}

// ---- GoTime ------------------------------------------------------------------------------------

/** Nanoseconds of monotonic clock at module load; time.Now readings print `m=+…` relative to it. */
const MONO_BASE = performance.now();

interface Fields {
  year: number;
  month: number;
  day: number;
  hour: number;
  min: number;
  sec: number;
  nsec: number;
  yday: number;
  wday: number;
  offset: number;
  abbr: string;
}

/** A Go time.Time. Immutable; methods return new values as Go's value receiver does. */
export class GoTime implements GoObject {
  readonly [GO_OBJECT] = true as const;

  constructor(
    /** Unix seconds (integral). */
    readonly unix: number,
    /** Nanoseconds within the second, 0..999999999. */
    readonly nsec: number,
    readonly loc: Location = local(),
    /** Monotonic reading in seconds since process start (only from time.Now). */
    readonly mono?: number,
  ) {}

  /** time.Now(). */
  static now(): GoTime {
    const ns = BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
    return new GoTime(
      Number(ns / 1_000_000_000n),
      Number(ns % 1_000_000_000n),
      local(),
      (performance.now() - MONO_BASE) / 1000,
    );
  }

  /** The zero Time (January 1, year 1, 00:00:00 UTC). */
  static zero(): GoTime {
    return new GoTime(-62135596800, 0, UTC);
  }

  /** time.Date: normalises out-of-range fields and resolves the zone offset for a local wall time. */
  static date(
    year: number,
    month: number,
    day: number,
    hour: number,
    min: number,
    sec: number,
    nsec: number,
    loc: Location,
  ): GoTime {
    const mm = month - 1;
    const y = year + Math.floor(mm / 12);
    const m = (((mm % 12) + 12) % 12) + 1;
    sec += Math.floor(nsec / 1e9);
    nsec = ((nsec % 1e9) + 1e9) % 1e9;
    const wall = daysFromCivil(y, m, 1) * 86400 + (day - 1) * 86400 + hour * 3600 + min * 60 + sec;
    let offset = lookup(loc, wall).offset;
    if (offset !== 0) {
      const second = lookup(loc, wall - offset).offset;
      if (second !== offset) offset = second;
    }
    return new GoTime(wall - offset, nsec, loc);
  }

  goTypeName(): string {
    return "time.Time";
  }

  goField(): GoValue | undefined {
    return undefined;
  }

  fields(): Fields {
    const { offset, abbr } = lookup(this.loc, this.unix);
    const local = this.unix + offset;
    const days = Math.floor(local / 86400);
    let rem = local - days * 86400;
    const [year, month, day] = civilFromDays(days);
    const hour = Math.floor(rem / 3600);
    rem -= hour * 3600;
    const min = Math.floor(rem / 60);
    return {
      year,
      month,
      day,
      hour,
      min,
      sec: rem - min * 60,
      nsec: this.nsec,
      yday: days - daysFromCivil(year, 1, 1) + 1,
      wday: (((days + 4) % 7) + 7) % 7,
      offset,
      abbr,
    };
  }

  format(layout: string): string {
    return formatTime(this.fields(), layout);
  }

  /** Time.String: with a monotonic reading, Go appends ` m=±s.nnnnnnnnn`. */
  toString(): string {
    const s = this.format("2006-01-02 15:04:05.999999999 -0700 MST");
    if (this.mono === undefined) return s;
    return `${s} m=${this.mono < 0 ? "-" : "+"}${Math.abs(this.mono).toFixed(9)}`;
  }

  in(loc: Location): GoTime {
    return new GoTime(this.unix, this.nsec, loc);
  }

  /** t.Add(d) for a duration in nanoseconds (bigint). Keeps the monotonic reading, as Go does. */
  add(d: bigint): GoTime {
    const total = BigInt(this.unix) * 1_000_000_000n + BigInt(this.nsec) + d;
    const sec = total / 1_000_000_000n - (total % 1_000_000_000n < 0n ? 1n : 0n);
    const mono = this.mono === undefined ? undefined : this.mono + Number(d) / 1e9;
    return new GoTime(Number(sec), Number(total - sec * 1_000_000_000n), this.loc, mono);
  }

  /** Nanoseconds since the Unix epoch. */
  unixNano(): bigint {
    return BigInt(this.unix) * 1_000_000_000n + BigInt(this.nsec);
  }

  goMethod(name: string): GoFunc | undefined {
    const f = () => this.fields();
    const m: Record<string, () => GoFunc> = {
      String: () => goFunc("String", [], () => this.toString(), "string"),
      Format: () => goFunc("Format", ["string"], (layout) => this.format(layout as string), "string"),
      Unix: () => goFunc("Unix", [], () => new TypedNumber("int64", BigInt(this.unix)), "int64"),
      UnixMilli: () => goFunc("UnixMilli", [], () => new TypedNumber("int64", this.unixNano() / 1_000_000n), "int64"),
      UnixMicro: () => goFunc("UnixMicro", [], () => new TypedNumber("int64", this.unixNano() / 1000n), "int64"),
      UnixNano: () =>
        goFunc("UnixNano", [], () => new TypedNumber("int64", BigInt.asIntN(64, this.unixNano())), "int64"),
      UTC: () => goFunc("UTC", [], () => this.in(UTC), "time.Time"),
      Local: () => goFunc("Local", [], () => this.in(local()), "time.Time"),
      Year: () => goFunc("Year", [], () => BigInt(f().year), "int"),
      Month: () =>
        goFunc("Month", [], () => new GoEnum("time.Month", f().month, LONG_MONTHS[f().month - 1]), "time.Month"),
      Day: () => goFunc("Day", [], () => BigInt(f().day), "int"),
      Hour: () => goFunc("Hour", [], () => BigInt(f().hour), "int"),
      Minute: () => goFunc("Minute", [], () => BigInt(f().min), "int"),
      Second: () => goFunc("Second", [], () => BigInt(f().sec), "int"),
      Nanosecond: () => goFunc("Nanosecond", [], () => BigInt(this.nsec), "int"),
      YearDay: () => goFunc("YearDay", [], () => BigInt(f().yday), "int"),
      Weekday: () =>
        goFunc("Weekday", [], () => new GoEnum("time.Weekday", f().wday, LONG_DAYS[f().wday]), "time.Weekday"),
      IsZero: () => goFunc("IsZero", [], () => this.unix === -62135596800 && this.nsec === 0, "bool"),
      Equal: () => goFunc("Equal", ["time.Time"], (u) => this.unixNano() === (u as GoTime).unixNano(), "bool"),
      Before: () => goFunc("Before", ["time.Time"], (u) => this.unixNano() < (u as GoTime).unixNano(), "bool"),
      After: () => goFunc("After", ["time.Time"], (u) => this.unixNano() > (u as GoTime).unixNano(), "bool"),
      AddDate: () =>
        goFunc(
          "AddDate",
          ["int", "int", "int"],
          (y, mo, d) => {
            const t = f();
            return GoTime.date(
              t.year + Number(y),
              t.month + Number(mo),
              t.day + Number(d),
              t.hour,
              t.min,
              t.sec,
              t.nsec,
              this.loc,
            );
          },
          "time.Time",
        ),
      MarshalJSON: () => goFunc("MarshalJSON", [], () => this.marshalJSON(), "([]uint8, error)"),
    };
    return m[name]?.();
  }

  /** Time.MarshalJSON: RFC 3339 with nanoseconds, quoted. */
  marshalJSON(): string {
    const y = this.fields().year;
    if (y < 0 || y > 9999) throw new GoError("Time.MarshalJSON: year outside of range [0,9999]");
    return `"${this.format("2006-01-02T15:04:05.999999999Z07:00")}"`;
  }
}

/** A named integer type with a String method, such as time.Month and time.Weekday. */
class GoEnum implements GoObject {
  readonly [GO_OBJECT] = true as const;
  constructor(
    private readonly type: string,
    readonly value: number,
    private readonly name: string,
  ) {}
  goTypeName(): string {
    return this.type;
  }
  goField(): GoValue | undefined {
    return undefined;
  }
  goMethod(name: string): GoFunc | undefined {
    return name === "String" ? goFunc("String", [], () => this.name, "string") : undefined;
  }
}

// ---- layouts -----------------------------------------------------------------------------------

/** A layout element: literal text or a std code with its spelling in the layout. */
type Chunk = { lit: string } | { std: string; text: string; digits?: number; sep?: string };

const NUM_TZ = ["-070000", "-07:00:00", "-0700", "-07:00", "-07"];
const ISO_TZ = ["Z070000", "Z07:00:00", "Z0700", "Z07:00", "Z07"];

/** Go's nextStdChunk, applied over the whole layout. */
function chunks(layout: string): Chunk[] {
  const out: Chunk[] = [];
  let lit = "";
  const emit = (std: string, text: string, extra: Partial<{ digits: number; sep: string }> = {}) => {
    if (lit) out.push({ lit });
    lit = "";
    out.push({ std, text, ...extra });
  };
  let i = 0;
  const at = (s: string) => layout.startsWith(s, i);
  const lowerNext = (k: number) => /^[a-z]/.test(layout[i + k] ?? "");
  while (i < layout.length) {
    const c = layout[i];
    let hit: string | undefined;
    switch (c) {
      case "J":
        if (at("January")) hit = "January";
        else if (at("Jan") && !lowerNext(3)) hit = "Jan";
        break;
      case "M":
        if (at("Monday")) hit = "Monday";
        else if (at("Mon") && !lowerNext(3)) hit = "Mon";
        else if (at("MST")) hit = "MST";
        break;
      case "0":
        if (/^0[1-6]/.test(layout.slice(i, i + 2))) hit = layout.slice(i, i + 2);
        else if (at("002")) hit = "002";
        break;
      case "1":
        hit = at("15") ? "15" : "1";
        break;
      case "2":
        hit = at("2006") ? "2006" : "2";
        break;
      case "_":
        if (at("_2")) {
          if (at("_2006")) {
            lit += "_";
            i++;
            hit = "2006";
          } else hit = "_2";
        } else if (at("__2")) hit = "__2";
        break;
      case "3":
      case "4":
      case "5":
        hit = c;
        break;
      case "P":
        if (at("PM")) hit = "PM";
        break;
      case "p":
        if (at("pm")) hit = "pm";
        break;
      case "-":
        hit = NUM_TZ.find(at);
        break;
      case "Z":
        hit = ISO_TZ.find(at);
        break;
      case ".":
      case ",": {
        const d = layout[i + 1];
        if (d === "0" || d === "9") {
          let j = i + 1;
          while (j < layout.length && layout[j] === d) j++;
          if (!/[0-9]/.test(layout[j] ?? "")) {
            emit(d === "0" ? ".0" : ".9", layout.slice(i, j), { digits: j - i - 1, sep: c });
            i = j;
            continue;
          }
        }
        break;
      }
    }
    if (hit !== undefined) {
      emit(hit, hit);
      i += hit.length;
    } else {
      lit += c;
      i++;
    }
  }
  if (lit) out.push({ lit });
  return out;
}

function formatZone(std: string, offset: number): string {
  if (std.startsWith("Z") && offset === 0) return "Z";
  const zone = Math.trunc(offset / 60);
  const abs = Math.abs(offset);
  let s = (zone < 0 ? "-" : "+") + pad(Math.floor(Math.abs(zone) / 60), 2);
  const body = std.slice(1);
  if (body.startsWith("07:")) s += ":";
  if (body !== "07") s += pad(Math.abs(zone) % 60, 2);
  if (body === "070000" || body === "07:00:00") s += (body.includes(":") ? ":" : "") + pad(abs % 60, 2);
  return s;
}

function formatTime(t: Fields, layout: string): string {
  let out = "";
  for (const ch of chunks(layout)) {
    if ("lit" in ch) {
      out += ch.lit;
      continue;
    }
    const h12 = t.hour % 12 === 0 ? 12 : t.hour % 12;
    switch (ch.std) {
      case "2006":
        out += pad(t.year, 4);
        break;
      case "06":
        out += pad(Math.abs(t.year % 100), 2);
        break;
      case "January":
        out += LONG_MONTHS[t.month - 1];
        break;
      case "Jan":
        out += SHORT_MONTHS[t.month - 1];
        break;
      case "1":
        out += t.month;
        break;
      case "01":
        out += pad(t.month, 2);
        break;
      case "Monday":
        out += LONG_DAYS[t.wday];
        break;
      case "Mon":
        out += SHORT_DAYS[t.wday];
        break;
      case "2":
        out += t.day;
        break;
      case "_2":
        out += pad(t.day, 2, " ");
        break;
      case "02":
        out += pad(t.day, 2);
        break;
      case "__2":
        out += pad(t.yday, 3, " ");
        break;
      case "002":
        out += pad(t.yday, 3);
        break;
      case "15":
        out += pad(t.hour, 2);
        break;
      case "3":
        out += h12;
        break;
      case "03":
        out += pad(h12, 2);
        break;
      case "4":
        out += t.min;
        break;
      case "04":
        out += pad(t.min, 2);
        break;
      case "5":
        out += t.sec;
        break;
      case "05":
        out += pad(t.sec, 2);
        break;
      case "PM":
        out += t.hour >= 12 ? "PM" : "AM";
        break;
      case "pm":
        out += t.hour >= 12 ? "pm" : "am";
        break;
      case "MST":
        out += t.abbr !== "" ? t.abbr : formatZone("-0700", t.offset);
        break;
      case ".0":
      case ".9": {
        let digits = pad(t.nsec, 9).slice(0, ch.digits);
        if (ch.std === ".9") digits = digits.replace(/0+$/, "");
        if (digits !== "") out += (ch.sep ?? ".") + digits;
        break;
      }
      default:
        out += formatZone(ch.std, t.offset);
    }
  }
  return out;
}

// ---- parsing -----------------------------------------------------------------------------------

/** time's own quoting for error messages: only `"` and `\` are escaped; bytes outside ASCII print as \x. */
function timeQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    if (c >= 0x80 || c < 0x20) {
      for (const b of Buffer.from(ch, "utf8")) out += `\\x${b.toString(16).padStart(2, "0")}`;
    } else out += c === 0x22 || c === 0x5c ? `\\${ch}` : ch;
  }
  return `${out}"`;
}

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

// ---- durations ---------------------------------------------------------------------------------

const NS = {
  ns: 1n,
  us: 1000n,
  µs: 1000n,
  μs: 1000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
} as Record<string, bigint>;
const MAX_DUR = 1n << 63n;

/** time.ParseDuration, in nanoseconds. */
export function parseDuration(orig: string): bigint {
  const invalid = () => new GoError(`time: invalid duration ${timeQuote(orig)}`);
  let s = orig;
  let neg = false;
  if (s[0] === "-" || s[0] === "+") {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return 0n;
  if (s === "") throw invalid();
  let d = 0n;
  while (s !== "") {
    if (!(s[0] === "." || isDigitAt(s, 0))) throw invalid();
    const intPart = /^\d*/.exec(s)?.[0] ?? "";
    s = s.slice(intPart.length);
    let v = intPart === "" ? 0n : BigInt(intPart);
    if (v > MAX_DUR) throw invalid();
    let frac = "";
    if (s[0] === ".") {
      s = s.slice(1);
      frac = /^\d*/.exec(s)?.[0] ?? "";
      s = s.slice(frac.length);
      if (intPart === "" && frac === "") throw invalid();
    } else if (intPart === "") throw invalid();
    const unitText = /^[^.0-9]*/.exec(s)?.[0] ?? "";
    if (unitText === "") throw new GoError(`time: missing unit in duration ${timeQuote(orig)}`);
    s = s.slice(unitText.length);
    const unit = NS[unitText];
    if (unit === undefined)
      throw new GoError(`time: unknown unit ${timeQuote(unitText)} in duration ${timeQuote(orig)}`);
    if (v > MAX_DUR / unit) throw invalid();
    v *= unit;
    if (frac !== "") {
      // Go accumulates at most ~19 fraction digits, then scales in float64.
      const digits = frac.slice(0, 18);
      const f = Number(digits.replace(/^0+(?=\d)/, "")) * (Number(unit) / 10 ** digits.length);
      v += BigInt(Math.trunc(f));
      if (v > MAX_DUR) throw invalid();
    }
    d += v;
    if (d > MAX_DUR) throw invalid();
  }
  if (neg) return -d;
  if (d > MAX_DUR - 1n) throw invalid();
  return d;
}

/** time.Duration.String: `1h2m3.5s`, `1.5ms`, `0s`. */
export function durationString(d: bigint): string {
  d = BigInt.asIntN(64, d);
  const neg = d < 0n;
  let u = BigInt.asUintN(64, neg ? -d : d);
  if (u === 0n) return "0s";
  const frac = (v: bigint, prec: number): [string, bigint] => {
    let digits = "";
    for (let i = 0; i < prec; i++) {
      digits = String(v % 10n) + digits;
      v /= 10n;
    }
    digits = digits.replace(/0+$/, "");
    return [digits === "" ? "" : `.${digits}`, v];
  };
  let out: string;
  if (u < 1_000_000_000n) {
    const [prec, unit] = u < 1000n ? [0, "ns"] : u < 1_000_000n ? [3, "µs"] : [6, "ms"];
    const [f, whole] = frac(u, prec);
    out = `${whole}${f}${unit}`;
  } else {
    const [f, secs] = frac(u, 9);
    u = secs;
    out = `${u % 60n}${f}s`;
    u /= 60n;
    if (u > 0n) {
      out = `${u % 60n}m${out}`;
      u /= 60n;
      if (u > 0n) out = `${u}h${out}`;
    }
  }
  return neg ? `-${out}` : out;
}

/** Duration.Round(time.Second): halves round away from zero. */
function roundToSecond(d: bigint): bigint {
  const m = 1_000_000_000n;
  const r = d % m;
  if (d < 0n) {
    const nr = -r;
    return nr + nr < m ? d + nr : d - m + nr;
  }
  return r + r < m ? d - r : d + m - r;
}

// ---- the func map ------------------------------------------------------------------------------

/** The instant Sprig's date functions take: a time.Time or unix seconds as int/int64/int32, else now. */
function toTime(date: GoValue, intTypes: string[]): GoTime {
  if (date instanceof GoTime) return date;
  if (typeof date === "bigint") return new GoTime(Number(date), 0);
  if (date instanceof TypedNumber && intTypes.includes(date.type)) return new GoTime(Number(date.value), 0);
  return GoTime.now();
}

function dateInZone(layout: GoValue, date: GoValue, zone: GoValue): string {
  const t = toTime(date, ["int64", "int32"]);
  return t.in(loadLocation(zone as string) ?? UTC).format(layout as string);
}

function durationRound(v: GoValue): string {
  let d = 0n;
  if (typeof v === "string") {
    try {
      d = parseDuration(v);
    } catch {
      d = 0n;
    }
  } else if (v instanceof TypedNumber && v.type === "int64") d = v.value as bigint;
  else if (v instanceof GoTime) d = GoTime.now().unixNano() - v.unixNano();
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
  if (typeof v === "string") {
    if (/^[+-]?\d+$/.test(v)) {
      // ParseInt clamps out-of-range values (and Sprig ignores the error).
      n = BigInt(v);
      if (n > (1n << 63n) - 1n) n = (1n << 63n) - 1n;
      if (n < -(1n << 63n)) n = -(1n << 63n);
    }
  } else if (v instanceof TypedNumber && v.type === "int64") n = v.value as bigint;
  return durationString(n * 1_000_000_000n);
}

function dateModify(fmt: GoValue, date: GoValue): GoValue {
  return (date as GoTime).add(parseDuration(fmt as string));
}

const TIME = "time.Time";

export const datesFuncs: Record<string, GoFunc> = {
  ago: goFunc(
    "ago",
    ["any"],
    (date) => {
      const t = toTime(date, ["int64"]);
      return durationString(roundToSecond(GoTime.now().unixNano() - t.unixNano()));
    },
    "string",
  ),
  date: goFunc("date", ["string", "any"], (fmt, date) => dateInZone(fmt, date, "Local"), "string"),
  date_in_zone: goFunc("date_in_zone", ["string", "any", "string"], dateInZone, "string"),
  dateInZone: goFunc("dateInZone", ["string", "any", "string"], dateInZone, "string"),
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
  durationRound: goFunc("durationRound", ["any"], durationRound, "string"),
  htmlDate: goFunc("htmlDate", ["any"], (date) => dateInZone("2006-01-02", date, "Local"), "string"),
  htmlDateInZone: goFunc(
    "htmlDateInZone",
    ["any", "string"],
    (date, zone) => dateInZone("2006-01-02", date, zone),
    "string",
  ),
  mustToDate: goFunc(
    "mustToDate",
    ["string", "string"],
    (fmt, str) => parseTime(fmt as string, str as string, local()),
    `(${TIME}, error)`,
  ),
  now: goFunc("now", [], () => GoTime.now(), TIME),
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
