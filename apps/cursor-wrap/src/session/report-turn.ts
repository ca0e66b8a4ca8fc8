import type { Formatter, TurnSummary } from "@cursor-wrap/format";
import type { SessionLog } from "@cursor-wrap/logger";
import type { ExitInfo } from "@cursor-wrap/supervisor";
import { writeRecord } from "../log-records.js";
import { failureMessage } from "../turn/failures.js";
import { type TurnResult, turnFailed } from "../turn/turn-result.js";
import type { NextStep } from "./decide-after-turn.js";

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
}

function describeExit(exit: ExitInfo): string {
  return exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
}

function summaryOf(result: TurnResult): TurnSummary {
  const summary: TurnSummary = {
    durationMs: result.durationMs,
    toolCalls: result.toolCalls,
    outcome: result.outcome,
  };
  if (result.usage) summary.usage = result.usage;
  return summary;
}

/**
 * Tell what a turn came to and what happens next: the wrapper line of a verdict, a retry or a
 * cancel (R-FMT1), the one clear message of a failure or an abnormal exit, their records, and
 * the end of the turn's output.
 */
export function reportTurn(result: TurnResult, step: NextStep, context: ReportContext): void {
  const { formatter, log, sessionId } = context;
  // Stdout's reader is gone: nothing more is written anywhere.
  if (step.next === "quit") return;
  if (turnFailed(result)) {
    // Auth, plan and quota failures are never retried: one clear message, exit 1.
    const failure = result.failure!;
    const message = `${failureMessage(failure, sessionId)}${
      context.agentStatus ? `\n(cursor-agent status: ${context.agentStatus})` : ""
    }`;
    writeRecord(log, "agent_failure", {
      kind: failure.kind,
      detail: failure.detail,
      summary: message,
    });
    if (!context.rendersForPeople) context.printError(message);
    formatter.wrapper({
      kind: "error",
      message: context.rendersForPeople ? message : message.split("\n")[0]!,
      sessionId,
      terminal: true,
    });
    formatter.endTurn(summaryOf(result));
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
      if (step.next === "retry" && sessionId) {
        writeRecord(log, "retry", {
          attempt: step.attempt,
          max_attempts: step.maxAttempts,
          prompt: step.prompt,
          session_id: sessionId,
          reason: result.reason,
          summary: result.reason.message,
        });
        formatter.wrapper({
          kind: "retry",
          attempt: step.attempt,
          maxAttempts: step.maxAttempts,
          prompt: step.prompt,
          reason: result.reason,
          sessionId,
        });
        // The turn goes on with the retry: its output is not closed.
        return;
      }
      formatter.wrapper({ kind: result.outcome, reason: result.reason, sessionId, terminal: true });
      break;
    case "abnormal": {
      const what = `cursor-agent exited with ${describeExit(result.exit)} without a result`;
      const message = result.lastStderr ? `${what}: ${result.lastStderr}` : what;
      writeRecord(log, "abnormal_exit", {
        code: result.exit.code,
        signal: result.exit.signal,
        summary: message,
      });
      // People who just saw the agent's stderr line do not need it again.
      const forPeople = context.stderrShown ? what : message;
      if (context.rendersForPeople) {
        formatter.wrapper({ kind: "error", message: forPeople, sessionId, terminal: true });
      } else {
        context.printError(forPeople);
        formatter.wrapper({ kind: "error", message, sessionId, terminal: true });
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
  formatter.endTurn(summaryOf(result));
}
