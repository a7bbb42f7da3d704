/**
 * A bound on what one function call may allocate. Go has none: `until 1e15` or `repeat 1e12 "x"`
 * makes a Go process hang or run out of memory. A JavaScript engine dies of that outright (an
 * uncatchable fatal error), which in a webhook would take every request down with it, so the
 * size-driven functions check this limit first and fail the template with an ordinary error.
 */

import { GoError } from "../../go/value.js";

/** Elements (list functions) or characters (string functions) one call may produce. */
export const MAX_RESULT_SIZE = 10_000_000;

/** Throws when a call would produce more than {@link MAX_RESULT_SIZE} elements or characters. */
export function checkResultSize(fn: string, size: bigint | number): void {
  if (BigInt(size) > BigInt(MAX_RESULT_SIZE)) {
    throw new GoError(`${fn}: result of ${size} elements or characters exceeds the limit of ${MAX_RESULT_SIZE}`);
  }
}
