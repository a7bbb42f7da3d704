/** Resolved by web/build.ts: the built-in configuration's asset texts, by file name. */
declare const texts: Readonly<Record<string, string>>;
export default texts;
