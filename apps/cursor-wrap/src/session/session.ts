import {
  type AttemptReport,
  type AttemptsSummary,
  DEFAULT_POLICY,
  modelLabel,
  type RecoveryClock,
  type RecoveryPolicy,
  summarizeAttempts,
} from "@cursor-wrap/recovery";
import { agentStatusSummary } from "../agent/agent-status.js";
import {
  agentVersionOf,
  isNewerAgentVersion,
  NEWEST_TESTED_AGENT_VERSION,
} from "../agent/agent-version.js";
import { type Ending, endingFlags } from "../exit-codes.js";
import { writeRecord } from "../log-records.js";
import type { PromptReader } from "../prompt-reader.js";
import { resourceStats } from "../resources.js";
import { type CancelReason, endingOfCancel, type RunControl } from "../run-control.js";
import { runTurn, type TurnContext, type TurnRequest } from "../turn/run-turn.js";
import { failureOfTurn, type TurnResult, turnFailed } from "../turn/turn-result.js";
import { decideAfterTurn, type NextStep } from "./decide-after-turn.js";
import { type WaitDisplay, waitBetweenAttempts } from "./recovery-wait.js";
import { reportTurn, summaryOf } from "./report-turn.js";

/** Waits this long or longer show a countdown (on a terminal); shorter backoffs do not. */
const COUNTDOWN_FROM_MS = 10_000;

/** Everything a session needs. */
export interface SessionContext {
  turn: TurnContext;
  control: Pick<RunControl, "turnStarted" | "turnEnded" | "shutdown" | "printError">;
  /** The session to resume from the first turn, if any. */
  resume: string | undefined;
  promptAfterHang: string | undefined;
  maxHangRetries: number;
  /**
   * How failures other than hangs are recovered from (retries with backoff, fallback models,
   * waits, auth profiles). Default: `DEFAULT_POLICY` of `@cursor-wrap/recovery`.
   */
  recovery?: Omit<RecoveryPolicy, "hang">;
  /** The model the user asked for (`--model`); undefined: the agent's default. */
  model?: string | undefined;
  /** Wall clock and jitter for recovery decisions (tests pass fixed ones). */
  clock?: RecoveryClock;
  /** Shows a countdown while waiting between attempts (a terminal); none: no countdown. */
  waitDisplay?: WaitDisplay;
  /** A text rendering reaches people: it shows errors itself, and the agent's stderr lines are shown. */
  rendersForPeople?: boolean;
  /** Runs one turn. Default: {@link runTurn}; tests pass a fake. */
  runTurn?: (context: TurnContext, request: TurnRequest) => Promise<TurnResult>;
}

/** How the whole session went. */
export interface SessionResult {
  ending: Ending;
  /** For the log's last record: `completed`, `hang`, `failure`, `cancelled`, … */
  outcome: string;
  /** Something went wrong that deserves a look (R-LOG7): a hang, linger, budget or error. */
  flagged: boolean;
  turns: number;
  sessionId: string | undefined;
  /** The agent's version at the last turn, when its install path tells it. */
  agentVersion?: string | undefined;
}

/** The next attempt after a wait, or what cut the wait short. */
type Resumed = { prompt: string | Buffer } | { cancelled: CancelReason };

/** The loop state shared by print and interactive sessions. */
class Session {
  private turns = 0;
  private prompts = 0;
  private turnsFlagged = false;
  private sessionId: string | undefined;
  /** The agent announced a session: later attempts resume it by id. */
  private announced = false;
  private agentVersion: string | undefined;
  private untestedNoted = false;
  /** A fallback model the recovery policy switched to (for the rest of the session). */
  private fallbackModel: string | undefined;
  private profile: string | undefined;
  /** The current prompt's attempts, and its text (a retry may send it again). */
  private attempts: AttemptReport[] = [];
  private original: string | Buffer = "";
  /** The session the next attempt resumes, when a recovery decided it (undefined: a new one). */
  private pendingResume: { sessionId: string | undefined } | undefined;
  private readonly policy: RecoveryPolicy;
  /** How the last turn ended, for a session that ends at the next prompt. */
  lastOutcome: string | undefined;

