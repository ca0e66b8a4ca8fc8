import {
  type AgentFailure,
  type AttemptReport,
  type AttemptsSummary,
  DEFAULT_POLICY,
  modelLabel,
  type RecoveryClock,
  type RecoveryPolicy,
  summarizeAttempts,
  sumUsage,
} from "@cursor-wrap/recovery";
import type { ExitInfo } from "@cursor-wrap/supervisor";
import { agentStatusSummary } from "./agent-status.js";
import {
  agentVersionOf,
  isNewerAgentVersion,
  NEWEST_TESTED_AGENT_VERSION,
} from "./agent-version.js";
import { decideAfterTurn, type NextStep } from "./decide-after-turn.js";
import {
  type CancelReason,
  type Ending,
  endingFlags,
  endingOfCancel,
  exitCodeOf,
} from "./ending.js";
import { writeRecord } from "./log-records.js";
import { type WaitDisplay, waitBetweenAttempts } from "./recovery-wait.js";
import { reportTurn, summaryOf } from "./report-turn.js";
import { resourceStats } from "./resources.js";
import { agentEnvironment, runTurn, type TurnContext, type TurnRequest } from "./run-turn.js";
import { failureOfTurn, type TurnResult, turnFailed } from "./turn-result.js";

/** Waits this long or longer show a countdown (on a terminal); shorter backoffs do not. */
const COUNTDOWN_FROM_MS = 10_000;

/** What a prompt source gives: a prompt, or why there is none (see {@link PromptSource}). */
export type PromptInput =
  | { kind: "prompt"; text: string }
  /** No more prompts: the session ends as its last turn went. */
  | { kind: "eof" }
  /** The person at the prompt pressed Ctrl+C: the session ends (130). */
  | { kind: "interrupt" }
  /** The terminal went away: the session ends (129). */
  | { kind: "hangup" };

/** Where an interactive session's prompts come from, one at a time. */
export interface PromptSource {
  /**
   * The next prompt; resolves `eof` once closed. `afterCancel`: the turn before was cancelled
   * by Ctrl+C, so a Ctrl+C right after the prompt appears is likely a second tap of that one
   * (a terminal's source may take it so, instead of ending the session).
   */
  next(options?: { afterCancel?: boolean }): Promise<PromptInput>;
  /** Stop reading: a pending `next()` resolves `eof`. */
  close(): void;
}

/** How a session is cancelled, and where its one-line messages go. */
export interface SessionControl {
  /** A turn (or a wait between attempts) started: a cancel aborts `controller`. */
  turnStarted(controller: AbortController): void;
  turnEnded(): void;
  /** Resolves when the whole run must stop (a signal, `cancel()`, stdout failing). */
  readonly shutdown: Promise<CancelReason>;
  /** Why the run was already stopped, if it was: no agent is started then. */
  stopped?(): CancelReason | undefined;
  /** One line for people (the CLI's stderr); a library run has none. */
  printError(message: string): void;
}

/** What a new attempt at a prompt runs with, for those who follow the run. */
export interface AttemptStart {
  /** The session's turns so far, this one included. */
  turn: number;
  /** Which attempt at the current prompt (1 for the first). */
  attempt: number;
  /** The session resumed, if any. */
  resume: string | undefined;
  /** A fallback model, when the recovery policy switched to one. */
  model?: string;
  /** An auth profile, when the recovery policy switched to one. */
  profile?: string;
}

/** Everything a session needs. */
export interface SessionContext {
  turn: TurnContext;
  control: SessionControl;
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
  /** Told as each attempt starts (before its agent does). */
  onAttempt?: (attempt: AttemptStart) => void;
}

/** One attempt at a prompt, as the result reports it. */
export interface RunAttempt extends AttemptReport {
  /** What went wrong, if something did (the agent's words, what they carry). */
  failureDetail: AgentFailure | undefined;
  /** How the agent process ended. */
  exit: ExitInfo;
}

