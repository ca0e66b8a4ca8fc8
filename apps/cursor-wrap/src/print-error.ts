/** Print one line on stderr, prefixed with the program name. */
export function printError(stderr: NodeJS.WritableStream, message: string): void {
  stderr.write(`cursor-wrap: ${message}\n`);
}
