// What a notification says, and when there is one: made from cursor-wrap's session log records
// as they are written (the log's tap), so it needs nothing from where the run loop lives.

import { count, text } from "@cursor-wrap/logger/record-fields";
import type { NotifyEvent } from "./notify-events.js";

/** The version of a notification's shape; a change that is not an addition raises it. */
export const NOTIFICATION_VERSION = 1;

/** A notification: the JSON on a command's stdin, and (with `text`) the body of a webhook. */
export interface Notification {
  version: typeof NOTIFICATION_VERSION;
  event: NotifyEvent;
  /** One readable line (what a chat message shows). */
  text: string;
  /** When it happened (the record's time, ISO 8601). */
  at: string;
  /** What happened, in one line (the verdict's reason, the failure, the outcome). */
  summary: string;
  session_id: string | null;
  /** The turn of the run it happened in (1 for the first). */
  turn: number | null;
  /** Which attempt at its prompt that turn was. */
  attempt: number | null;
  /** `hang`, `linger` or `budget`, and the monitor's reason as logged. */
  verdict: string | null;
  reason: Record<string, unknown> | null;
  /** For `gave-up`: what the run failed on. */
  failure: { kind: string; summary: string; gave_up: string | null } | null;
  /** For `retry`: what the next attempt does. */
  retry: {
    attempt: number | null;
    action: string | null;
    kind: string | null;
    wait_ms: number | null;
  } | null;
  /** For `done` (and `gave-up` at the end): how the run ended. */
  outcome: string | null;
  exit_code: number | null;
  resume_command: string | null;
  log_path: string | null;
  report_path: string | null;
  host: string | null;
  /** The CI run, when the run is one (GitHub Actions: `$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID`). */
  run_url: string | null;
  tool: { name: string; version: string };
}

/** Options for {@link createNotificationSource}. */
export interface NotificationSourceOptions {
  tool?: { name: string; version: string };
  /** The command that resumes a session. Default `cursor-wrap --resume <id>`. */
  resumeCommand?: (sessionId: string) => string;
  /** Where the run report is written, if it is. */
  reportPath?: string;
  /** The machine's name, for the text. */
  host?: string;
  runUrl?: string;
}

/** Turns records into notifications. */
export interface NotificationSource {
  /** Take in one record of the session log; returns the notifications it makes (usually none). */
  record(message: string, record: Readonly<Record<string, unknown>>): Notification[];
}

/** The longest summary and text kept, characters. */
const SUMMARY_MAX = 500;
const TEXT_MAX = 1_000;

const VERDICTS: Readonly<Record<string, "hang" | "linger" | "budget">> = {
  hang_detected: "hang",
  linger_detected: "linger",
  budget_exceeded: "budget",
};

const objectField = (
  record: Readonly<Record<string, unknown>>,
  name: string,
): Record<string, unknown> | null => {
  const value = record[name];
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? { ...(value as Record<string, unknown>) }
    : null;
};
const clip = (line: string, max: number): string =>
  line.length <= max ? line : `${line.slice(0, max - 1)}…`;
const oneLine = (line: string): string => line.replace(/\s*[\r\n]+\s*/g, " ");

/** The CI run's address, from the variables GitHub Actions sets; undefined elsewhere. */
export function ciRunUrl(env: NodeJS.ProcessEnv): string | undefined {
  const { GITHUB_SERVER_URL, GITHUB_REPOSITORY, GITHUB_RUN_ID } = env;
  if (!GITHUB_SERVER_URL || !GITHUB_REPOSITORY || !GITHUB_RUN_ID) return undefined;
  return `${GITHUB_SERVER_URL}/${GITHUB_REPOSITORY}/actions/runs/${GITHUB_RUN_ID}`;
}

/**
 * Notifications from the session log's records, fed in order: `hang`, `linger` and `budget`
 * from the verdict records, `retry` from `retry`, `gave-up` from the failure the recovery
 * policy gave up on (`agent_failure`, `abnormal_exit` with `gave_up`) or, at the end, from a
 * run that ends unsuccessfully (not stopped from outside), and `done` from `session_end`.
 * Each record makes its notification once; `gave-up` and `done` come at most once a run.
 */
