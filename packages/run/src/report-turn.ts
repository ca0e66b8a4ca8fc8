import type { Usage } from "@cursor-wrap/events";
import type { Formatter, TurnSummary } from "@cursor-wrap/format";
import { redact, type SessionLog } from "@cursor-wrap/logger";
import type { AttemptsSummary } from "@cursor-wrap/recovery";
import type { ExitInfo } from "@cursor-wrap/supervisor";
import type { GaveUp, NextStep } from "./decide-after-turn.js";
import { endingFlags } from "./ending.js";
import { failureMessage, type HintPolicy, recoveryHint } from "./failure-message.js";
import { writeRecord } from "./log-records.js";
import { type TurnResult, turnFailed } from "./turn-result.js";

/** Where a turn is reported. */
export interface ReportContext {
  formatter: Formatter;
  log: SessionLog;
  /** One line on the wrapper's stderr. */
  printError(message: string): void;
  /** The session as it stands after the turn. */
  sessionId: string | undefined;
  /** A text rendering reaches people and shows errors itself: no separate line on stderr. */
  rendersForPeople: boolean;
  /** The agent's stderr lines were shown as they came: people need not read them again. */
  stderrShown: boolean;
  /** What `agent status` says, to explain a sign-in failure. */
  agentStatus?: string;
  /** The recovery policy, to say what it could have done. */
  policy?: HintPolicy;
  /** The prompt's attempts together, at its last one. */
  attempts?: AttemptsSummary;
}

function describeExit(exit: ExitInfo): string {
  return exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
}

/**
 * The summary of a prompt's output: its last turn's, or, after several attempts, their sum
 * (time waited included in the duration).
 */
export function summaryOf(
  result: TurnResult | undefined,
  attempts: AttemptsSummary | undefined,
): TurnSummary {
  if (attempts && (attempts.attempts > 1 || !result)) {
    const summary: TurnSummary = {
      durationMs: attempts.durationMs + attempts.waitedMs,
      toolCalls: attempts.toolCalls,
      outcome: result?.outcome ?? "cancelled",
      attempts: attempts.attempts,
      models: attempts.models,
      waitedMs: attempts.waitedMs,
    };
    if (attempts.usage) summary.usage = attempts.usage as Usage;
    return summary;
  }
  const summary: TurnSummary = {
    durationMs: result?.durationMs ?? 0,
    toolCalls: result?.toolCalls ?? 0,
    outcome: result?.outcome ?? "cancelled",
  };
  if (result?.usage) summary.usage = result.usage;
  return summary;
}

/** Write the record and the wrapper line of the next attempt (R-CLI4). */
function reportRetry(
  result: TurnResult,
  step: Extract<NextStep, { next: "retry" }>,
  context: ReportContext,
): void {
  const { recovery, failure } = step;
  const { formatter, log } = context;
  const hang = result.outcome === "hang" && failure.kind === "hang" ? result.reason : undefined;
  const model = recovery.action === "switch-model" ? recovery.model : undefined;
  const profile = recovery.action === "switch-profile" ? recovery.profile : undefined;
  writeRecord(log, "retry", {
    attempt: step.attempt,
    max_attempts: step.maxAttempts,
    prompt: step.prompt,
    session_id: recovery.resume,
    ...(hang ? { reason: hang } : {}),
    summary: hang ? hang.message : recovery.why,
    kind: failure.kind,
    action: recovery.action,
    detail: failure.detail,
    model,
    auth_profile: profile,
    wait_ms: recovery.delayMs,
    until: recovery.action === "wait-until" ? new Date(recovery.untilMs).toISOString() : undefined,
    http_status: failure.httpStatus,
    fallback_model: failure.fallbackModel,
  });
  formatter.wrapper({
    kind: "retry",
    attempt: step.attempt,
    maxAttempts: step.maxAttempts,
    ...(step.prompt === undefined ? {} : { prompt: step.prompt }),
    ...(hang ? { reason: hang } : { message: recovery.why }),
    // The session the next attempt resumes; none: it starts a new one.
    ...(recovery.resume ? { sessionId: recovery.resume } : {}),
    failure: failure.kind,
    action: recovery.action,
    ...(model === undefined ? {} : { model }),
    ...(profile === undefined ? {} : { profile }),
    waitMs: recovery.delayMs,
  });
}

