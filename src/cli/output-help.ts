/**
 * The -o option's help, the same in every command that writes its result to a file (apart from
 * output-target.ts, which does the writing, so that registering a command loads none of it).
 */
export const OUTPUT_FLAG_HELP =
  "write the result to this file instead of stdout (a regular file is replaced atomically; a device, FIFO or socket is written to; - is stdout)";
