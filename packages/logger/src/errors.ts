import { CursorWrapError } from "@cursor-wrap/errors";

/** The log directory cannot be created or written (R-LOG8): reported before the agent starts. */
export class LogDirError extends CursorWrapError {
  static override readonly marker: string = "cursor-wrap.error.log-dir";
  readonly dir: string;
  /** The system error code (`EACCES`, `ENOTDIR`, `EROFS`, …). */
  readonly reason: string | undefined;

  constructor(dir: string, cause: NodeJS.ErrnoException) {
    super(
      "LOG_DIR_UNWRITABLE",
      `cannot write logs to ${dir}: ${cause.code ?? cause.message} (set --log-dir to a writable directory)`,
      { cause },
    );
    this.dir = dir;
    this.reason = cause.code;
  }
}
