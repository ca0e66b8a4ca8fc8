import { createAssistantText } from "./assistant-text.js";
import {
  type ContractErrorCode,
  type ContractErrorSource,
  contractErrorCode,
} from "./contract-errors.js";
import {
  type ContractTool,
  canonicalToolName,
  checkToolCall,
  toolCallArgs,
} from "./contract-tools.js";
import { assistantMessage, resultInfo, timestampOf } from "./extract.js";
import { toolCallInfo, toolResult } from "./tool-call.js";
import type { EventLike, Instant, JsonObject } from "./types.js";
import { firstLine, stringAt } from "./values.js";

/** The protocol version of the normalised stream this package writes. */
export const CONTRACT_PROTOCOL_VERSION = "1.0";

/** How a turn ended, in the contract's `done` event. */
export type ContractFinishReason =
  /** The agent gave its result (also when it then lingered and was killed). */
  | "stop"
  /** The turn failed: an `error` event before `done` says why. */
  | "error"
  /** The turn was cancelled (a signal, `AgentRun.cancel()`, an abort). */
  | "cancelled";

/** What a `tool_call` event says of one call. */
export interface ContractToolCall {
  /** The call's id, the same on its start and its end. */
  id: string;
  /** Its canonical name (see `canonicalToolName`). */
  name: string;
  /** Its arguments, as the agent's event gives them. */
  args: JsonObject;
  status: "started" | "completed" | "failed";
  /** From start to end, ms (on the end, when the start was seen). */
  durationMs?: number;
  /** One line on how it went (on the end): `exit 0`, `42 lines`, `rejected: …`. */
  summary?: string;
}

/** Tokens a turn used, in the contract's words. */
export interface ContractUsage {
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens read from the provider's cache, when the agent reports them. */
  cacheReadTokens?: number;
  /** Prompt tokens written to the provider's cache, when the agent reports them. */
  cacheWriteTokens?: number;
}

/** An error of the turn. */
export interface ContractError {
  code: ContractErrorCode;
  /** One line or a few for people. */
  message: string;
  /** It ends the turn (false: a recovery follows, or the turn goes on, as after a linger). */
  fatal: boolean;
}

type Envelope<Type extends string, Data> = {
  type: Type;
  /** The turn's id, echoed from the turn input when there was one. */
  turnId?: string;
  data: Data;
};

/**
 * One event of the adapter contract's normalised stream: `protocol` first, then
 * `assistant_delta`, `tool_call`, `usage` and `error` in the order they happen, and `done`
 * exactly once, last.
 */
export type ContractEvent =
  | Envelope<"protocol", { version: string }>
  | Envelope<"assistant_delta", { content: string }>
  | Envelope<"tool_call", ContractToolCall>
  | Envelope<"usage", ContractUsage>
  | Envelope<"error", ContractError>
  | Envelope<"done", { finishReason: ContractFinishReason }>;

/** The type of a contract event: `protocol`, `assistant_delta`, `tool_call`, … */
export type ContractEventType = ContractEvent["type"];

/** Options for {@link createContractNormalizer}. */
export interface ContractNormalizerOptions {
  /** Echoed as `turnId` in every event. Default: none. */
  turnId?: string;
  /**
   * The turn's allow-list: a call whose canonical name none of them allows is an `error`
   * (`TOOL_NOT_ALLOWED`), one whose arguments fail its check `TOOL_ARGS_INVALID`. Default: every
   * tool is allowed.
   */
  tools?: readonly ContractTool[];
  /** Those errors end the turn (`fatal`): the caller stops the agent. Default false. */
  enforceTools?: boolean;
  /**
   * The agent's own `error` events become `error` events (`AGENT_ERROR`). Default true; a caller
   * that names failures itself (`@cursor-wrap/run`, which reads the agent's stderr too) turns
   * this off and calls `error()`.
   */
  agentErrors?: boolean;
}

