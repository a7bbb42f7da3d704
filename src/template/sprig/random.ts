/**
 * Uniform random integers from the Web Crypto random source (`globalThis.crypto`, present in
 * Node 20 and every browser), so the Sprig string functions need no Node module.
 */

/** A uniform integer in [0, max), max ≤ 2^32, by rejection sampling (no modulo bias). */
export function randomInt(max: number): number {
  if (!Number.isInteger(max) || max <= 0 || max > 2 ** 32) throw new RangeError(`randomInt: bad bound ${max}`);
  const limit = 2 ** 32 - (2 ** 32 % max);
  const word = new Uint32Array(1);
  for (;;) {
    const [value = 0] = globalThis.crypto.getRandomValues(word);
    if (value < limit) return value % max;
  }
}
