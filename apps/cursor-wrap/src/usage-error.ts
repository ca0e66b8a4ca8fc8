import { accessSync, constants, statSync } from "node:fs";
import { CursorWrapError } from "@cursor-wrap/errors";

/** A command line that cannot be run: bad flag, bad value, no prompt. Exit 1. */
export class UsageError extends CursorWrapError {
  static override readonly marker: string = "cursor-wrap.error.usage";

  constructor(message: string) {
    super("USAGE", message);
  }
}

/** A file given on the command line, checked before use: a usage error if it cannot be read. */
export function readableFile(path: string, what: string): string {
  try {
    if (!statSync(path).isFile()) throw Object.assign(new Error("not a file"), { code: "EISDIR" });
    accessSync(path, constants.R_OK);
    return path;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw new UsageError(`cannot read ${what} ${JSON.stringify(path)}: ${code}`);
  }
}
