import { formatDuration } from "@cursor-wrap/wording";
import {
  TOOL_KINDS,
  type ToolArgsSummary,
  type ToolKindSpec,
  type ToolSuccessSummary,
  unknownToolKind,
} from "./tool-kinds.js";
import { isPendingOutcome, KNOWN_OUTCOMES } from "./tool-outcomes.js";
import type { EventLike, JsonObject } from "./types.js";
import { firstLine, firstString, isObject, numberAt, objectAt, stringAt, tail } from "./values.js";

/**
 * A tool call as described by a `tool_call` event (R-EV4): what its arguments say (label,
 * declared timeout, command, path, pattern, …) plus where it sits in the stream.
 */
export interface ToolCallInfo extends Omit<ToolArgsSummary, "background"> {
  /** The exact decoded `call_id` (may contain newlines): match calls by this string. */
  callId: string;
  modelCallId?: string;
  /** The event's subtype: `started`, `completed`, … */
  phase: string;
  /** The key inside `tool_call`: `shellToolCall`, `function`, … */
  key: string;
  /** Short kind: `shell`, `read`, `mcp`, … */
  kind: string;
  /** A background call returns at once and is not waited on. */
  background: boolean;
  /** The call's `args` object (empty when absent). */
  args: JsonObject;
}

/** The outcome of a completed tool call (R-EV4). */
export interface ToolResult extends ToolSuccessSummary {
  callId: string;
  key: string;
  kind: string;
  /** The outcome key inside `result`: `success`, `rejected`, `error`, `timeout`, …; `none` if absent. */
  outcome: string;
  /** True for a success (and, for shell, exit code 0). */
  ok: boolean;
  /** True for outcomes that say the work goes on (`stillRunning`, `async`, `approved`, …). */
  pending: boolean;
  /** True when the call was moved to the background. */
  background: boolean;
  /** The command, for shell results that carry it (also rejected ones, which have no args). */
  command?: string;
}

/**
 * The tool key inside a `tool_call` object: the key ending in `ToolCall`, or `function`. Newer
 * CLI versions put sibling keys (`toolCallId`, `startedAtMs`, …) beside it, so the first key
 * is not necessarily the tool.
 */
export function findToolKey(toolCall: unknown): string | undefined {
  if (!isObject(toolCall)) return undefined;
  let fallback: string | undefined;
  for (const key in toolCall) {
    if (key.endsWith("ToolCall") && isObject(toolCall[key])) return key;
    if (key === "function" && isObject(toolCall[key])) fallback = key;
  }
  return fallback;
}

/** The spec that reads a tool key. */
export function toolKindSpec(key: string): ToolKindSpec {
  // The key is the agent's: only the table's own entries count, never Object.prototype's.
  return Object.hasOwn(TOOL_KINDS, key) ? TOOL_KINDS[key]! : unknownToolKind(key);
}

interface ToolCallParts {
  data: JsonObject;
  key: string;
  spec: ToolKindSpec;
  tool: JsonObject;
  args: JsonObject;
  callId: string;
}

/** The pieces of a `tool_call` event every extractor starts from (internal to the package). */
export function toolCallParts(event: EventLike): ToolCallParts | undefined {
  if (event.kind !== "json" || event.type !== "tool_call") return undefined;
  const data = event.data;
  const toolCall = objectAt(data, "tool_call");
  const key = findToolKey(toolCall);
  if (toolCall === undefined || key === undefined) return undefined;
  const tool = toolCall[key] as JsonObject;
  // The generic `function` shape keeps name and arguments on the tool object itself.
  const args = key === "function" ? tool : (objectAt(tool, "args") ?? {});
  const callId =
    stringAt(data, "call_id") ??
    stringAt(toolCall, "toolCallId") ??
    stringAt(args, "toolCallId") ??
    "";
  return { data, key, spec: toolKindSpec(key), tool, args, callId };
}

/** Describe the tool call in a `tool_call` event; undefined for any other event. Never throws. */
export function toolCallInfo(event: EventLike): ToolCallInfo | undefined {
  const parts = toolCallParts(event);
  if (!parts) return undefined;
  const { data, key, spec, args, callId } = parts;
  let described: ReturnType<ToolKindSpec["describe"]>;
  try {
    described = spec.describe(args);
  } catch {
    described = { label: "" };
  }
  // Built by assignment, not `{...fields, callId, …}`: on Node 20 an object literal with
  // properties after a spread takes a slow path (microseconds per call, on every tool event).
  // The key order is the spread's: the description's fields, then the ones below.
  const info = {} as ToolCallInfo;
  for (const field in described) {
    if (field !== "background") {
      (info as unknown as Record<string, unknown>)[field] =
        described[field as keyof typeof described];
    }
  }
  info.callId = callId;
  info.phase = event.kind === "json" ? (event.subtype ?? "") : "";
  info.key = key;
  info.kind = spec.kind;
  info.background = described.background === true;
  info.args = args;
  const modelCallId = stringAt(data, "model_call_id");
  if (modelCallId !== undefined) info.modelCallId = modelCallId;
  return info;
}

