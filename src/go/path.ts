/**
 * Go's `path` package (always slash-separated): Clean, Base, Dir, Ext, IsAbs. On Linux, where the
 * injector and the agent run, `path/filepath` behaves the same (it uses '/' and has no volume
 * names). Every delimiter is ASCII, so working on UTF-16 indices gives Go's byte results.
 */

/** Go's path.Clean: the shortest lexically equivalent path. */
export function cleanPath(p: string): string {
  if (p === "") return ".";
  const rooted = p.startsWith("/");
  const out: string[] = [];
  for (const seg of p.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      // ".." removes the previous element; above the root it vanishes, and in a relative path
      // with nothing left to remove it is kept.
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!rooted) out.push("..");
      continue;
    }
    out.push(seg);
  }
  const joined = out.join("/");
  if (rooted) return `/${joined}`;
  return joined === "" ? "." : joined;
}

/** Go's path.Base: the last element, ignoring trailing slashes. */
export function basePath(p: string): string {
  if (p === "") return ".";
  let s = p.replace(/\/+$/, "");
  const i = s.lastIndexOf("/");
  if (i >= 0) s = s.slice(i + 1);
  return s === "" ? "/" : s;
}

/** Go's path.Dir: everything up to the last slash, cleaned. */
export function dirPath(p: string): string {
  return cleanPath(p.slice(0, p.lastIndexOf("/") + 1));
}

/** Go's path.Ext: the suffix from the last dot of the last element, or "". */
export function extPath(p: string): string {
  for (let i = p.length - 1; i >= 0 && p[i] !== "/"; i--) {
    if (p[i] === ".") return p.slice(i);
  }
  return "";
}

export function isAbsPath(p: string): boolean {
  return p.startsWith("/");
}

/** Go's path.Join: the non-empty elements joined by slashes and cleaned; "" when all are empty. */
export function joinPath(...elems: string[]): string {
  const parts = elems.filter((e) => e !== "");
  return parts.length === 0 ? "" : cleanPath(parts.join("/"));
}
