import type { TurnSummary, WrapperDecision } from "@cursor-wrap/format";
import type { ExitInfo } from "@cursor-wrap/supervisor";
import { failureMessage } from "./failures.js";
import type { PromptReader } from "./prompt-reader.js";
import { resourceStats } from "./resources.js";
import { runTurn, type TurnContext, type TurnResult } from "./turn.js";

/** Why a turn was cancelled: Ctrl+C in an interactive turn, a shutdown signal, or a closed stdout. */
export type CancelReason =
  | { kind: "turn"; signal: NodeJS.Signals }
  | { kind: "shutdown"; signal: NodeJS.Signals; code: number }
  | { kind: "epipe" };

/** The exit code a cancel forces: 128+n for a shutdown signal, 1 for a closed stdout, 130 for Ctrl+C. */
export function exitCodeOf(reason: CancelReason): number {
  switch (reason.kind) {
    case "shutdown":
      return reason.code;
    case "epipe":
      return 1;
    case "turn":
      return 130;
  }
}

/** Hooks between the session loop and the process it runs in (signals, errors). */
export interface SessionHooks {
  /** A fresh cancel controller for each turn, so a signal handler can cancel the running one. */
  onTurnStart(controller: AbortController): void;
  /** The turn is over: a signal now ends the session instead of cancelling a turn. */
  onTurnEnd(): void;
  /** Resolves with a shutdown reason when a signal or a closed stdout ends the session. */
  shutdown: Promise<CancelReason>;
  /** Print one line on the wrapper's stderr. */
  printError(message: string): void;
}

/** How the whole invocation went. */
export interface SessionResult {
  exitCode: number;
  outcome: string;
  /** Something went wrong that deserves a look (R-LOG7): a hang, linger, budget or error. */
  flagged: boolean;
  turns: number;
  sessionId: string | undefined;
}