/** Turns agent events into the contract's normalised events, one turn at a time. */
export interface ContractNormalizer {
  /**
   * The events one agent event maps to, in order (often none: thinking, system lines); the
   * first call of a turn puts `protocol` first. Nothing after {@link end}.
   */
  push(event: EventLike & { recvAt?: Instant }): readonly ContractEvent[];
  /**
   * An error the caller found (a verdict, a failure it named): `source` is a key of
   * `CONTRACT_ERRORS`. A fatal error of a code already given as fatal is not repeated.
   */
  error(
    source: ContractErrorSource | string,
    message: string,
    fatal: boolean,
  ): readonly ContractEvent[];
  /**
   * The calls still open, each as a `tool_call` that `failed` with `summary` (the attempt that
   * ran them is over: its agent was stopped, or exited without ending them). `end()` does it
   * too, so a call started is always ended.
   */
  abandonCalls(summary: string): readonly ContractEvent[];
  /**
   * `done`, once: later calls return nothing. Without a reason: `stop` when the turn has a
   * result and no fatal error, else `error`. Calls still open are ended first, as failed.
   */
  end(finishReason?: ContractFinishReason): readonly ContractEvent[];
  /** `done` was given. */
  readonly ended: boolean;
  /** A result arrived. */
  readonly resultSeen: boolean;
  /** A fatal error was given. */
  readonly failed: boolean;
}

const NONE: readonly ContractEvent[] = Object.freeze([]);

interface OpenCall {
  name: string;
  args: JsonObject;
  /** The agent's timestamp_ms of the start, else the receive time (monotonic), ms. */
  agentStartedAt: number | undefined;
  receivedAt: number | undefined;
}

/**
 * The adapter contract's normalised stream over cursor-agent's events (usable on any stream of
 * them, a capture included, without the runner):
 *
 * - `assistant_delta {content}`: from partial output when the agent streams it, else one per
 *   message; the copies partial output repeats are dropped (the text renderer's rule,
 *   `createAssistantText`), so the deltas joined are the assistant's text, once; a turn with
 *   no message but a result's text (what `--output-format json` prints) gets that text as one;
 * - `tool_call {id, name, args, status, durationMs?, summary?}` at each call's start and end;
 * - `usage {promptTokens, completionTokens, cacheReadTokens?, cacheWriteTokens?}` from the result;
 * - `error {code, message, fatal}`: a result that says `is_error`, the agent's own `error`
 *   events, a tool the turn does not allow, and whatever the caller adds with `error()`;
 * - `done {finishReason}` from `end()`, after a `tool_call` that `failed` for each call still
 *   open (an attempt the caller ends early can end its calls with `abandonCalls`).
 */