  constructor(
    private readonly context: SessionContext,
    private readonly mode: "print" | "interactive",
  ) {
    this.sessionId = context.resume;
    this.policy = {
      ...DEFAULT_POLICY,
      ...context.recovery,
      hang: { prompt: context.promptAfterHang, maxRetries: context.maxHangRetries },
    };
  }

  private get model(): string | undefined {
    return this.fallbackModel ?? this.context.model;
  }

  /** Note, once, an agent newer than any cursor-wrap was tested with (shown at info with -p). */
  private noteVersion(agentVersion: string | undefined): void {
    const { log } = this.context.turn;
    if (agentVersion && this.agentVersion && agentVersion !== this.agentVersion) {
      // The CLI updates itself in the background, even between two turns.
      writeRecord(log, "agent_version_changed", { from: this.agentVersion, to: agentVersion });
    }
    this.agentVersion = agentVersion ?? this.agentVersion;
    if (agentVersion && !this.untestedNoted && isNewerAgentVersion(agentVersion)) {
      this.untestedNoted = true;
      writeRecord(log, "agent_version_untested", {
        version: agentVersion,
        newest_tested: NEWEST_TESTED_AGENT_VERSION,
        summary: `cursor-agent ${agentVersion} is newer than the newest version cursor-wrap was tested with (${NEWEST_TESTED_AGENT_VERSION}); if its output changed, failures may not be recognised`,
      });
    }
  }

  /**
   * Run a turn, report it, and decide what follows. `continuing`: another attempt at the
   * current prompt (after a retry); otherwise a new prompt, with an account of its own.
   */
  async turn(
    prompt: string | Buffer,
    continuing = false,
  ): Promise<{ result: TurnResult; step: NextStep }> {
    const { control, turn: turnContext } = this.context;
    if (!continuing) {
      this.prompts += 1;
      this.attempts = [];
      this.original = prompt;
    }
    const controller = new AbortController();
    control.turnStarted(controller);
    this.turns += 1;
    const agentVersion = agentVersionOf(turnContext.settings.agentBin);
    this.noteVersion(agentVersion);
    const resume = this.pendingResume ? this.pendingResume.sessionId : this.sessionId;
    this.pendingResume = undefined;
    let result: TurnResult;
    try {
      result = await (this.context.runTurn ?? runTurn)(turnContext, {
        prompt,
        resume,
        // The user's own --resume/--continue hold until the agent announces its session.
        firstTurn: this.prompts === 1 && !this.announced,
        ...(agentVersion ? { agentVersion } : {}),
        ...(this.fallbackModel === undefined ? {} : { model: this.fallbackModel }),
        ...(this.profile === undefined ? {} : { profile: this.profile }),
        signal: controller.signal,
      });
    } finally {
      control.turnEnded();
    }
    if (result.sessionId !== undefined) this.announced = true;
    this.sessionId = result.sessionId ?? this.sessionId;
    this.lastOutcome = outcomeOf(result);
    writeRecord(turnContext.log, "turn_end", {
      turn: this.turns,
      outcome: result.outcome,
      duration_ms: result.durationMs,
      tool_calls: result.toolCalls,
      session_id: this.sessionId,
      cancel: result.outcome === "cancelled" ? result.cancel : undefined,
      resources: resourceStats(),
      attempt: this.attempts.length + 1,
      ...(this.fallbackModel === undefined ? {} : { model: this.fallbackModel }),
      ...(this.profile === undefined ? {} : { auth_profile: this.profile }),
      ...(result.usage ? { usage: result.usage } : {}),
    });
    if (result.outcome !== "completed" && result.outcome !== "cancelled") this.turnsFlagged = true;
    const step = decideAfterTurn(result, {
      mode: this.mode,
      sessionId: this.sessionId,
      policy: this.policy,
      previous: this.attempts,
      model: this.model,
      profile: this.profile,
      ...(this.context.clock ? { clock: this.context.clock } : {}),
    });
    this.attempts.push({
      failure: failureOfTurn(result)?.kind,
      action:
        step.next === "retry"
          ? step.recovery.action
          : "gaveUp" in step && step.gaveUp
            ? "give-up"
            : undefined,
      model: this.model,
      profile: this.profile,
      outcome: result.outcome,
      durationMs: result.durationMs,
      toolCalls: result.toolCalls,
      usage: result.usage as AttemptReport["usage"],
      waitedMs: 0,
    });
    const summary = step.next === "retry" ? undefined : this.account();
    // After a sign-in failure, ask the agent what it knows of its sign-in (a few ms, once).
    const status =
      turnFailed(result) && result.failure?.kind === "auth" && step.next !== "retry"
        ? await agentStatusSummary(turnContext.settings.agentBin)
        : undefined;
    reportTurn(result, step, {
      formatter: turnContext.formatter,
      log: turnContext.log,
      printError: (message) => control.printError(message),
      sessionId: this.sessionId,
      rendersForPeople: this.context.rendersForPeople === true,
      stderrShown: turnContext.settings.stderrMode !== "none",
      policy: this.policy,
      ...(summary ? { attempts: summary } : {}),
      ...(status ? { agentStatus: status } : {}),
    });
    return { result, step };
  }

