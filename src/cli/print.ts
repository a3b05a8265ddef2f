/** Output shared by the commands. */

/** Writes one line to stdout. */
export function print(text: string): void {
  process.stdout.write(`${text}\n`);
}

/** Prints `value` as indented JSON with `--json`, else the human-readable `text()`. */
export function printJsonOr(json: boolean, value: unknown, text: () => string): void {
  print(json ? JSON.stringify(value, null, 2) : text());
}
