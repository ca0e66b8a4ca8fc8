import type { MonitorSignal } from "@cursor-wrap/monitor";
import { eventTypeOf } from "./event-type.js";
import { isPlausibleSessionId } from "./session-id.js";
import { toolCallInfo, toolCallParts } from "./tool-call.js";
import type { EventLike } from "./types.js";
import { arrayAt, booleanAt, countAt, isObject, numberAt, objectAt, stringAt } from "./values.js";

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

/** The agent's session id in `data`, if it is a plausible one (see {@link isPlausibleSessionId}). */
function sessionIdAt(data: unknown): string | undefined {
  const id = stringAt(data, "session_id");
  return id !== undefined && isPlausibleSessionId(id) ? id : undefined;
}

/** The session id an event carries, if any (and plausible: never one that reads as a flag). */
export function sessionIdOf(event: EventLike): string | undefined {
  return event.kind === "json" ? sessionIdAt(event.data) : undefined;
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

/**
 * The prompt a `user` event echoes at the start of a turn (its text parts, joined); undefined
 * for other events and for a `user` event with no text. Never throws.
 */
export function userPrompt(event: EventLike): string | undefined {
  if (event.kind !== "json" || event.type !== "user") return undefined;
  const content = arrayAt(objectAt(event.data, "message"), "content") ?? [];
  let text = "";
  for (const part of content) {
    if (isObject(part) && (part.type === undefined || part.type === "text")) {
      text += stringAt(part, "text") ?? "";
    }
  }
  return text === "" ? undefined : text;
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

// A `result` line can be longer than the parse cap (a long answer): it is then known by its
// head, where cursor-agent writes `type` first and the short fields before `result`.
const RESULT_HEAD = /^\s*\{\s*"type"\s*:\s*"result"/;

/**
 * What the head of an oversize `result` line says, read without parsing it: its subtype and
 * whether it is an error. Undefined for any other event or line.
 */
function oversizeResult(event: EventLike): ResultInfo | undefined {
  if (event.kind !== "oversize" || !event.first || !event.line) return undefined;
  const head = event.line;
  const text = new TextDecoder("latin1").decode(head.subarray(0, 4_096));
  if (!RESULT_HEAD.test(text)) return undefined;
  const subtype = /"subtype"\s*:\s*"([A-Za-z_]+)"/.exec(text)?.[1] ?? "";
  return {
    subtype,
    isError: /"is_error"\s*:\s*true/.test(text) || subtype === "error",
    text: "",
  };
}

/**
 * Read a `result` event; undefined for other events. A result line above the parse cap is read
 * from its head (subtype, `is_error`; its text is not kept). Never throws.
 */
export function resultInfo(event: EventLike): ResultInfo | undefined {
  if (event.kind === "oversize") return oversizeResult(event);
  if (event.kind !== "json" || event.type !== "result") return undefined;
  const data = event.data;
  const info: ResultInfo = {
    subtype: event.subtype ?? "",
    isError: booleanAt(data, "is_error") === true || event.subtype === "error",
    text: stringAt(data, "result") ?? stringAt(data, "error") ?? "",
  };
  const durationMs = countAt(data, "duration_ms");
  if (durationMs !== undefined) info.durationMs = durationMs;
  const durationApiMs = countAt(data, "duration_api_ms");
  if (durationApiMs !== undefined) info.durationApiMs = durationApiMs;
  const sessionId = sessionIdAt(data);
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
      const value = countAt(usage, key);
      if (value !== undefined) counts[key] = value;
    }
    info.usage = counts;
  }
  return info;
}

/** The id a `system/task_notification` names its background work by, if any. */
function backgroundIdOf(data: unknown): string | undefined {
  for (const key of ["call_id", "tool_call_id", "toolCallId", "shell_id", "shellId", "task_id"]) {
    const id = stringAt(data, key);
    if (id !== undefined && id !== "") return id;
  }
  return undefined;
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
  if (event.kind === "oversize" && oversizeResult(event))
    return { type: "done", eventType: "result" };
  if (event.kind !== "json") return { type: "activity", eventType };
  switch (event.type) {
    case "system": {
      const sessionId = sessionIdAt(event.data);
      if (event.subtype === "init" && sessionId !== undefined) {
        return { type: "session", sessionId, eventType };
      }
      // Background work reporting in: the CLI stopped its background shells after the reply,
      // or one task finished.
      if (event.subtype === "background_shell_timeout") return { type: "backgroundEnd", eventType };
      if (event.subtype === "task_notification") {
        const id = backgroundIdOf(event.data);
        return id === undefined
          ? { type: "activity", eventType }
          : { type: "backgroundEnd", id, eventType };
      }
      return { type: "activity", eventType };
    }
    case "tool_call": {
      if (event.subtype !== "started") {
        const parts = toolCallParts(event);
        const callId = parts?.callId;
        if (callId === undefined || !TOOL_END_SUBTYPES.has(event.subtype ?? "")) {
          return { type: "activity", eventType };
        }
        const signal: MonitorSignal = { type: "toolEnd", id: callId, eventType };
        // A shell past its timeout that the CLI moved to the background lives on.
        const result = objectAt(parts!.tool, "result");
        if (result?.isBackground === true) {
          const payload = objectAt(result, "success") ?? result;
          const pid = numberAt(payload, "pid") ?? numberAt(result, "pid");
          const command = stringAt(payload, "command") ?? stringAt(parts!.args, "command");
          const shellId = stringAt(payload, "shellId") ?? stringAt(result, "shellId");
          signal.background = {
            ...(pid !== undefined && Number.isSafeInteger(pid) && pid > 0 ? { pid } : {}),
            ...(command !== undefined ? { label: command.slice(0, 200) } : {}),
            ...(shellId !== undefined ? { aliases: [shellId] } : {}),
          };
        }
        return signal;
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
