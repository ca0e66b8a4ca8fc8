import { CursorWrapError } from "@cursor-wrap/errors";

/**
 * The log directory cannot be created or written (R-LOG8): reported before the agent starts.
 * The message says what failed; the caller says how to choose another directory.
 */
export class LogDirError extends CursorWrapError {
  static override readonly marker: string = "cursor-wrap.error.log-dir";
  /** The directory that could not be written. */
  readonly dir: string;
  /** The system error code (`EACCES`, `ENOTDIR`, `EROFS`, …). */
  readonly reason: string | undefined;

  constructor(dir: string, cause: NodeJS.ErrnoException) {
    super("LOG_DIR_UNWRITABLE", `cannot write logs to ${dir}: ${cause.code ?? cause.message}`, {
      cause,
    });
    this.dir = dir;
    this.reason = cause.code;
  }
}
