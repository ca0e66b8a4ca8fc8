import { accessSync, constants, statSync } from "node:fs";
import { describeError, kindOf } from "@cursor-wrap/wording";
import { UsageError } from "./usage-error.js";

/** A file given on the command line, checked before use: a usage error if it cannot be read. */
export function readableFile(path: string, what: string): string {
  let reason: string;
  try {
    const kind = kindOf(statSync(path));
    if (kind === undefined) {
      accessSync(path, constants.R_OK);
      return path;
    }
    // The commands that take a file read it twice (the head to tell a log from a capture, then
    // the whole), which a pipe, socket or device cannot serve.
    reason =
      kind === "a directory"
        ? "is a directory"
        : `${kind}, not a regular file: save it to a file first`;
  } catch (error) {
    reason = describeError(error);
  }
  throw new UsageError(`cannot read ${what} ${JSON.stringify(path)}: ${reason}`);
}
