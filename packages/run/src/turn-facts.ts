import {
  type AgentEvent,
  eventTypeOf,
  isSupportedProtocolVersion,
  type JsonEvent,
  protocolVersionOf,
  resultInfo,
  type Usage,
} from "@cursor-wrap/events";
import type { MonitorSignal } from "@cursor-wrap/monitor";
import {
  type AgentFailure,
  createCursorFailureReader,
  failureOf,
  recognizeCursorLine,
} from "@cursor-wrap/recovery";

/** What a turn has learnt from the agent's output so far. */
export interface TurnFacts {
  /** The session the agent announced (its first `system/init`). */
  sessionId: string | undefined;
  /** The model its `system/init` named (`gpt-5`, `Auto`): the one it answers with. */
  agentModel: string | undefined;
  /** The `result` event arrived. */
  resultReceived: boolean;
  resultIsError: boolean;
  /** Duration the result reported, ms. */
  resultDurationMs: number | undefined;
  /** The result's text (the agent's answer), when it has one. */
  resultText: string | undefined;
  /** The failure an error result's own words name (a usage limit), if they name one. */
  resultFailure: AgentFailure | undefined;
  usage: Usage | undefined;
  /** Tool calls started (background ones included). */
  toolCalls: number;
  /** The first failure the agent named, on stdout or stderr (or an unsupported protocol). */
  failure: AgentFailure | undefined;
  /** The last non-empty, non-JSON stderr line. */
  lastStderr: string | undefined;
  /** At least one event arrived: the turn was under way. */
  streamStarted: boolean;
  /** The agent's last lifecycle event said it was reconnecting or retrying, and nothing followed. */
  reconnecting: boolean;
  /** The agent did work: a tool call or assistant text. */
  progressed: boolean;
  /** The protocol version the stream began with (`{"type":"protocol",…}`), if it did. */
  protocolVersion: string | undefined;
  /**
   * This side refused the turn (an unsupported protocol version, a tool call the turn does not
   * allow): `failure` says why, and a result that came anyway does not count.
   */
  rejected: boolean;
}

/** Collects {@link TurnFacts} from a turn's events and stderr lines. Pure: no I/O. */
export interface TurnFactsCollector {
  readonly facts: Readonly<TurnFacts>;
  /** Take one stdout event and the monitor signal it maps to. Returns true for a new session id. */
  event(event: AgentEvent, signal: MonitorSignal): boolean;
  /** Take one stderr line that is not a JSON event. */
  stderrText(text: string): void;
  /**
   * Take an error event written on stderr (the agent mirrors its stream there): its words count
   * when they name a failure, as a stderr line's do (unknown words make no `agent-error`).
   */
  stderrError(event: JsonEvent): void;
  /** The caller refused the turn for `failure` (it wins over anything the agent said). */
  reject(failure: AgentFailure): void;
}

/**
 * Collect what a turn needs to report from the agent's output (`resuming`: a `--resume` turn,
 * where "session not found" wording is a failure of its own). Failures are recognised by
 * `@cursor-wrap/recovery`'s readers of Cursor's wording; a stream that begins with a protocol
 * event naming a version not supported is a `protocol` failure.
 */
export function createTurnFacts(options: { resuming: boolean }): TurnFactsCollector {
  const reader = createCursorFailureReader({ resuming: options.resuming });
  const facts: TurnFacts = {
    sessionId: undefined,
    resultReceived: false,
    resultIsError: false,
    resultDurationMs: undefined,
    resultText: undefined,
    resultFailure: undefined,
    usage: undefined,
    toolCalls: 0,
    failure: undefined,
    lastStderr: undefined,
    streamStarted: false,
    reconnecting: false,
    progressed: false,
    agentModel: undefined,
    protocolVersion: undefined,
    rejected: false,
  };
  let rejection: AgentFailure | undefined;
  const update = (): void => {
    facts.failure = rejection ?? reader.failure;
  };
  const errorMessage = (event: JsonEvent): string => {
    const { message, error } = event.data;
    // `{"message": …}`, `{"error": "…"}` or `{"error": {"message": …}}` (the API's own shape).
    const nested =
      error !== null && typeof error === "object"
        ? (error as { message?: unknown }).message
        : undefined;
    for (const candidate of [message, error, nested]) {
      if (typeof candidate === "string" && candidate !== "") return candidate;
    }
    return eventTypeOf(event);
  };
  const reject = (failure: AgentFailure): void => {
    if (rejection) return;
    rejection = failure;
    facts.rejected = true;
    update();
  };

  return {
    facts,
    event(event, signal) {
      let newSession = false;
      if (event.kind === "json") {
        if (!facts.streamStarted) {
          // Only a stream that begins with it announces a protocol (the adapter contract).
          const version = protocolVersionOf(event);
          if (version !== undefined) {
            facts.protocolVersion = version;
            if (!isSupportedProtocolVersion(version)) {
              reject(failureOf("protocol", `protocol version ${version}`));
            }
          }
        }
        facts.streamStarted = true;
        switch (event.type) {
          case "connection":
            facts.reconnecting = event.subtype !== "reconnected";
            break;
          case "retry":
            facts.reconnecting = true;
            break;
          case "assistant":
          case "thinking":
          case "tool_call":
          case "result":
            facts.reconnecting = false;
            if (event.type === "assistant") facts.progressed = true;
            break;
          default:
            break;
        }
      }
      switch (signal.type) {
        case "session":
          if (facts.sessionId === undefined) {
            facts.sessionId = signal.sessionId;
            newSession = true;
          }
          if (facts.agentModel === undefined && event.kind === "json") {
            const model = event.data.model;
            if (typeof model === "string" && model !== "") facts.agentModel = model;
          }
          break;
        case "toolStart":
          facts.toolCalls += 1;
          facts.progressed = true;
          break;
        case "done": {
          const result = resultInfo(event);
          facts.resultReceived = true;
          facts.resultIsError = result?.isError === true;
          facts.resultDurationMs = result?.durationMs;
          facts.resultText = result?.text || undefined;
          facts.usage = result?.usage;
          break;
        }
        default:
          break;
      }
      if (event.kind === "text") reader.line(event.text);
      else if (event.kind === "json" && event.type === "error")
        reader.errorEvent(errorMessage(event));
      else if (signal.type === "done" && facts.resultIsError && facts.resultText) {
        // An error result's own words may name the failure; what was said before it does not
        // make the result that failure (the agent may have got past it).
        facts.resultFailure = recognizeCursorLine(facts.resultText, options);
      }
      update();
      return newSession;
    },
    stderrError(event) {
      reader.line(errorMessage(event));
      update();
    },
    stderrText(text) {
      if (text.trim()) facts.lastStderr = text.trim();
      reader.line(text);
      update();
    },
    reject,
  };
}
