import { CursorWrapError } from "@cursor-wrap/errors";

/** `runAgent` was called in a way it cannot work: a mistake in the caller's code, not a failure of the run. */
export class RunUsageError extends CursorWrapError {
  static override readonly marker: string = "cursor-wrap.error.run-usage";

  constructor(message: string) {
    super("RUN_USAGE", message);
  }
}