/**
 * The key of `result` that names the outcome: the first one known (`success`, a failure, a
 * pending state), else the first other than `isBackground` (an outcome a newer CLI added).
 * Keys of the agent's own (`toString`, `__proto__`) before `success` do not hide it.
 */
function outcomeKey(result: JsonObject): string | undefined {
  let first: string | undefined;
  for (const key in result) {
    if (KNOWN_OUTCOMES.has(key)) return key;
    if (first === undefined && key !== "isBackground") first = key;
  }
  return first;
}

function failureSummary(outcome: string, payload: unknown): ToolSuccessSummary {
  const nested = objectAt(payload, "error");
  const message =
    firstString(payload, "error", "message", "reason", "errorMessage") ??
    firstString(nested, "message", "error");
  const exitCode = numberAt(payload, "exitCode");
  const timeoutMs = numberAt(payload, "timeoutMs");
  let summary = outcome;
  if (outcome === "timeout" && timeoutMs !== undefined)
    summary = `timeout after ${formatDuration(timeoutMs)}`;
  if (exitCode !== undefined) summary += ` (exit ${exitCode})`;
  if (message !== undefined) summary += `: ${firstLine(message, 120)}`;
  const result: ToolSuccessSummary = { summary, ok: false };
  if (message !== undefined) result.error = message;
  if (exitCode !== undefined) result.exitCode = exitCode;
  const stderr = stringAt(payload, "stderr");
  if (stderr) result.stderrTail = tail(stderr);
  return result;
}

/**
 * Just the outcome key of a tool call's `result` (`success`, `rejected`, `permissionDenied`,
 * `error`, …; `none` when it has none), without summarising it: cheap enough for every
 * completion. Undefined for an event that is not a tool call's end. Never throws.
 */
export function toolOutcome(event: EventLike): string | undefined {
  const parts = toolCallParts(event);
  if (!parts) return undefined;
  const result = objectAt(parts.tool, "result");
  if (result === undefined) {
    return event.kind === "json" && event.subtype === "started" ? undefined : "none";
  }
  return outcomeKey(result) ?? "none";
}

/**
 * The outcome of the tool call in a `tool_call` event that carries a `result` (normally
 * `completed`); undefined for any other event. Never throws.
 */
export function toolResult(event: EventLike): ToolResult | undefined {
  const parts = toolCallParts(event);
  if (!parts) return undefined;
  const { key, spec, tool, args, callId } = parts;
  const result = objectAt(tool, "result");
  if (result === undefined && event.kind === "json" && event.subtype === "started")
    return undefined;
  const background = result !== undefined && result.isBackground === true;
  if (result === undefined) {
    return {
      callId,
      key,
      kind: spec.kind,
      background,
      outcome: "none",
      ok: true,
      pending: false,
      summary: "done",
    };
  }
  const outcome = outcomeKey(result) ?? "none";
  const payload = result[outcome];
  let summary: ToolSuccessSummary;
  try {
    summary =
      outcome === "success"
        ? spec.summarize(isObject(payload) ? payload : {}, args)
        : isPendingOutcome(outcome)
          ? { summary: outcome, ok: true }
          : failureSummary(outcome, payload);
  } catch {
    summary = { summary: outcome, ok: outcome === "success" };
  }
  if (background && outcome === "success") summary.summary = `${summary.summary} (backgrounded)`;
  // The summary is this call's own object: completed in place rather than spread into a new
  // one (see toolCallInfo). Assignment keeps the spread's key order: the summary's keys, then
  // the new ones in this order.
  const toolResult = summary as ToolResult;
  toolResult.callId = callId;
  toolResult.key = key;
  toolResult.kind = spec.kind;
  toolResult.background = background;
  toolResult.outcome = outcome;
  toolResult.ok = summary.ok ?? outcome === "success";
  toolResult.pending = isPendingOutcome(outcome);
  const command = stringAt(payload, "command") ?? stringAt(args, "command");
  if (command !== undefined && spec.kind === "shell") toolResult.command = command;
  return toolResult;
}