export function createNotificationSource(
  options: NotificationSourceOptions = {},
): NotificationSource {
  const resume =
    options.resumeCommand ??
    ((id: string) =>
      `cursor-wrap --resume ${/^[\w.@%+=:,/-]+$/.test(id) ? id : `'${id.replace(/'/g, "'\\''")}'`}`);
  let sessionId: string | undefined;
  let logPath: string | undefined;
  let turn = 0;
  let attempt = 0;
  let retried = false;
  let lastVerdict: { verdict: string; summary: string } | undefined;
  let gaveUp = false;
  let done = false;
  // The agent said it does not know the session: resuming it cannot work.
  let unknownSession = false;

  const make = (
    event: NotifyEvent,
    record: Readonly<Record<string, unknown>>,
    fields: Partial<Notification> & { summary: string },
  ): Notification => {
    const at = count(record, "ts") ?? count(record, "time") ?? Date.now();
    const notification: Notification = {
      version: NOTIFICATION_VERSION,
      event,
      text: "",
      at: new Date(at).toISOString(),
      session_id: sessionId ?? null,
      turn: turn || null,
      attempt: attempt || null,
      verdict: null,
      reason: null,
      failure: null,
      retry: null,
      outcome: null,
      exit_code: null,
      resume_command: sessionId === undefined || unknownSession ? null : resume(sessionId),
      log_path: logPath ?? null,
      report_path: options.reportPath ?? null,
      host: options.host ?? null,
      run_url: options.runUrl ?? null,
      tool: options.tool ?? { name: "cursor-wrap", version: "unknown" },
      ...fields,
      summary: clip(oneLine(fields.summary), SUMMARY_MAX),
    };
    notification.text = notificationText(notification);
    return notification;
  };

  return {
    record(message, record) {
      switch (message) {
        case "session_start":
          logPath = text(record, "log_path") ?? logPath;
          return [];
        case "log_renamed":
          logPath = text(record, "path") ?? logPath;
          sessionId = text(record, "session_id") ?? sessionId;
          return [];
        case "agent_spawn":
          turn += 1;
          attempt = retried ? attempt + 1 : 1;
          retried = false;
          return [];
        case "turn_end":
          sessionId = text(record, "session_id") ?? sessionId;
          attempt = count(record, "attempt") ?? attempt;
          return [];
        case "hang_detected":
        case "linger_detected":
        case "budget_exceeded": {
          const verdict = VERDICTS[message]!;
          const summary = text(record, "summary") ?? verdict;
          if (verdict !== "linger") lastVerdict = { verdict, summary };
          return [
            make(verdict, record, { summary, verdict, reason: objectField(record, "reason") }),
          ];
        }
        case "retry":
          retried = true;
          lastVerdict = undefined;
          return [
            make("retry", record, {
              summary: text(record, "summary") ?? "retrying",
              retry: {
                attempt: count(record, "attempt") ?? null,
                action: text(record, "action") ?? null,
                kind: text(record, "kind") ?? null,
                wait_ms: count(record, "wait_ms") ?? null,
              },
            }),
          ];
        case "agent_failure":
        case "abnormal_exit":
        case "gave_up": {
          if (text(record, "kind") === "unknown-session") unknownSession = true;
          const why = text(record, "gave_up");
          if (why === undefined || gaveUp) return [];
          gaveUp = true;
          const kind =
            message === "abnormal_exit" ? "abnormal_exit" : (text(record, "kind") ?? "failure");
          const summary = text(record, "summary") ?? kind;
          return [
            make("gave-up", record, {
              summary,
              failure: { kind, summary: clip(oneLine(summary), SUMMARY_MAX), gave_up: why },
            }),
          ];
        }
        case "session_end": {
          if (done) return [];
          done = true;
          sessionId = text(record, "session_id") ?? sessionId;
          logPath = text(record, "log_path") ?? logPath;
          const outcome = text(record, "outcome") ?? "unknown";
          const exitCode = count(record, "exit_code") ?? null;
          const ending = { outcome, exit_code: exitCode };
          const notifications: Notification[] = [];
          // Stopped from outside (a signal, stdout gone) is not giving up.
          const stopped = /^(signal|stdout) /.test(outcome) || outcome === "cancelled";
          if (!gaveUp && exitCode !== null && exitCode !== 0 && !stopped) {
            gaveUp = true;
            const kind = lastVerdict?.verdict ?? outcome;
            const summary = lastVerdict?.summary ?? `the run ended: ${outcome}`;
            notifications.push(
              make("gave-up", record, {
                ...ending,
                summary,
                failure: { kind, summary: clip(oneLine(summary), SUMMARY_MAX), gave_up: null },
              }),
            );
          }
          notifications.push(
            make("done", record, { ...ending, summary: `${outcome} (exit ${exitCode ?? "?"})` }),
          );
          return notifications;
        }
        default:
          return [];
      }
    },
  };
}

const HEADLINES: Readonly<Record<NotifyEvent, (notification: Notification) => string>> = {
  hang: (n) => `hang detected in turn ${n.turn ?? "?"}, the agent is killed`,
  linger: (n) => `the agent did not exit after its result in turn ${n.turn ?? "?"}, it is killed`,
  budget: (n) => `turn ${n.turn ?? "?"} went over its time budget, the agent is killed`,
  // The run's next attempt (the record's own `attempt` counts within its kind: "retry 1 of 3").
  retry: (n) => `retrying${n.attempt ? ` (attempt ${n.attempt + 1})` : ""}`,
  "gave-up": () => "gave up",
  done: (n) => `done: ${n.outcome ?? "?"} (exit ${n.exit_code ?? "?"})`,
};

/** The one line of a notification: what happened, where, why, and how to go on. */
export function notificationText(notification: Notification): string {
  const where = notification.host ? ` on ${notification.host}` : "";
  const session = notification.session_id ? ` [session ${notification.session_id}]` : "";
  // A summary's own full stop would make ". Resume with" a second one.
  const why = notification.event === "done" ? "" : `: ${notification.summary.replace(/\.+$/, "")}`;
  const resume =
    notification.resume_command && notification.event !== "retry" && notification.exit_code !== 0
      ? `. Resume with: ${notification.resume_command}`
      : "";
  const run = notification.run_url ? ` (${notification.run_url})` : "";
  return clip(
    `cursor-wrap${where}: ${HEADLINES[notification.event](notification)}${session}${why}${resume}${run}`,
    TEXT_MAX,
  );
}
