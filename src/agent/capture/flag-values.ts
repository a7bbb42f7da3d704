/**
 * The value types of istio-iptables' flags, read as pflag reads them (Go's strconv and
 * time.ParseDuration): a flag's text, or an environment variable's, converted for its setting.
 */

import { parseBool, parseUint64 } from "../../go/strconv.js";
import { durationString, parseDuration } from "../../go/time/duration.js";

export type FlagKind = "string" | "bool" | "uint16" | "duration";

/** A converted value: text, a boolean, a port number, or a duration in Go's canonical form. */
export type FlagValue = string | number | boolean;

/** Go's strconv.ParseUint(text, 0, 16) (prefixes, `_` separators): the value, or why the text is not one. */
function parseUint16(text: string): number | string {
  const parsed = parseUint64(text, 0);
  if (parsed.err === "syntax") return "invalid syntax";
  if (parsed.err !== undefined || parsed.value > 65535n) return "value out of range";
  return Number(parsed.value);
}

/** A flag's text converted for a setting of `kind`, or why it cannot be (Go's error text). */
export function parseFlagValue(kind: FlagKind, text: string): { value: FlagValue } | { error: string } {
  switch (kind) {
    case "string":
      return { value: text };
    case "bool": {
      const value = parseBool(text);
      return value === undefined
        ? { error: `strconv.ParseBool: parsing ${JSON.stringify(text)}: invalid syntax` }
        : { value };
    }
    case "uint16": {
      const value = parseUint16(text);
      return typeof value === "string"
        ? { error: `strconv.ParseUint: parsing ${JSON.stringify(text)}: ${value}` }
        : { value };
    }
    case "duration":
      try {
        return { value: durationString(parseDuration(text)) };
      } catch (e) {
        return { error: (e as Error).message };
      }
  }
}

/**
 * What pflag leaves in a setting of `kind` when `text` does not parse: its Set methods store the
 * parser's result before returning the error, which Istio's BindEnv and AdditionalEnv ignore. So
 * a bad boolean is false, a bad duration 0s, and a uint16 0, or 65535 when out of range (Go's
 * strconv.ParseUint gives the maximum with a range error).
 */
export function valueDespiteError(kind: FlagKind, text: string): FlagValue {
  switch (kind) {
    case "string":
      return text;
    case "bool":
      return false;
    case "uint16":
      return parseUint16(text) === "value out of range" ? 65535 : 0;
    case "duration":
      return "0s";
  }
}