/** The one clear message of a failure the agent named, its record and its wrapper line. */
function reportFailure(
  result: TurnResult,
  context: ReportContext,
  gaveUp: GaveUp | undefined,
): void {
  const { formatter, log, sessionId } = context;
  const failure = result.failure!;
  const attempts = context.attempts?.attempts ?? 1;
  const hint =
    gaveUp && context.policy
      ? recoveryHint(failure, gaveUp.decision, context.policy, attempts)
      : undefined;
  // The agent's words, quoted by cursor-wrap on its stderr and its wrapper line: redacted, as
  // in the log (an agent that repeats its key in an error).
  const message = redact(
    [
      failureMessage(failure, sessionId),
      ...(hint ? [hint] : []),
      ...(context.agentStatus ? [`(cursor-agent status: ${context.agentStatus})`] : []),
    ].join("\n"),
  );
  writeRecord(log, "agent_failure", {
    kind: failure.kind,
    detail: failure.detail,
    summary: message,
    transient: failure.transient,
    reset_at: failure.resetAt === undefined ? undefined : new Date(failure.resetAt).toISOString(),
    fallback_model: failure.fallbackModel,
    http_status: failure.httpStatus,
    ...(gaveUp ? { gave_up: gaveUp.decision.why } : {}),
  });
  if (!context.rendersForPeople) context.printError(message);
  formatter.wrapper({
    kind: "error",
    message: context.rendersForPeople ? message : message.split("\n")[0]!,
    sessionId,
    terminal: true,
    ...(attempts > 1 ? { attempts } : {}),
    failure: failure.kind,
  });
}

/**
 * Tell what a turn came to and what happens next: the wrapper line of a verdict, a retry or a
 * cancel (R-FMT1), the one clear message of a failure or an abnormal exit, their records, and
 * the end of the prompt's output (its summary adding up every attempt).
 */
export function reportTurn(result: TurnResult, step: NextStep, context: ReportContext): void {
  const { formatter, log, sessionId } = context;
  // Stdout's reader is gone: nothing more is written anywhere.
  if (step.next === "quit") return;
  if (step.next === "retry") {
    reportRetry(result, step, context);
    // The prompt goes on with the next attempt: its output is not closed.
    return;
  }
  const gaveUp = step.gaveUp;
  const attempts = context.attempts?.attempts ?? 1;
  // A run that ends in a failure ends flagged: named so now, before the records that say so,
  // so the path a notification or a report hands on is the one the log keeps.
  if (step.next === "exit" && endingFlags(step.ending)) log.flag();
  if (turnFailed(result)) {
    reportFailure(result, context, gaveUp);
    formatter.endTurn(summaryOf(result, context.attempts));
    return;
  }
  switch (result.outcome) {
    case "completed":
      break;
    case "linger":
      formatter.wrapper({ kind: "linger", reason: result.reason, sessionId, terminal: false });
      break;
    case "hang":
    case "budget":
      if (gaveUp) {
        writeRecord(log, "gave_up", {
          kind: result.outcome,
          summary: result.reason?.message ?? result.outcome,
          gave_up: gaveUp.decision.why,
        });
      }
      formatter.wrapper({ kind: result.outcome, reason: result.reason, sessionId, terminal: true });
      break;
    case "abnormal": {
      const what = `cursor-agent exited with ${describeExit(result.exit)} without a result`;
      const tried = attempts > 1 ? ` (gave up after ${attempts} attempts)` : "";
      const message = result.lastStderr ? redact(`${what}: ${result.lastStderr}`) : what;
      writeRecord(log, "abnormal_exit", {
        code: result.exit.code,
        signal: result.exit.signal,
        summary: `${message}${tried}`,
        ...(gaveUp ? { gave_up: gaveUp.decision.why } : {}),
      });
      // People who just saw the agent's stderr line do not need it again.
      const forPeople = `${context.stderrShown ? what : message}${tried}`;
      const line = {
        sessionId,
        terminal: true,
        ...(attempts > 1 ? { attempts } : {}),
        ...(result.failure ? { failure: result.failure.kind } : {}),
      };
      if (context.rendersForPeople) {
        formatter.wrapper({ kind: "error", message: forPeople, ...line });
      } else {
        context.printError(forPeople);
        formatter.wrapper({ kind: "error", message: `${message}${tried}`, ...line });
      }
      break;
    }
    case "cancelled": {
      const cancel = result.cancel;
      formatter.wrapper({
        kind: "cancelled",
        sessionId,
        terminal: true,
        ...(cancel.kind === "output" ? {} : { signal: cancel.signal }),
      });
      break;
    }
    default: {
      const unreachable: never = result;
      throw new Error(`unknown outcome ${JSON.stringify(unreachable)}`);
    }
  }
  formatter.endTurn(summaryOf(result, context.attempts));
}