/** How the whole session went. */
export interface SessionResult {
  ending: Ending;
  /** The exit code the CLI gives this ending (0, 1, 2, 128+n). */
  exitCode: number;
  /** For the log's last record: `completed`, `hang`, `failure`, `cancelled`, … */
  outcome: string;
  /** Something went wrong that deserves a look (R-LOG7): a hang, linger, budget or error. */
  flagged: boolean;
  turns: number;
  sessionId: string | undefined;
  /** The agent's version at the last turn, when its install path tells it. */
  agentVersion?: string | undefined;
  /** How the last agent process ended; undefined when none started. */
  exit: ExitInfo | undefined;
  /** The last result's text (the agent's answer), when a turn gave one. */
  answer: string | undefined;
  /** Tokens summed over every attempt that reported some (`inputTokens`, `outputTokens`, …). */
  usage: Record<string, number> | undefined;
  /** Each attempt's failure, in order (an empty list for a run that never failed). */
  failures: AgentFailure[];
  /** Every attempt of every prompt, in order. */
  attempts: RunAttempt[];
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
  /** An attempt at the current prompt did work: a later one goes on from it, never redoes it. */
  private progressed = false;
  private original: string | Buffer = "";
  /** The session the next attempt resumes, when a recovery decided it (undefined: a new one). */
  private pendingResume: { sessionId: string | undefined } | undefined;
  private readonly policy: RecoveryPolicy;
  /** Every attempt of every prompt, for the result. */
  private readonly history: RunAttempt[] = [];
  private lastExit: ExitInfo | undefined;
  private answer: string | undefined;
  /** How the last turn ended, for a session that ends at the next prompt. */
  lastOutcome: string | undefined;
  /** The last turn was ended by Ctrl+C (cancelled, or its wait for a lingering agent cut). */
  lastInterrupted = false;

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
      this.progressed = false;
      this.original = prompt;
    }
    const controller = new AbortController();
    control.turnStarted(controller);
    this.turns += 1;
    const agentVersion = agentVersionOf(turnContext.settings.agentBin);
    this.noteVersion(agentVersion);
    const resume = this.pendingResume ? this.pendingResume.sessionId : this.sessionId;
    this.pendingResume = undefined;
    this.context.onAttempt?.({
      turn: this.turns,
      attempt: this.attempts.length + 1,
      resume,
      ...(this.fallbackModel === undefined ? {} : { model: this.fallbackModel }),
      ...(this.profile === undefined ? {} : { profile: this.profile }),
    });
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
    this.lastExit = result.exit;
    if (result.answer !== undefined) this.answer = result.answer;
    this.sessionId = result.sessionId ?? this.sessionId;
    this.lastOutcome = outcomeOf(result);
    this.lastInterrupted =
      result.outcome === "cancelled" ||
      (result.outcome === "completed" && result.interrupted === true);
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
      ...(result.agentModel === undefined ? {} : { agent_model: result.agentModel }),
      ...(this.profile === undefined ? {} : { auth_profile: this.profile }),
      ...(result.usage ? { usage: result.usage } : {}),
    });
    if (result.outcome !== "completed" && result.outcome !== "cancelled") this.turnsFlagged = true;
    if (result.progressed === true) this.progressed = true;
    const step = decideAfterTurn(result, {
      mode: this.mode,
      sessionId: this.sessionId,
      progressed: this.progressed,
      policy: this.policy,
      previous: this.attempts,
      model: this.model,
      profile: this.profile,
      ...(this.context.clock ? { clock: this.context.clock } : {}),
    });
    const failure = failureOfTurn(result);
    const attempt: RunAttempt = {
      failure: failure?.kind,
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
      failureDetail: failure,
      exit: result.exit,
    };
    this.attempts.push(attempt);
    this.history.push(attempt);
    const summary = step.next === "retry" ? undefined : this.account();
    // After a sign-in failure, ask the agent what it knows of its sign-in (a few ms, once),
    // with the turn's credentials: its environment (an auth profile's key) and its flags.
    const status =
      turnFailed(result) && result.failure?.kind === "auth" && step.next !== "retry"
        ? await agentStatusSummary(turnContext.settings.agentBin, {
            args: turnContext.settings.statusArgs?.({ profile: this.profile }) ?? [],
            env: agentEnvironment(turnContext, { profile: this.profile }),
          })
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
    const by = signal ?? (reason?.kind === "shutdown" ? reason.message : undefined);
    writeRecord(turnContext.log, "wait_ended", {
      waited_ms: outcome.waitedMs,
      cancelled: outcome.cancelled,
      signal,
      summary: outcome.cancelled
        ? `the wait before the next attempt was cut short${by ? ` by ${by}` : ""} after ${outcome.waitedMs} ms; no further attempt`
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
      exitCode: exitCodeOf(ending),
      outcome,
      flagged: this.turnsFlagged || endingFlags(ending),
      turns: this.turns,
      sessionId: this.sessionId,
      agentVersion: this.agentVersion,
      exit: this.lastExit,
      answer: this.answer,
      usage: sumUsage(this.history.map((attempt) => attempt.usage)),
      failures: this.history.flatMap((attempt) =>
        attempt.failureDetail ? [attempt.failureDetail] : [],
      ),
      attempts: [...this.history],
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
  const stoppedBefore = context.control.stopped?.();
  if (stoppedBefore) return session.result(endingOfCancel(stoppedBefore), "cancelled");
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
  reader: PromptSource,
  firstPrompt: string | undefined,
): Promise<SessionResult> {
  const session = new Session(context, "interactive");
  let stop: CancelReason | undefined = context.control.stopped?.();
  if (stop) return session.result(endingOfCancel(stop), "cancelled");
  void context.control.shutdown.then((reason) => {
    stop = reason;
    reader.close();
  });
  type Asked = { prompt: string; continuing?: boolean } | { ending: Ending; outcome: string };
  const ask = async (): Promise<Asked> => {
    // A shutdown closes the reader, which ends a pending next(). (Racing next() against the
    // shutdown promise would add a reaction to that never-settling promise on every turn.)
    const input = await reader.next({ afterCancel: session.lastInterrupted });
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
