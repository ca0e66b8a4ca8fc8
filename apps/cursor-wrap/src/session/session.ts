import { agentStatusSummary } from "../agent/agent-status.js";
import { agentVersionOf } from "../agent/agent-version.js";
import { type Ending, endingFlags } from "../exit-codes.js";
import { writeRecord } from "../log-records.js";
import type { PromptReader } from "../prompt-reader.js";
import { resourceStats } from "../resources.js";
import { type CancelReason, endingOfCancel, type RunControl } from "../run-control.js";
import { runTurn, type TurnContext, type TurnRequest } from "../turn/run-turn.js";
import { type TurnResult, turnFailed } from "../turn/turn-result.js";
import { decideAfterTurn, type NextStep, nextConsecutiveHangs } from "./decide-after-turn.js";
import { reportTurn } from "./report-turn.js";

/** Everything a session needs. */
export interface SessionContext {
  turn: TurnContext;
  control: Pick<RunControl, "turnStarted" | "turnEnded" | "shutdown" | "printError">;
  /** The session to resume from the first turn, if any. */
  resume: string | undefined;
  promptAfterHang: string | undefined;
  maxHangRetries: number;
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

/** The loop state shared by print and interactive sessions. */
class Session {
  private turns = 0;
  private turnsFlagged = false;
  private sessionId: string | undefined;
  private consecutiveHangs = 0;
  private agentVersion: string | undefined;
  /** How the last turn ended, for a session that ends at the next prompt. */
  lastOutcome: string | undefined;

  constructor(
    private readonly context: SessionContext,
    private readonly mode: "print" | "interactive",
  ) {
    this.sessionId = context.resume;
  }

  /** Run a turn, report it, and decide what follows. */
  async turn(prompt: string | Buffer): Promise<{ result: TurnResult; step: NextStep }> {
    const { control, turn: turnContext } = this.context;
    const controller = new AbortController();
    control.turnStarted(controller);
    this.turns += 1;
    const agentVersion = agentVersionOf(turnContext.settings.agentBin);
    if (agentVersion && this.agentVersion && agentVersion !== this.agentVersion) {
      // The CLI updates itself in the background, even between two turns.
      writeRecord(turnContext.log, "agent_version_changed", {
        from: this.agentVersion,
        to: agentVersion,
      });
    }
    this.agentVersion = agentVersion ?? this.agentVersion;
    let result: TurnResult;
    try {
      result = await (this.context.runTurn ?? runTurn)(turnContext, {
        prompt,
        resume: this.sessionId,
        firstTurn: this.turns === 1,
        ...(agentVersion ? { agentVersion } : {}),
        signal: controller.signal,
      });
    } finally {
      control.turnEnded();
    }
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
    });
    if (result.outcome !== "completed" && result.outcome !== "cancelled") this.turnsFlagged = true;
    const step = decideAfterTurn(result, {
      mode: this.mode,
      sessionId: this.sessionId,
      promptAfterHang: this.context.promptAfterHang,
      maxHangRetries: this.context.maxHangRetries,
      consecutiveHangs: this.consecutiveHangs,
    });
    this.consecutiveHangs = nextConsecutiveHangs(result, step, this.consecutiveHangs);
    // After a sign-in failure, ask the agent what it knows of its sign-in (a few ms, once).
    const status =
      turnFailed(result) && result.failure?.kind === "auth"
        ? await agentStatusSummary(turnContext.settings.agentBin)
        : undefined;
    reportTurn(result, step, {
      formatter: turnContext.formatter,
      log: turnContext.log,
      printError: (message) => control.printError(message),
      sessionId: this.sessionId,
      rendersForPeople: this.context.rendersForPeople === true,
      stderrShown: turnContext.settings.stderrMode !== "none",
      ...(status ? { agentStatus: status } : {}),
    });
    return { result, step };
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

/** The outcome recorded for a turn that ended the session. */
function outcomeOf(result: TurnResult): string {
  return turnFailed(result) ? "failure" : result.outcome;
}

/** `-p`: one prompt, one turn (plus automatic retries after hangs), then exit (R-CLI3, R-CLI4). */
export async function runPrintSession(
  context: SessionContext,
  prompt: string | Buffer,
): Promise<SessionResult> {
  const session = new Session(context, "print");
  let next: string | Buffer = prompt;
  for (;;) {
    const { result, step } = await session.turn(next);
    switch (step.next) {
      case "retry":
        next = step.prompt;
        continue;
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
  type Asked = { prompt: string } | { ending: Ending; outcome: string };
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
    const { result, step } = await session.turn(asked.prompt);
    if (step.next === "exit" || step.next === "quit") {
      return session.result(step.ending, outcomeOf(result));
    }
    if (stop) return session.result(endingOfCancel(stop), "cancelled");
    asked = step.next === "retry" ? { prompt: step.prompt } : await ask();
  }
  return session.result(asked.ending, asked.outcome);
}
