/**
 * Watching a few small files (certificate and key, the three config files) for new content.
 *
 * Mounted ConfigMaps and Secrets change by an atomic symlink swap: `config -> ..data/config`, and
 * the kubelet renames a fresh `..data` link over the old one, so the file we opened is never
 * written in place. Editors and `cp` write in place; cert-manager's CSI driver renames. To catch all
 * of these the watcher compares CONTENT, not inode or mtime: `fs.watch` on each file's folder
 * triggers a prompt check (debounced, so a certificate and its key written one after the other are
 * read together), and polling at `intervalMs` covers file systems where `fs.watch` says nothing.
 * `onChange` gets every file's text whenever any of them differs from the last texts seen, once per
 * new content (a bad new config is reported once, not on every poll).
 *
 * Some files may legitimately come and go (a key added to or removed from a ConfigMap shows up as a
 * new symlink, or a dangling one, in the mounted folder). Such `optional` paths are watched from the
 * start even if absent; "not there" is then a state like any text (the path is simply left out of
 * the map), so appearing and disappearing are changes, not read errors.
 */

import { type FSWatcher, watch } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname } from "node:path";

export interface FileWatchOptions {
  /** Polling period (ms). */
  intervalMs: number;
  /** Delay after a file-system event before reading (ms); default 50. */
  debounceMs?: number;
  /** Called with every watched file's text (by path) when any of them changed. Awaited; checks never overlap. */
  onChange: (texts: ReadonlyMap<string, string>) => void | Promise<void>;
  /**
   * A file could not be read (`path` given; it may be mid-replacement, the next check tries again;
   * the same error for the same file is reported once), or `onChange` threw (no `path`).
   */
  onError: (error: Error, path?: string) => void;
  /** Paths that may be absent (missing from `initial` if absent now); their absence is not an error. */
  optional?: Iterable<string>;
}

export interface FileWatch {
  /** Reads the files now and calls `onChange` if they differ; resolves when that is done. */
  check(): Promise<void>;
  close(): void;
}

/** Watches `initial`'s paths (whose current texts are its values) and the `optional` ones. */
export function watchFiles(initial: ReadonlyMap<string, string>, options: FileWatchOptions): FileWatch {
  const last = new Map(initial);
  const optional = new Set(options.optional ?? []);
  const paths = [...new Set([...initial.keys(), ...optional])];
  let closed = false;
  let running: Promise<void> | undefined;
  let again = false;
  let debounce: NodeJS.Timeout | undefined;

  /** The last read error reported per path: a file that stays missing is reported once, not on every poll. */
  const readErrors = new Map<string, string>();

  async function readAll(): Promise<Map<string, string> | undefined> {
    const texts = new Map<string, string>();
    for (const path of paths) {
      try {
        texts.set(path, await readFile(path, "utf8"));
        readErrors.delete(path);
      } catch (e) {
        // A dangling symlink (the kubelet removed the key) reads as ENOENT too: absent, like a missing file.
        if (optional.has(path) && (e as NodeJS.ErrnoException).code === "ENOENT") {
          readErrors.delete(path);
          continue;
        }
        const message = (e as Error).message;
        if (readErrors.get(path) !== message) {
          readErrors.set(path, message);
          options.onError(e as Error, path);
        }
        return undefined;
      }
    }
    return texts;
  }

  async function checkOnce(): Promise<void> {
    const texts = await readAll();
    if (closed || texts === undefined) return;
    if (paths.every((p) => texts.get(p) === last.get(p))) return;
    last.clear();
    for (const [p, t] of texts) last.set(p, t);
    try {
      await options.onChange(texts);
    } catch (e) {
      options.onError(e instanceof Error ? e : new Error(String(e)));
    }
  }

  function check(): Promise<void> {
    if (closed) return Promise.resolve();
    if (running) {
      // A check is under way: run one more after it, which sees whatever changed meanwhile.
      again = true;
      return running;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await checkOnce();
        } while (again && !closed);
      } finally {
        running = undefined;
      }
    })();
    return running;
  }

  const schedule = () => {
    if (closed) return;
    clearTimeout(debounce);
    debounce = setTimeout(() => void check(), options.debounceMs ?? 50);
    debounce.unref();
  };

  const watchers: FSWatcher[] = [];
  for (const dir of new Set(paths.map((p) => dirname(p)))) {
    try {
      const w = watch(dir, { persistent: false }, schedule);
      w.on("error", () => {}); // polling still covers this folder
      watchers.push(w);
    } catch {
      // fs.watch is not available here (some network file systems): polling only.
    }
  }
  const poll = setInterval(() => void check(), options.intervalMs);
  poll.unref();

  return {
    check,
    close() {
      closed = true;
      clearInterval(poll);
      clearTimeout(debounce);
      for (const w of watchers) w.close();
    },
  };
}
