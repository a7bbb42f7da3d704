/**
 * Sprig's path functions: `base`, `dir`, `clean`, `ext`, `isAbs` come from Go's `path` package
 * (always slash-separated) and the `os*` variants from `path/filepath`. On Linux, where the
 * injector runs, filepath uses '/' and has no volume names, so both families share one
 * implementation. Every delimiter is ASCII, so working on UTF-16 indices gives Go's byte results.
 */
import { type GoFunc, goFunc } from "../../go/value.js";

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

const str = (f: (p: string) => string) => (p: unknown) => f(p as string);
const bool = (f: (p: string) => boolean) => (p: unknown) => f(p as string);

export const pathsFuncs: Record<string, GoFunc> = {
  base: goFunc("base", ["string"], str(basePath), "string"),
  dir: goFunc("dir", ["string"], str(dirPath), "string"),
  clean: goFunc("clean", ["string"], str(cleanPath), "string"),
  ext: goFunc("ext", ["string"], str(extPath), "string"),
  isAbs: goFunc("isAbs", ["string"], bool(isAbsPath), "bool"),
  osBase: goFunc("osBase", ["string"], str(basePath), "string"),
  osClean: goFunc("osClean", ["string"], str(cleanPath), "string"),
  osDir: goFunc("osDir", ["string"], str(dirPath), "string"),
  osExt: goFunc("osExt", ["string"], str(extPath), "string"),
  osIsAbs: goFunc("osIsAbs", ["string"], bool(isAbsPath), "bool"),
};
