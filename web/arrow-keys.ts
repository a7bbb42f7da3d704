/**
 * Where the arrow keys move in a row of `count` items (a tablist, a picture's parts): the next or
 * previous one (ArrowRight/ArrowDown, ArrowLeft/ArrowUp), the first (Home) or the last (End); round
 * the ends when `wrap`, else stopping there. Undefined for any other key.
 */
export function arrowTarget(key: string, at: number, count: number, wrap: boolean): number | undefined {
  const to =
    key === "ArrowRight" || key === "ArrowDown"
      ? at + 1
      : key === "ArrowLeft" || key === "ArrowUp"
        ? at - 1
        : key === "Home"
          ? 0
          : key === "End"
            ? count - 1
            : undefined;
  if (to === undefined || count === 0) return undefined;
  return wrap ? (to + count) % count : Math.min(Math.max(to, 0), count - 1);
}