export function createContractNormalizer(
  options: ContractNormalizerOptions = {},
): ContractNormalizer {
  const { turnId, tools } = options;
  const enforce = options.enforceTools === true;
  const agentErrors = options.agentErrors !== false;
  const assistant = createAssistantText();
  const calls = new Map<string, OpenCall>();
  /** Calls ended as failed when their attempt was abandoned (see `abandonCalls`). */
  const abandoned = new Set<string>();
  const fatalCodes = new Set<ContractErrorCode>();
  let started = false;
  let ended = false;
  let resultSeen = false;
  let resultIsError = false;

  const envelope = <Type extends ContractEventType>(
    type: Type,
    data: Extract<ContractEvent, { type: Type }>["data"],
  ): ContractEvent =>
    (turnId === undefined ? { type, data } : { type, turnId, data }) as ContractEvent;

  /** The events of one step, with `protocol` first at the turn's first. */
  const begin = (): ContractEvent[] => {
    if (started) return [];
    started = true;
    return [envelope("protocol", { version: CONTRACT_PROTOCOL_VERSION })];
  };

  const errorEvents = (
    out: ContractEvent[],
    code: ContractErrorCode,
    message: string,
    fatal: boolean,
  ): void => {
    if (fatal) {
      if (fatalCodes.has(code)) return;
      fatalCodes.add(code);
    }
    out.push(envelope("error", { code, message, fatal }));
  };

  const toolEvents = (event: EventLike & { recvAt?: Instant }, out: ContractEvent[]): void => {
    const info = toolCallInfo(event);
    if (!info || event.kind !== "json") return;
    const id = info.callId;
    if (event.subtype === "started") {
      abandoned.delete(id);
      const name = canonicalToolName(info);
      const args = toolCallArgs(info);
      calls.set(id, {
        name,
        args,
        agentStartedAt: timestampOf(event),
        receivedAt: event.recvAt?.mono,
      });
      out.push(envelope("tool_call", { id, name, args, status: "started" }));
      if (tools) {
        const violation = checkToolCall(info, tools);
        if (violation) {
          errorEvents(out, contractErrorCode(violation.source), violation.message, enforce);
        }
      }
      return;
    }
    if (event.subtype !== "completed" && event.subtype !== "failed") return;
    const open = calls.get(id);
    // Ended already, as failed, with the attempt that ran it: a resumed agent's word on it
    // comes too late to end it twice.
    if (open === undefined && abandoned.delete(id)) return;
    calls.delete(id);
    const result = toolResult(event);
    const failed =
      event.subtype === "failed" || (result !== undefined && !result.ok && !result.pending);
    const call: ContractToolCall = {
      id,
      name: open?.name ?? canonicalToolName(info),
      args: open?.args ?? toolCallArgs(info),
      status: failed ? "failed" : "completed",
    };
    const endedAt = timestampOf(event);
    if (open?.agentStartedAt !== undefined && endedAt !== undefined) {
      call.durationMs = Math.max(0, endedAt - open.agentStartedAt);
    } else if (open?.receivedAt !== undefined && event.recvAt !== undefined) {
      call.durationMs = Math.max(0, Math.round(event.recvAt.mono - open.receivedAt));
    }
    if (result) call.summary = result.summary;
    out.push(envelope("tool_call", call));
  };

  const abandon = (out: ContractEvent[], summary: string): void => {
    for (const [id, open] of calls) {
      abandoned.add(id);
      out.push(
        envelope("tool_call", { id, name: open.name, args: open.args, status: "failed", summary }),
      );
    }
    calls.clear();
  };

  return {
    push(event) {
      if (ended || event.kind !== "json") return NONE;
      switch (event.type) {
        case "assistant": {
          const message = assistantMessage(event);
          if (!message) return NONE;
          const { show } = assistant.add(message);
          if (show === "") return NONE;
          const out = begin();
          out.push(envelope("assistant_delta", { content: show }));
          return out;
        }
        case "tool_call": {
          assistant.breakSegment();
          const out = begin();
          toolEvents(event, out);
          return out;
        }
        case "result": {
          const result = resultInfo(event);
          if (!result) return NONE;
          resultSeen = true;
          const out = begin();
          // A turn whose answer came in its result alone (no message before it, as in what
          // `--output-format json` prints): the deltas must still carry the answer.
          if (!result.isError && result.text !== "" && assistant.text() === "") {
            out.push(envelope("assistant_delta", { content: result.text }));
          }
          const usage = result.usage;
          if (usage && (usage.inputTokens !== undefined || usage.outputTokens !== undefined)) {
            const data: ContractUsage = {
              promptTokens: usage.inputTokens ?? 0,
              completionTokens: usage.outputTokens ?? 0,
            };
            if (usage.cacheReadTokens !== undefined) data.cacheReadTokens = usage.cacheReadTokens;
            if (usage.cacheWriteTokens !== undefined)
              data.cacheWriteTokens = usage.cacheWriteTokens;
            out.push(envelope("usage", data));
          }
          if (result.isError) {
            resultIsError = true;
            const text = firstLine(result.text, 500);
            errorEvents(
              out,
              contractErrorCode("result-error"),
              text === "" ? "the agent's result is an error" : text,
              true,
            );
          }
          return out;
        }
        case "error": {
          if (!agentErrors) return NONE;
          const message =
            stringAt(event.data, "message") ?? stringAt(event.data, "error") ?? "error";
          const out = begin();
          errorEvents(out, contractErrorCode("agent-error"), message, false);
          return out;
        }
        default:
          return NONE;
      }
    },
    error(source, message, fatal) {
      if (ended) return NONE;
      const out = begin();
      errorEvents(out, contractErrorCode(source), message, fatal);
      return out;
    },
    abandonCalls(summary) {
      if (ended || calls.size === 0) return NONE;
      const out = begin();
      abandon(out, summary);
      return out;
    },
    end(finishReason) {
      if (ended) return NONE;
      const out = begin();
      abandon(
        out,
        finishReason === "cancelled"
          ? "cancelled: the turn ended before the call did"
          : "the turn ended before the call did",
      );
      ended = true;
      const reason =
        finishReason ?? (resultSeen && !resultIsError && fatalCodes.size === 0 ? "stop" : "error");
      out.push(envelope("done", { finishReason: reason }));
      return out;
    },
    get ended() {
      return ended;
    },
    get resultSeen() {
      return resultSeen;
    },
    get failed() {
      return fatalCodes.size > 0;
    },
  };
}
