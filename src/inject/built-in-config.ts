/**
 * The built-in `config` document (src/inject/defaults.ts) as data, for the readers of the `config`
 * text: the text is assembled from the templates' files, so what its YAML reads back as is known,
 * and reading ~50 KB of YAML was a good part of a one-shot command's start. Only the very text
 * defaults.ts assembled in this process counts (a user's copy of it is read as usual); each answer
 * is a new object, as a fresh read would be. Imports nothing, so config.ts and defaults.ts can both
 * use it.
 */

let known: { text: string; document: () => Record<string, unknown> } | undefined;

/** Records the `config` text defaults.ts assembled and a function building what it reads as. */
export function rememberBuiltInConfig(text: string, document: () => Record<string, unknown>): void {
  known = { text, document };
}

/** What `readYaml(text)` returns when `text` is the assembled built-in `config`; otherwise undefined. */
export function builtInConfigDocument(text: string): Record<string, unknown> | undefined {
  return known !== undefined && known.text === text ? known.document() : undefined;
}
