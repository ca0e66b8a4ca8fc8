import { NotifyOptionError } from "./errors.js";

/**
 * What a notification is about:
 * - `hang`, `linger`, `budget`: the hang monitor's verdict ended a turn (its agent is killed);
 * - `retry`: the run goes on with another attempt (after a hang or a transient failure);
 * - `gave-up`: the run ends without success and nothing more will be tried;
 * - `done`: the run ended, whatever the outcome.
 */
export type NotifyEvent = "hang" | "linger" | "budget" | "retry" | "gave-up" | "done";

/** How long a command or a webhook has before it is given up, ms. */
export const DEFAULT_NOTIFY_TIMEOUT_MS = 10_000;

/** Every event, in the order a run can reach them. */
export const NOTIFY_EVENTS: readonly NotifyEvent[] = [
  "hang",
  "linger",
  "budget",
  "retry",
  "gave-up",
  "done",
];

/** `hang,gave-up` → those events; throws {@link NotifyOptionError} naming an unknown one. */
export function parseNotifyEvents(text: string, source = "--on-verdict-events"): Set<NotifyEvent> {
  const events = new Set<NotifyEvent>();
  for (const word of text
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)) {
    if (!(NOTIFY_EVENTS as readonly string[]).includes(word)) {
      throw new NotifyOptionError(
        `${source} takes events among ${NOTIFY_EVENTS.join(", ")}, not ${JSON.stringify(word)}`,
      );
    }
    events.add(word as NotifyEvent);
  }
  if (events.size === 0) throw new NotifyOptionError(`${source} needs at least one event`);
  return events;
}
