/**
 * Go's time.Location: UTC, the local zone (from TZ), fixed zones and IANA zones. IANA zones use Intl for
 * offsets; their abbreviations come from Intl as well, which mostly agrees with Go's tzdata ("EDT",
 * "IST") and otherwise falls back to tzdata's numeric style ("-03").
 */
import { daysFromCivil, pad } from "./calendar.js";

export interface Location {
  name: string;
  /** Fixed offset and abbreviation; absent for IANA zones, which consult Intl. */
  fixed?: { offset: number; abbr: string };
  iana?: string;
}

export const UTC: Location = { name: "UTC", fixed: { offset: 0, abbr: "UTC" } };

function makeLocal(): Location {
  // The process's zone when there is a process (Node); a browser page has none, and runs in UTC here.
  const tz = typeof process === "undefined" ? undefined : process.env.TZ;
  if (tz === undefined || tz === "" || tz === "UTC") return { name: "Local", fixed: { offset: 0, abbr: "UTC" } };
  const loc = loadLocation(tz.startsWith(":") ? tz.slice(1) : tz);
  return loc ? { ...loc, name: "Local" } : { name: "Local", fixed: { offset: 0, abbr: "UTC" } };
}

let localCache: Location | undefined;
export const local = (): Location => (localCache ??= makeLocal());

export const fixedZone = (abbr: string, offset: number): Location => ({ name: abbr, fixed: { offset, abbr } });

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

export function lookup(loc: Location, unix: number): { offset: number; abbr: string } {
  if (loc.fixed) return loc.fixed;
  const zone = loc.iana as string;
  const offset = ianaOffset(zone, unix);
  return { offset, abbr: ianaAbbr(zone, unix, offset) };
}
