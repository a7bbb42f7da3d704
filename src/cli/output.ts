/** Writing results without ever leaving a half-written file behind, and saying why a write failed. */
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * A write that failed, with a message for the user that names no temporary file: "is a directory",
 * "folder out does not exist", "permission denied". Callers prefix the flag and path
 * (`-o PATH: MESSAGE`). `code` is Node's error code (EISDIR, ENOENT, ...).
 */
export class WriteError extends Error {
  override name = "WriteError";
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

/** The user's words for a file-system error; `folder` is the folder the file goes in. */
export function fsErrorText(e: unknown, folder: string): string {
  const err = e as NodeJS.ErrnoException;
  switch (err?.code) {
    case "EISDIR":
      return "is a directory";
    case "ENOENT":
      return `folder ${folder} does not exist`;
    case "ENOTDIR":
      return `${folder} is not a folder`;
    case "EACCES":
    case "EPERM":
      return `permission denied (cannot write in ${folder})`;
    case "EROFS":
      return "read-only file system";
    case "ENOSPC":
      return "no space left on device";
    case "EDQUOT":
      return "disk quota exceeded";
    default: {
      // Node's messages are "CODE: description, syscall 'path' -> 'path'": keep the words, not the paths.
      const message = err instanceof Error ? err.message : String(e);
      return message.split(", ")[0] ?? message;
    }
  }
}

/**
 * Writes `text` to `path` atomically: the bytes go to a temporary file in the same directory, which
 * is then renamed over `path` (a rename within one file system replaces the target in one step).
 * `mode` applies from the start (a private key is never readable by others). Throws WriteError.
 */
export async function writeFileAtomic(path: string, text: string, mode = 0o666): Promise<void> {
  const folder = dirname(path);
  if ((await stat(path).catch(() => undefined))?.isDirectory()) throw new WriteError("is a directory", "EISDIR");
  const temp = join(folder, `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  try {
    await writeFile(temp, text, { flag: "wx", mode });
    await rename(temp, path);
  } catch (e) {
    await rm(temp, { force: true });
    throw new WriteError(fsErrorText(e, folder), (e as NodeJS.ErrnoException).code);
  }
}

/** Creates `dir` (and its parents) if missing. Throws WriteError naming the part that is in the way. */
export async function ensureFolder(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EEXIST" || code === "ENOTDIR") {
      // A file sits where the folder (or one of its parents) should be.
      let part = dir;
      while (!existsSync(part) && dirname(part) !== part) part = dirname(part);
      throw new WriteError(part === dir ? "is not a folder" : `${part} is not a folder`, code);
    }
    throw new WriteError(fsErrorText(e, dirname(dir)), code);
  }
}

/** The paths among `paths` that exist already. */
export function existing(paths: readonly string[]): string[] {
  return paths.filter((p) => existsSync(p));
}
