// One prompt turn as the watchdog watches it: the same hang monitor as a print-mode run, fed
// with what the agent's `session/update`s mean (tool calls opening and closing by
// `toolCallId`, with their kind; messages, thoughts and plans as activity), paused while the
// turn waits on the person at the editor. Pure: the proxy owns the clock, the timer and I/O.

import {
  createMonitor,
  type Monitor,
  type MonitorOptions,
  type MonitorWarning,
} from "@cursor-wrap/monitor";
import { isFinalStatus, type UpdateMeaning } from "./protocol.js";
import type { IdKey, JsonRpcId } from "./transport.js";

/** A tool call of the turn, as the updates so far describe it (ACP patches: later fields win). */
export interface ToolCallState {
  id: string;
  /** The kind the monitor allows time by: ACP's `kind` (`read`, `fetch`, …), or `mcp` for Cursor's MCP tools. */
  kind: string;
  title: string | undefined;
  name: string | undefined;
  status: unknown;
  /** Not yet completed or failed. */
  open: boolean;
  /** Monotonic time it was first seen, ms. */
  startedAt: number;
}

/** How the call is named to people: its tool name, else its title, else its kind. */
export const callLabel = (call: ToolCallState): string => call.name ?? call.title ?? call.kind;

/** A prompt the turn answers (v1) or that the agent acknowledges (v2). */
export interface TurnPrompt {
  id: JsonRpcId;
  /** v2: the agent acknowledged it. v1: never (the response ends the turn). */
  acknowledged: boolean;
}

/** Something the turn waits for at the editor (a request the agent sent it). */
export interface Awaited {
  method: string;
  /** For people: `permission for "Run tests"`. */
  description: string;
  /** It asks the person something (not the editor's own work, such as reading a file). */
  asksThePerson: boolean;
  since: number;
}

/** A turn being cancelled: `session/cancel` sent (by the proxy, or by the editor), waiting out the grace. */
export interface Recovery {
  /** Why, for people and records. */
  reason: string;
  /**
   * The verdict that started it (`hang`, `budget`), `exit` when the agent died, or `cancel`
   * when the editor cancelled the turn itself.
   */
  verdict: string;
  cancelledAt: number;
  graceUntil: number;
}

/** One prompt turn of one session. */
export interface Turn {
  sessionId: string;
  /** The agent process generation it runs in. */
  generation: number;
  startedAt: number;
  monitor: Monitor;
  calls: Map<string, ToolCallState>;
  toolCallCount: number;
  /** The editor's prompts this turn answers, by request key. */
  prompts: Map<IdKey, TurnPrompt>;
  /** Requests the agent sent the editor for this session, still unanswered, by key. */
  awaited: Map<IdKey, Awaited>;
  /** v2: the agent reported `requires_action`. */
  requiresAction: boolean;
  /** Since when the turn waits on the editor (the monitor is paused). */
  waitingSince: number | undefined;
  /** The monitor is paused: the turn waits on the editor, or the editor is not reading. */
  paused: boolean;
  /** When "waiting for you" is next reported. */
  nextReminderAt: number | undefined;
  reminders: number;
  recovery: Recovery | undefined;
  /** Tree totals at this turn's previous sample, for the share of samples that is its own. */
  sampleBase: { cpuMs: number; ioBytes: number | undefined } | undefined;
}

/** Start watching a turn. */
export function createTurn(
  sessionId: string,
  generation: number,
  now: number,
  monitorOptions: Omit<MonitorOptions, "now" | "startedAt">,
  clock: () => number,
): Turn {
  return {
    sessionId,
    generation,
    startedAt: now,
    monitor: createMonitor({ ...monitorOptions, now: clock, startedAt: now }),
    calls: new Map(),
    toolCallCount: 0,
    prompts: new Map(),
    awaited: new Map(),
    requiresAction: false,
    waitingSince: undefined,
    paused: false,
    nextReminderAt: undefined,
    reminders: 0,
    recovery: undefined,
    sampleBase: undefined,
  };
}

/** What an update did to the turn's tool calls. */
export interface Observed {
  opened?: ToolCallState;
  closed?: ToolCallState;
  warning?: MonitorWarning;
}

/** Feed one `session/update` (not a state update) to the turn's monitor. */
export function observeUpdate(turn: Turn, meaning: UpdateMeaning, now: number): Observed {
  const eventType = meaning.tag;
  if (meaning.kind !== "tool-call") {
    const phase = meaning.kind === "activity" ? meaning.phase : undefined;
    const warning = turn.monitor.observe(
      phase === undefined
        ? { type: "activity", eventType }
        : { type: "activity", eventType, phase },
      now,
    );
    return warning ? { warning } : {};
  }
  const existing = turn.calls.get(meaning.toolCallId);
  if (existing) {
    // An upsert of a call already known (v2 `tool_call_update`, or v1 Cursor sending
    // `tool_call` again): a sign of life that never restarts the call's clock.
    if (meaning.title !== undefined) existing.title = meaning.title;
    if (meaning.name !== undefined) existing.name = meaning.name;
    if (meaning.mcp) existing.kind = "mcp";
    else if (meaning.toolKind !== undefined && existing.kind !== "mcp")
      existing.kind = meaning.toolKind;
    if (meaning.status !== undefined) existing.status = meaning.status;
    if (existing.open && isFinalStatus(meaning.status)) {
      existing.open = false;
      const warning = turn.monitor.observe({ type: "toolEnd", id: existing.id, eventType }, now);
      return warning ? { closed: existing, warning } : { closed: existing };
    }
    const warning = turn.monitor.observe({ type: "activity", eventType }, now);
    return warning ? { warning } : {};
  }
  const call: ToolCallState = {
    id: meaning.toolCallId,
    kind: meaning.mcp ? "mcp" : (meaning.toolKind ?? "other"),
    title: meaning.title,
    name: meaning.name,
    status: meaning.status ?? "pending",
    open: !isFinalStatus(meaning.status),
    startedAt: now,
  };
  turn.calls.set(call.id, call);
  turn.toolCallCount += 1;
  if (!call.open) {
    // Reported done at once (a call replayed, or too quick to be seen running).
    const warning = turn.monitor.observe({ type: "activity", eventType }, now);
    return warning ? { opened: call, closed: call, warning } : { opened: call, closed: call };
  }
  const label = call.name ?? call.title;
  const warning = turn.monitor.observe(
    {
      type: "toolStart",
      id: call.id,
      kind: call.kind,
      eventType,
      ...(label === undefined ? {} : { label }),
    },
    now,
  );
  return warning ? { opened: call, warning } : { opened: call };
}

/** The turn's calls still open, oldest first. */
export function openCalls(turn: Turn): ToolCallState[] {
  return [...turn.calls.values()].filter((call) => call.open);
}

/** Whether the turn waits on the editor (a request unanswered, or v2 `requires_action`). */
export const isWaiting = (turn: Turn): boolean => turn.awaited.size > 0 || turn.requiresAction;
