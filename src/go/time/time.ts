/**
 * Go's time.Time: unix seconds + nanoseconds + a location, with the methods templates can call.
 * The local zone is UTC unless the TZ environment variable names another zone.
 */
import { GO_OBJECT, GoError, type GoFunc, type GoObject, type GoValue, goFunc, TypedNumber } from "../value.js";
import { civilFromDays, daysFromCivil, type Fields, LONG_DAYS, LONG_MONTHS } from "./calendar.js";
import { formatTime } from "./layout.js";
import { type Location, local, lookup, UTC } from "./location.js";

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

  /** time.Now() for a wall-clock reading in nanoseconds since the epoch (the caller's clock). */
  static now(ns: bigint): GoTime {
    return new GoTime(
      Number(ns / 1_000_000_000n),
      Number(ns % 1_000_000_000n),
      local(),
      // Since the process started, as Go's runtime clock; `performance` is read only here (under
      // Node its first use loads perf_hooks, which a template that never calls `now` need not pay).
      performance.now() / 1000,
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
export class GoEnum implements GoObject {
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