  /** What the current prompt's attempts cost, recorded when there was more than one. */
  private account(): AttemptsSummary {
    const summary = summarizeAttempts(this.attempts);
    if (summary.attempts > 1) {
      writeRecord(this.context.turn.log, "attempts_summary", {
        attempts: this.attempts.map((attempt, index) => ({
          attempt: index + 1,
          model: modelLabel(attempt.model),
          auth_profile: attempt.profile,
          outcome: attempt.outcome,
          failure: attempt.failure,
          action: attempt.action,
          duration_ms: attempt.durationMs,
          tool_calls: attempt.toolCalls,
          usage: attempt.usage,
          waited_ms: attempt.waitedMs,
        })),
        usage: summary.usage,
        models: summary.models,
        waited_ms: summary.waitedMs,
        duration_ms: summary.durationMs,
        tool_calls: summary.toolCalls,
        summary: describeAttempts(summary),
      });
    }
    return summary;
  }

  /**
   * Act on a decision to try again: switch model or auth profile, and wait out its delay (a
   * countdown on a terminal; Ctrl+C or a signal ends the wait). Returns the next attempt's
   * prompt, or what cut the wait short (the turn's output is then closed with a cancel).
   */
  async retry(step: Extract<NextStep, { next: "retry" }>): Promise<Resumed> {
    const { recovery } = step;
    const { control, turn: turnContext } = this.context;
    if (recovery.action === "switch-model") this.fallbackModel = recovery.model;
    if (recovery.action === "switch-profile") this.profile = recovery.profile;
    this.pendingResume = { sessionId: recovery.resume };
    const next = { prompt: step.prompt ?? this.original };
    if (recovery.delayMs <= 0) return next;
    const controller = new AbortController();
    control.turnStarted(controller);
    const display =
      recovery.action === "wait-until" || recovery.delayMs >= COUNTDOWN_FROM_MS
        ? this.context.waitDisplay
        : undefined;
    display?.start(recovery.why, recovery.delayMs);
    let outcome: Awaited<ReturnType<typeof waitBetweenAttempts>>;
    try {
      outcome = await waitBetweenAttempts(recovery.delayMs, controller.signal);
    } finally {
      display?.stop();
      control.turnEnded();
    }
    const last = this.attempts.at(-1);
    if (last) last.waitedMs = outcome.waitedMs;
    const reason = outcome.cancelled ? (controller.signal.reason as CancelReason) : undefined;
    const signal = reason && reason.kind !== "output" ? reason.signal : undefined;
    writeRecord(turnContext.log, "wait_ended", {
      waited_ms: outcome.waitedMs,
      cancelled: outcome.cancelled,
      signal,
      summary: outcome.cancelled
        ? `the wait before the next attempt was cut short${signal ? ` by ${signal}` : ""} after ${outcome.waitedMs} ms; no further attempt`
        : `waited ${outcome.waitedMs} ms before the next attempt`,
    });
    if (!reason) return next;
    // The prompt ends here: its output is closed as a cancelled turn's is.
    if (reason.kind !== "output") {
      turnContext.formatter.wrapper({
        kind: "cancelled",
        terminal: true,
        ...(this.sessionId ? { sessionId: this.sessionId } : {}),
        ...(signal ? { signal } : {}),
      });
      turnContext.formatter.endTurn(summaryOf(undefined, this.account()));
    }
    return { cancelled: reason };
  }

