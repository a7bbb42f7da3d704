/** Go's time layouts ("2006-01-02 15:04:05 MST"): splitting a layout into chunks, and formatting. */
import { type Fields, LONG_DAYS, LONG_MONTHS, pad, SHORT_DAYS, SHORT_MONTHS } from "./calendar.js";

/** A layout element: literal text or a std code with its spelling in the layout. */
export type Chunk = { lit: string } | { std: string; text: string; digits?: number; sep?: string };

export const NUM_TZ = ["-070000", "-07:00:00", "-0700", "-07:00", "-07"];
export const ISO_TZ = ["Z070000", "Z07:00:00", "Z0700", "Z07:00", "Z07"];

/** Go's nextStdChunk, applied over the whole layout. */
export function chunks(layout: string): Chunk[] {
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

export function formatZone(std: string, offset: number): string {
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

export function formatTime(t: Fields, layout: string): string {
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
