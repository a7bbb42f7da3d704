/**
 * Reading a command's input: a file, or standard input for `-`; a leading UTF-8 byte-order mark
 * dropped (else it is copied into the output); a problem is one line naming the file and `what`.
 */
import { readFile } from "node:fs/promises";

/** A file that cannot be read; the message names it. */
export class InputError extends Error {
  override name = "InputError";
}

/** A leading UTF-8 byte order mark is not part of the text. */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** The text of `path` (`-`: standard input); `what` ("input", "values file") names it in errors. */
export async function readInputText(path: string, what?: string): Promise<string> {
  const named = what === undefined ? path : `${what} ${path}`;
  try {
    if (path === "-") {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return stripBom(Buffer.concat(chunks).toString("utf8"));
    }
    return stripBom(await readFile(path, "utf8"));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EISDIR") throw new InputError(`${named}: is a directory`);
    throw new InputError(`cannot read ${named}: ${(e as Error).message}`);
  }
}