  result(ending: Ending, outcome: string): SessionResult {
    return {
      ending,
      outcome,
      flagged: this.turnsFlagged || endingFlags(ending),
      turns: this.turns,
      sessionId: this.sessionId,
      agentVersion: this.agentVersion,
    };
  }
}

/** `3 attempts (gpt-5, auto): 1,300 in / 90 out tokens, waited 4.5s`. */
function describeAttempts(summary: AttemptsSummary): string {
  const tokens = summary.usage
    ? `: ${(summary.usage.inputTokens ?? 0).toLocaleString("en-US")} in / ${(summary.usage.outputTokens ?? 0).toLocaleString("en-US")} out tokens`
    : "";
  const waited = summary.waitedMs > 0 ? `, waited ${(summary.waitedMs / 1000).toFixed(1)}s` : "";
  return `${summary.attempts} attempts (${summary.models.join(", ")})${tokens}${waited}`;
}

/** The outcome recorded for a turn that ended the session. */
function outcomeOf(result: TurnResult): string {
  return turnFailed(result) ? "failure" : result.outcome;
}

/** `-p`: one prompt, then exit; failures retried as the recovery policy says (R-CLI3, R-CLI4). */
export async function runPrintSession(
  context: SessionContext,
  prompt: string | Buffer,
): Promise<SessionResult> {
  const session = new Session(context, "print");
  let next: string | Buffer = prompt;
  let continuing = false;
  for (;;) {
    const { result, step } = await session.turn(next, continuing);
    switch (step.next) {
      case "retry": {
        const resumed = await session.retry(step);
        if ("cancelled" in resumed) {
          return session.result(endingOfCancel(resumed.cancelled), "cancelled");
        }
        next = resumed.prompt;
        continuing = true;
        continue;
      }
      case "exit":
      case "quit":
        return session.result(step.ending, outcomeOf(result));
      case "ask":
        // Print sessions never ask; a step that would is a completed turn.
        return session.result({ kind: "completed" }, outcomeOf(result));
    }
  }
}

/** Interactive: a prompt per line, the session resumed across turns (R-CLI5). */
export async function runInteractiveSession(
  context: SessionContext,
  reader: PromptReader,
  firstPrompt: string | undefined,
): Promise<SessionResult> {
  const session = new Session(context, "interactive");
  let stop: CancelReason | undefined;
  void context.control.shutdown.then((reason) => {
    stop = reason;
    reader.close();
  });
  type Asked = { prompt: string; continuing?: boolean } | { ending: Ending; outcome: string };
  const ask = async (): Promise<Asked> => {
    // A shutdown closes the reader, which ends a pending next(). (Racing next() against the
    // shutdown promise would add a reaction to that never-settling promise on every turn.)
    const input = await reader.next();
    if (stop) return { ending: endingOfCancel(stop), outcome: "cancelled" };
    switch (input.kind) {
      case "eof":
        // The session's outcome is how its last turn went: one that hung says "hang".
        return { ending: { kind: "completed" }, outcome: session.lastOutcome ?? "completed" };
      case "interrupt":
        return { ending: { kind: "signal", signal: "SIGINT" }, outcome: "cancelled" };
      case "hangup":
        // The terminal went away: the same ending as the SIGHUP that comes with it.
        return { ending: { kind: "signal", signal: "SIGHUP" }, outcome: "signal SIGHUP" };
      case "prompt":
        return { prompt: input.text };
    }
  };
  let asked: Asked = firstPrompt === undefined ? await ask() : { prompt: firstPrompt };
  while ("prompt" in asked) {
    const { result, step } = await session.turn(asked.prompt, asked.continuing === true);
    if (step.next === "exit" || step.next === "quit") {
      return session.result(step.ending, outcomeOf(result));
    }
    if (stop) return session.result(endingOfCancel(stop), "cancelled");
    if (step.next === "retry") {
      const resumed = await session.retry(step);
      if (stop) return session.result(endingOfCancel(stop), "cancelled");
      // Ctrl+C during the wait: back to the prompt.
      asked =
        "cancelled" in resumed
          ? await ask()
          : { prompt: resumed.prompt.toString(), continuing: true };
    } else {
      asked = await ask();
    }
  }
  return session.result(asked.ending, asked.outcome);
}
