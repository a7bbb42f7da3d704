/** An error meant for the user: printed as `meshinject: MESSAGE`, exit code 1. */
export class CliError extends Error {
  override name = "CliError";
}
