import { CursorWrapError } from "@cursor-wrap/errors";

/** A notification setting that cannot be used (a command line, a URL, an event name). */
export class NotifyOptionError extends CursorWrapError {
  static override readonly marker: string = "cursor-wrap.error.notify-option";

  constructor(message: string) {
    super("NOTIFY_OPTION", message);
  }
}
