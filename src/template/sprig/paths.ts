/**
 * Sprig's path functions: `base`, `dir`, `clean`, `ext`, `isAbs` come from Go's `path` package
 * (always slash-separated) and the `os*` variants from `path/filepath`. On Linux, where the
 * injector runs, filepath uses '/' and has no volume names, so both families share one
 * implementation (../../go/path.ts).
 */
import { basePath, cleanPath, dirPath, extPath, isAbsPath } from "../../go/path.js";
import { type GoFunc, goFunc } from "../../go/value.js";

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