function describeExit(exit: ExitInfo | undefined): string {
  if (!exit) return "no exit status";
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

/** A turn's result and, if it was cancelled, why. */
interface TurnRecord {
  result: TurnResult;
  cancel: CancelReason | undefined;
}

/** The agent reported a failure (auth, plan, quota, …) and the turn did not complete. */
function failed(result: TurnResult): boolean {
  return (
    result.failure !== undefined && result.outcome !== "completed" && result.outcome !== "cancelled"
  );
}

/** The outcome recorded for a turn that ended the session. */
function outcomeOf({ result }: TurnRecord): string {
  return failed(result) ? "failure" : result.outcome;
}

/** Loop state shared by print and interactive sessions. */
class Session {
  turns = 0;
  flagged = false;
  sessionId: string | undefined;
  consecutiveHangs = 0;

  constructor(
    readonly context: TurnContext,
    readonly hooks: SessionHooks,
    readonly interactive: boolean,
  ) {
    this.sessionId = context.options.resume;
  }

  async turn(prompt: string): Promise<TurnRecord> {
    const controller = new AbortController();
    this.hooks.onTurnStart(controller);
    this.turns += 1;
    let result: TurnResult;
    try {
      result = await runTurn(this.context, {
        prompt,
        resume: this.sessionId,
        signal: controller.signal,
      });
    } finally {
      this.hooks.onTurnEnd();
    }
    this.sessionId = result.sessionId ?? this.sessionId;
    this.context.log.decision("turn_end", {
      turn: this.turns,
      outcome: result.outcome,
      duration_ms: result.durationMs,
      tool_calls: result.toolCalls,
      session_id: this.sessionId,
      cancel: controller.signal.aborted ? controller.signal.reason : undefined,
      resources: resourceStats(),
    });
    if (result.outcome !== "completed" && result.outcome !== "cancelled") this.flagged = true;
    return {
      result,
      cancel: controller.signal.aborted ? (controller.signal.reason as CancelReason) : undefined,
    };
  }

  /**
   * What to do after a turn: a number ends the session with that exit code, a string is the
   * next prompt (an automatic retry), undefined asks the user.
   */
  settle({ result, cancel }: TurnRecord): number | string | undefined {
    const { formatter, log, options } = this.context;
    const sessionId = this.sessionId;
    const end = (code: number | undefined): number | undefined => {
      formatter.endTurn(summaryOf(result));
      return code;
    };
    if (failed(result)) {
      // Auth, plan and quota failures are never retried: one clear message, exit 1.
      const message = failureMessage(result.failure!, sessionId);
      log.decision(
        "agent_failure",
        { kind: result.failure!.kind, detail: result.failure!.detail, summary: message },
        "error",
      );
      this.hooks.printError(message);
      formatter.wrapper({
        kind: "error",
        message: message.split("\n")[0]!,
        sessionId,
        terminal: true,
      });
      return end(1);
    }
    switch (result.outcome) {
      case "completed":
        this.consecutiveHangs = 0;
        return end(this.interactive ? undefined : result.resultIsError ? 1 : 0);
      case "linger":
        this.consecutiveHangs = 0;
        formatter.wrapper({ kind: "linger", reason: result.reason!, sessionId, terminal: false });
        return end(this.interactive ? undefined : 0);
      case "hang":
      case "budget": {
        if (
          result.outcome === "hang" &&
          options.promptAfterHang &&
          sessionId &&
          this.consecutiveHangs < options.maxHangRetries
        ) {
          this.consecutiveHangs += 1;
          const retry: WrapperDecision = {
            kind: "retry",
            attempt: this.consecutiveHangs,
            maxAttempts: options.maxHangRetries,
            prompt: options.promptAfterHang,
            reason: result.reason!,
            sessionId,
          };
          log.decision(
            "retry",
            {
              attempt: retry.attempt,
              max_attempts: retry.maxAttempts,
              prompt: retry.prompt,
              session_id: sessionId,
            },
            "warn",
          );
          formatter.wrapper(retry);
          return options.promptAfterHang;
        }
        this.consecutiveHangs = 0;
        formatter.wrapper({
          kind: result.outcome,
          reason: result.reason!,
          sessionId,
          terminal: true,
        });
        return end(this.interactive ? undefined : 2);
      }
      case "abnormal": {
        const message = `cursor-agent exited with ${describeExit(result.exit)} without a result${
          result.lastStderr ? `: ${result.lastStderr}` : ""
        }`;
        log.decision(
          "abnormal_exit",
          { code: result.exit?.code, signal: result.exit?.signal, summary: message },
          "error",
        );
        this.hooks.printError(message);
        formatter.wrapper({ kind: "error", message, sessionId, terminal: true });
        return end(1);
      }
      case "cancelled": {
        if (cancel?.kind === "epipe") return 1;
        const signal = cancel?.signal;
        formatter.wrapper({
          kind: "cancelled",
          sessionId,
          terminal: true,
          ...(signal ? { signal } : {}),
        });
        if (cancel?.kind === "turn") return end(undefined);
        return end(cancel ? exitCodeOf(cancel) : 130);
      }
    }
  }

  result(exitCode: number, outcome: string): SessionResult {
    return {
      exitCode,
      outcome,
      flagged: this.flagged || exitCode === 1 || exitCode === 2,
      turns: this.turns,
      sessionId: this.sessionId,
    };
  }
}

/** `-p`: one prompt, one turn (plus automatic retries after hangs), then exit (R-CLI3, R-CLI4). */
export async function runPrintSession(
  context: TurnContext,
  hooks: SessionHooks,
  prompt: string,
): Promise<SessionResult> {
  const session = new Session(context, hooks, false);
  let next = prompt;
  for (;;) {
    const record = await session.turn(next);
    const settled = session.settle(record);
    if (typeof settled === "string") {
      next = settled;
      continue;
    }
    return session.result(settled ?? 0, outcomeOf(record));
  }
}

/** Interactive: a prompt per line, the session resumed across turns (R-CLI5). */
export async function runInteractiveSession(
  context: TurnContext,
  hooks: SessionHooks,
  reader: PromptReader,
  firstPrompt: string | undefined,
): Promise<SessionResult> {
  const session = new Session(context, hooks, true);
  let stop: CancelReason | undefined;
  void hooks.shutdown.then((reason) => {
    stop = reason;
    reader.close();
  });
  const ask = async (): Promise<string | number> => {
    // A shutdown closes the reader, which ends a pending next(). (Racing next() against the
    // shutdown promise would add a reaction to that never-settling promise on every turn.)
    const input = await reader.next();
    if (stop) return exitCodeOf(stop);
    if (input.kind === "eof") return 0;
    if (input.kind === "interrupt") return 130;
    return input.text;
  };
  let next: string | number = firstPrompt ?? (await ask());
  while (typeof next === "string") {
    const record = await session.turn(next);
    const settled = session.settle(record);
    if (typeof settled === "number") return session.result(settled, outcomeOf(record));
    if (stop) return session.result(exitCodeOf(stop), "cancelled");
    next = typeof settled === "string" ? settled : await ask();
  }
  return session.result(next, next === 0 ? "completed" : "cancelled");
}
