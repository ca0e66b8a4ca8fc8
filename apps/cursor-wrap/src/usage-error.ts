import { accessSync, constants, statSync } from "node:fs";
import { CursorWrapError } from "@cursor-wrap/errors";

/** A command line that cannot be run: bad flag, bad value, no prompt. Exit 1. */
export class UsageError extends CursorWrapError {
  static override readonly marker: string = "cursor-wrap.error.usage";

  constructor(message: string) {
    super("USAGE", message);
  }
}

/** Why a file cannot be read, in words, by its error code. */
const WHY: Readonly<Record<string, string>> = {
  ENOENT: "no such file",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EISDIR: "a directory",
  ENOTDIR: "a part of the path is not a directory",
  ELOOP: "too many symbolic links",
  ENAMETOOLONG: "the name is too long",
  // Not an errno: a pipe, socket or device, which the commands that take a file read twice
  // (the head to tell a log from a capture, then the whole).
  ENOTREG: "not a regular file (a pipe, socket or device: save it to a file first)",
};

/** A file given on the command line, checked before use: a usage error if it cannot be read. */
export function readableFile(path: string, what: string): string {
  try {
    const stats = statSync(path);
    if (stats.isDirectory()) throw Object.assign(new Error("a directory"), { code: "EISDIR" });
    if (!stats.isFile()) throw Object.assign(new Error("not a regular file"), { code: "ENOTREG" });
    accessSync(path, constants.R_OK);
    return path;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    const why = WHY[code];
    // ENOTREG is this function's own: no errno to quote.
    const reason = why === undefined ? code : code === "ENOTREG" ? why : `${why} (${code})`;
    throw new UsageError(`cannot read ${what} ${JSON.stringify(path)}: ${reason}`);
  }
}
