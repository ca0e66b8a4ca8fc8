import { type Delivery, type DeliveryResult, postWebhook, runCommand } from "./deliver.js";
import type { Notification } from "./notification.js";
import { DEFAULT_NOTIFY_TIMEOUT_MS, type NotifyEvent } from "./notify-events.js";

/** Options for {@link createNotifier}. */
export interface NotifierOptions {
  /** A command to run per notification, as words (no shell): see `commandWords`. */
  command?: readonly string[];
  /** A URL to POST each notification to. */
  url?: string;
  /** The events to notify of. Default: all. */
  events?: ReadonlySet<NotifyEvent>;
  /** How long a command or a webhook has before it is given up (the command killed), ms. Default {@link DEFAULT_NOTIFY_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** The command's environment. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** `User-Agent` of webhook requests. Default `cursor-wrap`. */
  userAgent?: string;
  /** Told how each delivery went (to log it); never awaited, and what it throws is dropped. */
  onResult?: (result: DeliveryResult) => void;
}

/** Sends notifications without ever being in the way. */
export interface Notifier {
  /**
   * Send one notification to the command and the webhook, unless its event is filtered out.
   * Returns at once: the deliveries start on the next turn of the event loop (never inside
   * the caller, which may be about to kill an agent) and are never retried.
   */
  send(notification: Notification): void;
  /** Resolves once every delivery started so far has ended (each is bounded by the timeout). */
  settle(): Promise<void>;
  /** End every delivery still under way now (the process is exiting): commands are killed. */
  dispose(): void;
}

/**
 * A notifier for a command (`--on-verdict`) and a webhook (`--notify`): each notification goes
 * to each once, at once, bounded by a timeout; a failure is reported to `onResult`, never
 * thrown.
 */
export function createNotifier(options: NotifierOptions): Notifier {
  const timeoutMs = options.timeoutMs ?? DEFAULT_NOTIFY_TIMEOUT_MS;
  const pending = new Set<Delivery>();
  let disposed = false;

  const track = (delivery: Delivery): void => {
    pending.add(delivery);
    void delivery.done.then((result) => {
      pending.delete(delivery);
      try {
        options.onResult?.(result);
      } catch {
        // Reporting a result must not turn into a failure of its own.
      }
    });
  };

  return {
    send(notification) {
      if (disposed || (options.events && !options.events.has(notification.event))) return;
      setImmediate(() => {
        if (disposed) return;
        if (options.command && options.command.length > 0) {
          track(
            runCommand(options.command, notification, {
              timeoutMs,
              env: options.env ?? process.env,
            }),
          );
        }
        if (options.url !== undefined) {
          track(
            postWebhook(options.url, notification, {
              timeoutMs,
              userAgent: options.userAgent ?? "cursor-wrap",
            }),
          );
        }
      });
    },
    async settle() {
      // Deliveries start on the next turn of the loop: let those already sent begin.
      await new Promise<void>((resolve) => setImmediate(resolve));
      while (pending.size > 0) await Promise.all([...pending].map((delivery) => delivery.done));
      // Their results are reported in the same turn they end: nothing is left to wait for.
      await Promise.resolve();
    },
    dispose() {
      disposed = true;
      for (const delivery of pending) delivery.abort();
    },
  };
}
