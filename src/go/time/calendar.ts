/** Calendar arithmetic (proleptic Gregorian, any year) and the English names Go's time package prints. */

export function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

export function civilFromDays(z: number): [number, number, number] {
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

export const isLeap = (y: number): boolean => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
export const DAYS_IN = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
export const daysIn = (m: number, y: number): number => (m === 2 && isLeap(y) ? 29 : DAYS_IN[m - 1]);

export const LONG_MONTHS = [
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
export const LONG_DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
export const SHORT_MONTHS = LONG_MONTHS.map((m) => m.slice(0, 3));
export const SHORT_DAYS = LONG_DAYS.map((d) => d.slice(0, 3));

export function pad(n: number, width: number, fill = "0"): string {
  const s = String(Math.abs(n)).padStart(width, fill);
  return n < 0 ? `-${s}` : s;
}

/** The broken-down fields of a time in its location. */
export interface Fields {
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
