/**
 * The text of hashicorp/go-multierror's Error() with its default format, which Istio's validation
 * errors carry: `1 error occurred:\n\t* a\n\n`, `2 errors occurred:\n\t* a\n\t* b\n\n`.
 */
export function multiErrorText(messages: readonly string[]): string {
  if (messages.length === 1) return `1 error occurred:\n\t* ${messages[0]}\n\n`;
  return `${messages.length} errors occurred:\n\t${messages.map((m) => `* ${m}`).join("\n\t")}\n\n`;
}
