import type { MonitorSignal } from "@cursor-wrap/monitor";
import { eventTypeOf } from "./event-type.js";
import { toolCallInfo, toolCallParts } from "./tool-call.js";
import type { EventLike } from "./types.js";
import { arrayAt, booleanAt, isObject, numberAt, objectAt, stringAt } from "./values.js";

/** The agent's own `timestamp_ms` on an event (thinking, mid-turn assistant, tool calls), if any. */
export function timestampOf(event: EventLike): number | undefined {
  return event.kind === "json" ? numberAt(event.data, "timestamp_ms") : undefined;
}

/**
 * The recorded time (epoch ms) of every event of a capture, for replaying it at its original
 * pace: `timestamp_ms` where the agent wrote one, else the time of the nearest earlier event
 * (or, before the first timestamp, of the first one). All zeros if no event has a timestamp.
 */
export function recordedTimeline(events: readonly EventLike[]): number[] {
  const times = events.map(timestampOf);
  let current = times.find((time) => time !== undefined) ?? 0;
  return times.map((time) => {
    if (time !== undefined && time >= current) current = time;
    return current;
  });
}

/** The session id an event carries, if any. */
export function sessionIdOf(event: EventLike): string | undefined {
  return event.kind === "json" ? stringAt(event.data, "session_id") : undefined;
}

/** How an `assistant` event relates to the text around it (see {@link assistantMessage}). */
export type AssistantForm = "message" | "final" | "delta" | "echo";

/** The text of an `assistant` event and which of its forms it is. */
export interface AssistantMessage {
  text: string;
  /**
   * - `message`: a whole mid-turn message (`model_call_id` and `timestamp_ms`)
   * - `final`: the closing message (neither); with partial output, a repeat of the deltas
   * - `delta`: a streamed piece with `--stream-partial-output` (`timestamp_ms` only)
   * - `echo`: a repeat of deltas carrying `model_call_id` but no `timestamp_ms`
   */
  form: AssistantForm;
  modelCallId?: string;
  timestampMs?: number;
}

/** Text and form of an `assistant` event; undefined for other events. Never throws. */
export function assistantMessage(event: EventLike): AssistantMessage | undefined {
  if (event.kind !== "json" || event.type !== "assistant") return undefined;
  const content = arrayAt(objectAt(event.data, "message"), "content") ?? [];
  let text = "";
  for (const part of content) {
    if (isObject(part) && (part.type === undefined || part.type === "text")) {
      text += stringAt(part, "text") ?? "";
    }
  }
  const modelCallId = stringAt(event.data, "model_call_id");
  const timestampMs = numberAt(event.data, "timestamp_ms");
  const form: AssistantForm =
    modelCallId !== undefined
      ? timestampMs !== undefined
        ? "message"
        : "echo"
      : timestampMs !== undefined
        ? "delta"
        : "final";
  const message: AssistantMessage = { text, form };
  if (modelCallId !== undefined) message.modelCallId = modelCallId;
  if (timestampMs !== undefined) message.timestampMs = timestampMs;
  return message;
}

/** Token counts reported on `result` (CLI 2026.03 and later). */
export interface Usage {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

/** What the terminal `result` event says. */
export interface ResultInfo {
  subtype: string;
  isError: boolean;
  /** All assistant text of the turn, concatenated (as the agent reports it). */
  text: string;
  durationMs?: number;
  durationApiMs?: number;
  sessionId?: string;
  requestId?: string;
  usage?: Usage;
}

/** Read a `result` event; undefined for other events. Never throws. */
export function resultInfo(event: EventLike): ResultInfo | undefined {
  if (event.kind !== "json" || event.type !== "result") return undefined;
  const data = event.data;
  const info: ResultInfo = {
    subtype: event.subtype ?? "",
    isError: booleanAt(data, "is_error") === true || event.subtype === "error",
    text: stringAt(data, "result") ?? stringAt(data, "error") ?? "",
  };
  const durationMs = numberAt(data, "duration_ms");
  if (durationMs !== undefined) info.durationMs = durationMs;
  const durationApiMs = numberAt(data, "duration_api_ms");
  if (durationApiMs !== undefined) info.durationApiMs = durationApiMs;
  const sessionId = stringAt(data, "session_id");
  if (sessionId !== undefined) info.sessionId = sessionId;
  const requestId = stringAt(data, "request_id");
  if (requestId !== undefined) info.requestId = requestId;
  const usage = objectAt(data, "usage");
  if (usage !== undefined) {
    const counts: Usage = {};
    for (const key of [
      "inputTokens",
      "outputTokens",
      "cacheReadTokens",
      "cacheWriteTokens",
    ] as const) {
      const value = numberAt(usage, key);
      if (value !== undefined) counts[key] = value;
    }
    info.usage = counts;
  }
  return info;
}

// Subtypes that end a tool call. Anything else (a future progress event, say) is activity:
// closing a call that still runs would turn a long, silent tool into a false idle hang.
const TOOL_END_SUBTYPES: ReadonlySet<string> = new Set([
  "completed",
  "failed",
  "error",
  "rejected",
  "cancelled",
  "canceled",
  "timeout",
]);

/**
 * Map an event to the monitor's neutral signal (R-EV6): `session` for system/init, `toolStart`
 * and `toolEnd` for tool calls, `done` for the result, `activity` for everything else,
 * including text lines and oversize pieces.
 */
export function toMonitorSignal(event: EventLike): MonitorSignal {
  const eventType = eventTypeOf(event);
  if (event.kind !== "json") return { type: "activity", eventType };
  switch (event.type) {
    case "system": {
      const sessionId = stringAt(event.data, "session_id");
      return event.subtype === "init" && sessionId !== undefined
        ? { type: "session", sessionId, eventType }
        : { type: "activity", eventType };
    }
    case "tool_call": {
      if (event.subtype !== "started") {
        // Only the call id matters here: skip describing the arguments.
        const callId = toolCallParts(event)?.callId;
        return callId !== undefined && TOOL_END_SUBTYPES.has(event.subtype ?? "")
          ? { type: "toolEnd", id: callId, eventType }
          : { type: "activity", eventType };
      }
      const info = toolCallInfo(event);
      if (!info) return { type: "activity", eventType };
      const signal: MonitorSignal = {
        type: "toolStart",
        id: info.callId,
        kind: info.kind,
        label: info.label,
        eventType,
      };
      if (info.timeoutMs !== undefined) signal.timeoutMs = info.timeoutMs;
      if (info.background) signal.background = true;
      return signal;
    }
    case "result":
      return { type: "done", eventType };
    case "thinking":
      return { type: "activity", eventType, phase: "thinking" };
    case "assistant":
      return { type: "activity", eventType, phase: "responding" };
    default:
      return { type: "activity", eventType };
  }
}
