/** Print one line on stderr, prefixed with the program name. */
export function printError(stderr: { write(text: string): unknown }, message: string): void {
  stderr.write(`cursor-wrap: ${message}\n`);
}
