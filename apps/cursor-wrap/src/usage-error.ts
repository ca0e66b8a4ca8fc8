import { CursorWrapError } from "@cursor-wrap/errors";

/** A command line that cannot be run: bad flag, bad value, no prompt. Exit 1. */
export class UsageError extends CursorWrapError {
  static override readonly marker: string = "cursor-wrap.error.usage";

  constructor(message: string) {
    super("USAGE", message);
  }
}
