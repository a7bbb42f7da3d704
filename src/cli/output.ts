/** Writing results without ever leaving a half-written file behind, and saying why a write failed. */
import { existsSync, rmSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";

/**
 * A write that failed, with a message for the user that names no temporary file: "is a directory",
 * "folder out does not exist", "permission denied". Callers prefix the flag and path
 * (`-o PATH: MESSAGE`). `code` is Node's error code (EISDIR, ENOENT, ...).
 */
/**
 * node:fs/promises, fetched when a file is written: importing it loads the readline and directory
 * modules too, a few milliseconds of every command's start, and most commands write to standard output.
 */
function fsp(): typeof import("node:fs/promises") {
  return process.getBuiltinModule("node:fs/promises");
}

/**
 * Four random bytes in hex for a temporary file's name. node:crypto is fetched here, when a file is
 * written, rather than imported: loading it is a good part of a short command's start, and most
 * commands write to standard output.
 */
function tempSuffix(): string {
  return process.getBuiltinModule("node:crypto").randomBytes(4).toString("hex");
}

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
 * Where a write to `path` lands: `path` itself, or for a symbolic link the file it points to
 * (followed to the end, also when that file does not exist yet), so that the link stays a link.
 */
async function writeTarget(path: string): Promise<string> {
  let current = path;
  for (let hops = 0; hops < 40; hops++) {
    const info = await fsp()
      .lstat(current)
      .catch(() => undefined);
    if (info === undefined || !info.isSymbolicLink()) return current;
    // realpath resolves the whole chain when its end exists; a dangling link is followed by hand.
    const real = await fsp()
      .realpath(current)
      .catch(() => undefined);
    if (real !== undefined) return real;
    current = resolve(dirname(current), await fsp().readlink(current));
  }
  throw new WriteError("too many levels of symbolic links", "ELOOP");
}

/**
 * A file written piece by piece that appears at `path` only when complete: the pieces go to a
 * temporary file in the same directory, which {@link AtomicFile.commit} renames over `path` (a
 * rename within one file system replaces the target in one step) and {@link AtomicFile.abort}
 * removes. A symbolic link is written through (its target is replaced; the link stays). `mode`
 * applies from the start (a private key is never readable by others); without it a file that
 * exists keeps its mode and a new one gets 0666 less the umask. Every method throws WriteError
 * (having removed the temporary file).
 */
export class AtomicFile {
  private constructor(
    private readonly handle: FileHandle,
    private readonly temp: string,
    private readonly target: string,
    private readonly folder: string,
    /** The mode to set before the rename (an existing file's, which the umask must not narrow). */
    private readonly keepMode: number | undefined,
  ) {}

  /** Creates the temporary file for `path`. */
  static async open(path: string, mode?: number): Promise<AtomicFile> {
    const target = await writeTarget(path);
    const folder = dirname(target);
    const existing = await fsp()
      .stat(target)
      .catch(() => undefined);
    if (existing?.isDirectory()) throw new WriteError("is a directory", "EISDIR");
    const temp = join(folder, `.${basename(target)}.${process.pid}.${tempSuffix()}.tmp`);
    try {
      const handle = await fsp().open(temp, "wx", mode ?? (existing ? existing.mode & 0o7777 : 0o666));
      const keepMode = mode === undefined && existing !== undefined ? existing.mode & 0o7777 : undefined;
      return new AtomicFile(handle, temp, target, folder, keepMode);
    } catch (e) {
      await fsp().rm(temp, { force: true });
      throw new WriteError(fsErrorText(e, folder), (e as NodeJS.ErrnoException).code);
    }
  }

  /** Appends `text` (all of it, when the promise resolves). */
  async write(text: string): Promise<void> {
    await this.step(() => this.handle.writeFile(text));
  }

  /** Closes the file and renames it over the target. */
  async commit(): Promise<void> {
    await this.step(async () => {
      if (this.keepMode !== undefined) await this.handle.chmod(this.keepMode);
      await this.handle.close();
      await fsp().rename(this.temp, this.target);
    });
  }

  /** Removes the temporary file; the target stays as it was. */
  async abort(): Promise<void> {
    await this.handle.close().catch(() => undefined);
    await fsp().rm(this.temp, { force: true });
  }

  /**
   * Removes the temporary file at once, without waiting (for a signal handler that exits right
   * after; the process's exit closes the file).
   */
  abortNow(): void {
    rmSync(this.temp, { force: true });
  }

  private async step(work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (e) {
      await this.abort();
      throw new WriteError(fsErrorText(e, this.folder), (e as NodeJS.ErrnoException).code);
    }
  }
}

/** Writes `text` to `path` atomically ({@link AtomicFile} in one piece). Throws WriteError. */
export async function writeFileAtomic(path: string, text: string, mode?: number): Promise<void> {
  const file = await AtomicFile.open(path, mode);
  await file.write(text);
  await file.commit();
}

/**
 * Creates `dir` (and its parents) if missing, one folder at a time from the deepest one that exists
 * (Node's recursive mkdir loops forever where mkdir fails with ENOENT under an existing folder, as
 * in /proc). Folders it creates get `mode` (before the umask) when given. Throws WriteError naming
 * the part that is in the way.
 */
export async function ensureFolder(dir: string, mode?: number): Promise<void> {
  const missing: string[] = [];
  let part = resolve(dir);
  for (;;) {
    const info = await fsp()
      .stat(part)
      .catch((e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? undefined : e));
    if (info instanceof Error) throw new WriteError(fsErrorText(info, dirname(part)), info.code);
    if (info !== undefined) {
      if (info.isDirectory()) break;
      const where = part === resolve(dir) ? "is not a folder" : `${part} is not a folder`;
      throw new WriteError(where, "ENOTDIR");
    }
    missing.unshift(part);
    if (dirname(part) === part) break;
    part = dirname(part);
  }
  for (const folder of missing) {
    try {
      await fsp().mkdir(folder, mode === undefined ? undefined : { mode });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "EEXIST") continue; // made meanwhile by someone else
      const parent = dirname(folder);
      // ENOENT for a folder whose parent exists: a file system that has no place for new folders.
      const text =
        code === "ENOENT" ? `cannot create folder ${folder} (${parent} does not allow it)` : fsErrorText(e, parent);
      throw new WriteError(text, code);
    }
  }
}

/** The paths among `paths` that exist already. */
export function existing(paths: readonly string[]): string[] {
  return paths.filter((p) => existsSync(p));
}
