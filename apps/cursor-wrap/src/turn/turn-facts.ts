import { type AgentEvent, eventTypeOf, resultInfo, type Usage } from "@cursor-wrap/events";
import type { MonitorSignal } from "@cursor-wrap/monitor";
import { type AgentFailure, classifyFailureLine } from "./failures.js";

/** What a turn has learnt from the agent's output so far. */
export interface TurnFacts {
  /** The session the agent announced (its first `system/init`). */
  sessionId: string | undefined;
  /** The `result` event arrived. */
  resultReceived: boolean;
  resultIsError: boolean;
  /** Duration the result reported, ms. */
  resultDurationMs: number | undefined;
  usage: Usage | undefined;
  /** Tool calls started (background ones included). */
  toolCalls: number;
  /** The first failure the agent reported, on stdout or stderr. */
  failure: AgentFailure | undefined;
  /** The last non-empty, non-JSON stderr line. */
  lastStderr: string | undefined;
}

/** Collects {@link TurnFacts} from a turn's events and stderr lines. Pure: no I/O. */
export interface TurnFactsCollector {
  readonly facts: Readonly<TurnFacts>;
  /** Take one stdout event and the monitor signal it maps to. Returns true for a new session id. */
  event(event: AgentEvent, signal: MonitorSignal): boolean;
  /** Take one stderr line that is not a JSON event. */
  stderrText(text: string): void;
}

/**
 * Collect what a turn needs to report from the agent's output (`resuming`: a `--resume` turn,
 * where "session not found" wording is a failure of its own).
 */
export function createTurnFacts(options: { resuming: boolean }): TurnFactsCollector {
  const facts: TurnFacts = {
    sessionId: undefined,
    resultReceived: false,
    resultIsError: false,
    resultDurationMs: undefined,
    usage: undefined,
    toolCalls: 0,
    failure: undefined,
    lastStderr: undefined,
  };
  const classify = (text: string): AgentFailure | undefined =>
    classifyFailureLine(text, options.resuming);

  return {
    facts,
    event(event, signal) {
      let newSession = false;
      switch (signal.type) {
        case "session":
          if (facts.sessionId === undefined) {
            facts.sessionId = signal.sessionId;
            newSession = true;
          }
          break;
        case "toolStart":
          facts.toolCalls += 1;
          break;
        case "done": {
          const result = resultInfo(event);
          facts.resultReceived = true;
          facts.resultIsError = result?.isError === true;
          facts.resultDurationMs = result?.durationMs;
          facts.usage = result?.usage;
          break;
        }
        default:
          break;
      }
      if (event.kind === "text") facts.failure ??= classify(event.text);
      else if (event.kind === "json" && event.type === "error") {
        const message = event.data.message ?? event.data.error;
        facts.failure ??= classify(String(message)) ?? {
          kind: "agent-error",
          detail: typeof message === "string" ? message : eventTypeOf(event),
        };
      }
      return newSession;
    },
    stderrText(text) {
      if (text.trim()) facts.lastStderr = text.trim();
      facts.failure ??= classify(text);
    },
  };
}
