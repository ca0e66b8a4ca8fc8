// What a command line needs to read the notification flags, and nothing that sends: a CLI's
// flag table (and so its --help) loads this entry alone.

export { commandWords } from "./command-words.js";
export { NotifyOptionError } from "./errors.js";
export type { NotifyEvent } from "./notify-events.js";
export { DEFAULT_NOTIFY_TIMEOUT_MS, NOTIFY_EVENTS, parseNotifyEvents } from "./notify-events.js";
