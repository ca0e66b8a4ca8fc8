// The ACP watchdog: a stdio proxy between an editor (Zed, a JetBrains IDE, any ACP client) and
// an ACP agent (Cursor's `agent acp`). Every message passes through byte for byte; what it
// adds is a watch on each prompt turn with the hang monitor of a print-mode run, and, when a
// turn hangs, a recovery of the session: `session/cancel`, the stuck tool call marked failed
// with a message the person reads, the prompt answered `cancelled` if the agent does not, and
// a parked agent killed, restarted and its sessions loaded again, so the next prompt works in
// the same thread. Every request gets exactly one response, from the agent or from the proxy.

import { randomUUID } from "node:crypto";
import type { Readable, Writable } from "node:stream";
import {
  batchRejection,
  createPendingRequests,
  type IdKey,
  type JsonRpcBatch,
  lineWithId,
  loggedId,
  type PendingRequest,
} from "@cursor-wrap/jsonrpc";
import {
  type CheckResult,
  createDeadlineTimer,
  DEFAULT_LIVENESS,
  DEFAULT_THRESHOLDS,
  type MonitorOptions,
  type MonitorSignal,
} from "@cursor-wrap/monitor";
import { formatDuration } from "@cursor-wrap/wording";
import type { AcpAgentHandle, AcpAgentLauncher, AgentExit } from "./agent-process.js";
import {
  type AcpVersion,
  agentFeatures,
  asksThePerson,
  cancelRequestLine,
  describeAgentRequest,
  ERROR_CODES,
  editorTakesNotices,
  errorMessage,
  failedToolCall,
  idleState,
  METHODS,
  messageChunk,
  notice,
  notificationMessage,
  requestMessage,
  resultMessage,
  SETTING_METHODS,
  sessionIdOf,
  sessionUpdate,
  stringAt,
  updateMeaning,
  withdrawnAnswer,
} from "./protocol.js";
import type { AcpProxyLog, AcpRecordName } from "./records.js";
import {
  createMessageReader,
  createMessageWriter,
  type Incoming,
  type JsonObject,
  type JsonRpcId,
  type MessageReader,
  type MessageWriter,
  type OwnMessage,
  rpcId,
} from "./transport.js";
import {
  type Awaited,
  callLabel,
  createTurn,
  isWaiting,
  observeUpdate,
  openCalls,
  type ToolCallState,
  type Turn,
} from "./turn.js";

/** Defaults of the watchdog, ms (and bytes). */
export const ACP_DEFAULTS = {
  /** Time the agent gets to end a turn it was told to cancel before the proxy answers for it. */
  cancelGraceMs: 10_000,
  /** Restarts in a row without a completed turn before the proxy stops restarting. */
  maxRestarts: 3,
  /** Time a request other than a prompt has to be answered (setup: MCP servers start). */
  requestTimeoutMs: 180_000,
  maxLineBytes: 64 * 1024 * 1024,
  /** On shutdown: time the agent gets to exit after its stdin closes, before its tree is killed. */
  stdinCloseGraceMs: 5_000,
  /** The longest time between two "waiting for you" reports, ms. */
  maxReminderMs: 1_800_000,
} as const;

/** Options for {@link startAcpProxy}. Durations in ms; `Infinity` is no limit. */
export interface AcpProxyOptions {
  /** What the editor sends (the proxy's stdin). */
  input: Readable;
  /** What the editor reads (the proxy's stdout). */
  output: Writable;
  /** Starts an agent process (again after a restart). See `supervisedAgent`. */
  startAgent: AcpAgentLauncher;
  /** How the agent is named in messages to people. Default `the agent`. */
  agentName?: string;
  /** The monitor's thresholds for each prompt turn, as a print-mode run takes them. */
  monitor?: Omit<MonitorOptions, "now" | "startedAt">;
  /** Time the agent gets to end a cancelled turn. Default 10 s. */
  cancelGraceMs?: number;
  /** Restarts in a row without a completed turn before giving up. Default 3. */
  maxRestarts?: number;
  /** Time a request other than a prompt has to be answered. Default 3 min. */
  requestTimeoutMs?: number;
  /** Lines longer than this pass through in pieces, unparsed. Default 64 MiB. */
  maxLineBytes?: number;
  /** On shutdown: time the agent gets to exit after its stdin closes. Default 5 s. */
  stdinCloseGraceMs?: number;
  /** Where the agent's stderr goes, byte for byte. Default: only the log. */
  agentStderr?: Writable;
  /**
   * Tell the editor, with `notice` updates, that the agent is waiting for the person, when the
   * editor takes notices (v1: it advertised `clientCapabilities.session.notices`). Default true.
   */
  notices?: boolean;
  log?: AcpProxyLog;
  /** Fields added to the first record (`acp_proxy_start`). */
  context?: Readonly<Record<string, unknown>>;
  /** Monotonic clock, ms. Default `performance.now()`. */
  now?: () => number;
}

/** How the proxy ended. */
export interface AcpProxyEnd {
  /** 0 once the editor closed its end (or a signal asked), 1 when the agent could not be run. */
  exitCode: number;
  /** Why it ended, for people. */
  reason: string;
}

/** A running proxy. */
export interface AcpProxy {
  /** The current agent process's pid, once started. */
  readonly agentPid: number | undefined;
  /** Agent processes started so far (more than one after restarts). */
  readonly generations: number;
  readonly done: Promise<AcpProxyEnd>;
  /**
   * Shut the agent down in stages (stdin closed, grace, its tree killed) and end. `hurry` (a
   * signal: whoever sent it may not wait): what the editor still waits for is answered now
   * (prompts `cancelled`, other requests an error), and the tree is killed without the grace.
   */
  shutdown(reason: string, options?: { hurry?: boolean }): void;
}

/** One agent process and its connection. */
interface Generation {
  number: number;
  handle: AcpAgentHandle | undefined;
  writer: MessageWriter | undefined;
  reader: MessageReader;
  /** `starting`: being spawned; `setting-up`: initialize and sessions replayed; `gone`: exited. */
  state: "starting" | "setting-up" | "ready" | "gone";
  /** Why the proxy ended it, when it did. */
  endedBecause: string | undefined;
  exit: AgentExit | undefined;
  /** Tree totals of the samples taken so far, for each turn's share. */
  totals: { cpuMs: number; ioBytes: number | undefined };
  /** The editor's input is paused because this agent's stdin is full. */
  holdsInput: boolean;
  /** A line of its stderr not finished yet. */
  stderrPending: Buffer;
}

/**
 * A request from the editor, until it is answered (kept in a pending table: a request other
 * than a prompt is answered by the proxy when its time runs out).
 */
interface EditorRequest {
  id: JsonRpcId;
  method: string;
  sessionId: string | undefined;
  generation: number;
  startedAt: number;
  /** Kept for methods whose params the proxy replays after a restart. */
  params: JsonObject | undefined;
}

/** A request from the agent to the editor, until the editor answers it. */
interface AgentRequest {
  /** The id the agent gave it. */
  id: JsonRpcId;
  /** The id the editor saw (another only when the agent's collided with one still open). */
  editorId: JsonRpcId;
  method: string;
  /** For people: `permission for "Run tests"`. */
  description: string;
  sessionId: string | undefined;
  generation: number;
  startedAt: number;
  /** The turns it holds up: its session's, or every running one when it cannot be told. */
  turns: Turn[];
}

/** A session the agent knows, with what it takes to load it again in a new process. */
interface SessionRecord {
  sessionId: string;
  /** The `cwd`, `mcpServers` and `additionalDirectories` it was created or loaded with. */
  setup: JsonObject;
  generation: number;
  /** Settings chosen since, replayed after it is loaded again (by method and option). */
  settings: Map<string, { method: string; params: JsonObject }>;
}

/** A request of the proxy's own to the agent, until answered (or its time runs out). */
interface ProxyRequest {
  method: string;
  generation: number;
  resolve(result: unknown): void;
  reject(error: Error): void;
}

/** How many answered ids are remembered, to drop a second or late answer. */
const REMEMBERED = 10_000;
/** Held editor bytes (while an agent starts) above which the editor's input is paused. */
const MAX_HELD_BYTES = 8 * 1024 * 1024;
/** Whether a line's first bytes can begin a JSON object (after white space, a BOM). */
function beginsAsObject(head: Buffer): boolean {
  let at = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  while (at < head.length && (head[at] === 0x20 || head[at] === 0x09 || head[at] === 0x0d)) at += 1;
  return at === head.length || head[at] === 0x7b;
}

/** Bytes of an agent's stderr line logged at once: a longer one is logged in pieces. */
const STDERR_PIECE_BYTES = 64 * 1024;
const NO_BYTES = Buffer.alloc(0);

/** `text` without its first word (up to its first white space), which was cut. */
function withoutFirstWord(text: string): string {
  const space = text.search(/\s/);
  return space === -1 ? "" : text.slice(space + 1);
}

/** The last `max` characters of `text`, without a word cut at their start (a piece of a key). */
function lastWords(text: string, max: number): string {
  if (text.length <= max) return text;
  return `…${withoutFirstWord(text.slice(-max))}`;
}

/** The agent's last stderr bytes kept, to say why it failed. */
const STDERR_TAIL_BYTES = 2_048;

/** Methods whose params are kept for a restart. */
const KEPT_PARAMS: ReadonlySet<string> = new Set([
  METHODS.initialize,
  METHODS.authenticate,
  METHODS.authLogin,
  METHODS.sessionNew,
  METHODS.sessionLoad,
  METHODS.sessionResume,
  ...SETTING_METHODS,
]);

/** A bounded set of keys, oldest forgotten first. */
function boundedSet(limit: number) {
  const keys = new Set<IdKey>();
  return {
    add(key: IdKey): void {
      keys.delete(key);
      keys.add(key);
      if (keys.size > limit) keys.delete(keys.values().next().value!);
    },
    has: (key: IdKey): boolean => keys.has(key),
    delete: (key: IdKey): boolean => keys.delete(key),
  };
}

const finiteOr = (value: number | undefined, fallback: number): number =>
  value !== undefined && Number.isFinite(value) && value >= 0 ? value : fallback;

/**
 * Start the agent and proxy between it and the editor (see the package README). Lines pass
 * through byte for byte in both directions; the proxy adds lines of its own only to recover a
 * hung turn (a failed tool call, a message in the thread, the prompt's answer), to withdraw a
 * request of an agent that is gone, to tell the person the agent waits for them, and, to the
 * agent, `session/cancel` and the replay of setup after a restart.
 */
export function startAcpProxy(options: AcpProxyOptions): AcpProxy {
  const now = options.now ?? (() => performance.now());
  const agentName = options.agentName ?? "the agent";
  const monitorOptions = options.monitor ?? {};
  const cancelGraceMs = options.cancelGraceMs ?? ACP_DEFAULTS.cancelGraceMs;
  const maxRestarts = options.maxRestarts ?? ACP_DEFAULTS.maxRestarts;
  const requestTimeoutMs = options.requestTimeoutMs ?? ACP_DEFAULTS.requestTimeoutMs;
  const maxLineBytes = options.maxLineBytes ?? ACP_DEFAULTS.maxLineBytes;
  const reminderBaseMs = finiteOr(monitorOptions.idleTimeoutMs, DEFAULT_THRESHOLDS.idleTimeoutMs);
  const notices = options.notices ?? true;
  const { input, output } = options;
  const record = (name: AcpRecordName, fields: Record<string, unknown>): void =>
    options.log?.record(name, fields);
  const idPrefix = `cursor-wrap-${randomUUID().slice(0, 8)}`;
  let proxyRequestCount = 0;

  // ─── state ──────────────────────────────────────────────────────────────────────────────
  let version: AcpVersion = 1;
  let loadSession = false;
  let resumeSession = false;
  let initializeParams: JsonObject | undefined;
  let authentication: { method: string; params: JsonObject } | undefined;
  const sessions = new Map<string, SessionRecord>();
  const turns = new Map<string, Turn>();
  const editorRequests = createPendingRequests<EditorRequest>({
    now,
    onExpired: (request) => expireEditorRequest(request),
  });
  const agentRequests = new Map<IdKey, AgentRequest>();
  const proxyRequests = createPendingRequests<ProxyRequest>({
    now,
    onExpired(request) {
      request.meta.reject(
        new Error(
          `no answer to ${request.meta.method} within ${formatDuration(request.timeoutMs)}`,
        ),
      );
    },
  });
  // Editor requests the proxy answered: the agent's own answer, if it comes, is dropped.
  const answeredByProxy = boundedSet(REMEMBERED);
  // Editor requests the agent answered: a second answer is dropped.
  const answeredByAgent = boundedSet(REMEMBERED);
  // Agent requests withdrawn from the editor (the agent is gone, or the turn was cancelled).
  const withdrawn = boundedSet(REMEMBERED);
  // Sessions being loaded again after a restart: the history the agent replays stays here.
  const reloading = new Map<string, number>();
  let consecutiveRestarts = 0;
  // Kills of agent trees in progress: the proxy ends only once they are done (no orphans).
  const kills = new Set<Promise<unknown>>();
  const trackKill = (kill: Promise<unknown>): void => {
    const settled = kill.catch(() => undefined).finally(() => kills.delete(settled));
    kills.add(settled);
  };
  let generationCount = 0;
  let current: Generation;
  // Editor messages waiting for an agent that is starting.
  const held: Incoming[] = [];
  // The keys of the requests among them: not yet sent to any agent.
  const heldKeys = new Set<IdKey>();
  let heldBytes = 0;
  let inputPausedForHold = false;
  let failure: string | undefined;
  let stopping: string | undefined;
  let finished = false;
  let stderrTail = Buffer.alloc(0);
  // The agent said more than the tail keeps: its first bytes may be part of a word.
  let stderrTailCut = false;
  let resolveDone: (end: AcpProxyEnd) => void = () => {};
  const done = new Promise<AcpProxyEnd>((resolve) => {
    resolveDone = resolve;
  });

  // ─── the editor's side ──────────────────────────────────────────────────────────────────
  // The editor not reading holds the agent up (its output is not read meanwhile): that
  // silence is not the agent's, so every turn's monitor is paused until the editor drains.
  let editorBlocked = false;
  const editorReads = (blocked: boolean): void => {
    editorBlocked = blocked;
    const at = now();
    for (const turn of turns.values()) syncPause(turn, at);
    timer.rearm();
  };
  const toEditor = createMessageWriter(output, {
    onBlocked: () => {
      current?.handle?.stdout.pause();
      editorReads(true);
    },
    onDrained: () => {
      current?.handle?.stdout.resume();
      editorReads(false);
    },
  });
  output.on("error", () => stop("the editor closed its end"));

  /** Send the editor a message of the proxy's own. */
  const tellEditor = (message: OwnMessage | string): void => toEditor.send(message);

  /** Answer an editor request in the agent's place: exactly once, its own answer dropped later. */
  function answerEditor(key: IdKey, message: OwnMessage): void {
    if (!editorRequests.settle(key)) return;
    answeredByProxy.add(key);
    tellEditor(message);
  }

  /** An editor request (not a prompt) the agent did not answer in time: answered with an error. */
  function expireEditorRequest({ key, meta: request }: PendingRequest<EditorRequest>): void {
    const limit = formatDuration(requestTimeoutMs);
    answeredByProxy.add(key);
    tellEditor(
      errorMessage(
        request.id,
        ERROR_CODES.internalError,
        `cursor-wrap: ${agentName} did not answer ${request.method} within ${limit}`,
        { method: request.method, timeoutMs: requestTimeoutMs },
      ),
    );
    record("acp_request_timed_out", {
      id: loggedId(request.id),
      method: request.method,
      timeout_ms: requestTimeoutMs,
      summary: `${request.method} got no answer within ${limit}: answered with an error`,
    });
  }

  /** Answer every pending editor request of a generation with an error. */
  function failEditorRequests(
    generation: number | "all",
    why: string,
    message: (method: string) => string = (method) =>
      `cursor-wrap: ${why}; ${method} was not answered`,
  ): void {
    const failed: JsonRpcId[] = [];
    for (const { key, meta: request } of editorRequests.values()) {
      if (generation !== "all" && (request.generation !== generation || heldKeys.has(key)))
        continue;
      failed.push(request.id);
      answerEditor(
        key,
        errorMessage(request.id, ERROR_CODES.internalError, message(request.method), {
          method: request.method,
        }),
      );
    }
    if (failed.length > 0) {
      record("acp_pending_failed", {
        count: failed.length,
        ids: failed.slice(0, 50).map(loggedId),
        summary: `${failed.length} pending request${failed.length === 1 ? "" : "s"} answered with an error: ${why}`,
      });
    }
  }

  /** A request the agent sent the editor is over (answered or withdrawn): its turns wait no more. */
  function settleAgentRequest(key: IdKey, at: number): AgentRequest | undefined {
    const request = agentRequests.get(key);
    if (!request) return undefined;
    agentRequests.delete(key);
    for (const turn of request.turns) {
      turn.awaited.delete(key);
      updateWaiting(turn, at);
    }
    return request;
  }

  /** Withdraw a request the agent sent the editor: the editor is told, its late answer dropped. */
  function withdrawAgentRequest(key: IdKey, answerTheAgent: boolean, why: string): void {
    const request = settleAgentRequest(key, now());
    if (!request) return;
    withdrawn.add(key);
    if (answerTheAgent) current.writer?.send(withdrawnAnswer(request.id, request.method));
    tellEditor(cancelRequestLine(request.editorId));
    record("acp_request_withdrawn", {
      id: loggedId(request.editorId),
      method: request.method,
      session_id: request.sessionId,
      summary: `withdrew ${request.method} from the editor: ${why}`,
    });
  }

  /** Withdraw what the agent still waits on at the editor for a turn that was cancelled. */
  function withdrawTurnRequests(turn: Turn): void {
    for (const [key, request] of [...agentRequests]) {
      if (request.turns.includes(turn)) withdrawAgentRequest(key, true, "its turn was cancelled");
    }
  }

  // ─── the agent's side ───────────────────────────────────────────────────────────────────
  /** Send the current agent a message of the proxy's own. */
  const tellAgent = (message: OwnMessage): void => current.writer?.send(message);

  /** A request of the proxy's own to an agent generation, answered or failed within a deadline. */
  function askAgent(generation: Generation, method: string, params: JsonObject): Promise<unknown> {
    proxyRequestCount += 1;
    const id = rpcId(`${idPrefix}-${proxyRequestCount}`);
    return new Promise<unknown>((resolve, reject) => {
      proxyRequests.add(
        id.key,
        { method, generation: generation.number, resolve, reject },
        { timeoutMs: Number.isFinite(requestTimeoutMs) ? requestTimeoutMs : Infinity },
      );
      generation.writer?.send(requestMessage(id, method, params));
    });
  }

  // ─── turns ──────────────────────────────────────────────────────────────────────────────
  function startTurn(sessionId: string, at: number, how: string): Turn {
    const turn = createTurn(sessionId, current.number, at, monitorOptions, now);
    turns.set(sessionId, turn);
    record("acp_turn_start", { session_id: sessionId, generation: current.number, how });
    // Requests already waiting on the editor for this session hold the new turn up too.
    for (const [key, request] of agentRequests) {
      if (request.sessionId !== sessionId || request.turns.length > 0) continue;
      request.turns = [turn];
      turn.awaited.set(key, awaitedOf(request));
    }
    updateWaiting(turn, at);
    return turn;
  }

  function endTurn(turn: Turn, outcome: string, stopReason?: unknown): void {
    if (turns.get(turn.sessionId) !== turn) return;
    turns.delete(turn.sessionId);
    for (const request of agentRequests.values())
      request.turns = request.turns.filter((held) => held !== turn);
    const at = now();
    record("acp_turn_end", {
      session_id: turn.sessionId,
      outcome,
      ...(stopReason === undefined ? {} : { stop_reason: stopReason }),
      duration_ms: Math.round(at - turn.startedAt),
      tool_calls: turn.toolCallCount,
      open_calls: openCalls(turn).length,
    });
    // A turn the agent finished by itself (also one it ended as cancelled when asked):
    // whatever went wrong before is behind it.
    if (outcome === "completed" || outcome === "cancelled") consecutiveRestarts = 0;
    timer.rearm();
  }

  const awaitedOf = (request: AgentRequest): Awaited => ({
    method: request.method,
    description: request.description,
    asksThePerson: asksThePerson(request.method),
    since: request.startedAt,
  });

  /** Pause the turn's monitor while it waits on the editor, and resume it after. */
  function updateWaiting(turn: Turn, at: number): void {
    if (isWaiting(turn) && turn.waitingSince === undefined) {
      turn.waitingSince = at;
      turn.reminders = 0;
      turn.nextReminderAt = at + reminderBaseMs;
    } else if (!isWaiting(turn) && turn.waitingSince !== undefined) {
      record("acp_waited", {
        session_id: turn.sessionId,
        waited_ms: Math.round(at - turn.waitingSince),
        summary: `the editor answered after ${formatDuration(at - turn.waitingSince)}`,
      });
      turn.waitingSince = undefined;
      turn.nextReminderAt = undefined;
    }
    syncPause(turn, at);
    timer.rearm();
  }

  /** The turn's silence is not the agent's while it waits on the editor or the editor is not reading. */
  function syncPause(turn: Turn, at: number): void {
    const pause = turn.waitingSince !== undefined || editorBlocked;
    if (pause === turn.paused) return;
    turn.paused = pause;
    if (pause) turn.monitor.pause(at);
    else turn.monitor.resume(at);
  }

  /** Report that the turn waits on the person at the editor, and when to say it again. */
  function remindWaiting(turn: Turn, at: number): void {
    const since = turn.waitingSince ?? at;
    const waited = formatDuration(at - since);
    const awaited = [...turn.awaited.values()];
    const forPerson = awaited.some((item) => item.asksThePerson) || turn.requiresAction;
    const what =
      awaited.length === 0 ? "your action" : awaited.map((item) => item.description).join(", ");
    const summary = forPerson
      ? `waiting for you: ${agentName} asked for ${what} ${waited} ago and waits for your answer`
      : `waiting on the editor: ${what} unanswered for ${waited}`;
    record("acp_waiting_for_you", {
      session_id: turn.sessionId,
      waited_ms: Math.round(at - since),
      waiting_on: awaited.map((item) => ({
        method: item.method,
        description: item.description,
        waited_ms: Math.round(at - item.since),
      })),
      requires_action: turn.requiresAction,
      summary,
    });
    if (notices && forPerson && editorTakesNotices(initializeParams, version)) {
      tellEditor(
        sessionUpdate(
          turn.sessionId,
          notice(
            "warning",
            `Waiting for you (${waited})`,
            `${agentName} asked for ${what} and is paused until you answer. cursor-wrap does not count this as a hang.`,
          ),
        ),
      );
    }
    turn.reminders += 1;
    turn.nextReminderAt =
      at + Math.min(reminderBaseMs * 2 ** turn.reminders, ACP_DEFAULTS.maxReminderMs);
  }

  // ─── the one timer ──────────────────────────────────────────────────────────────────────
  function nextDeadline(): number | undefined {
    let next: number | undefined;
    const consider = (at: number | undefined): void => {
      if (at !== undefined && (next === undefined || at < next)) next = at;
    };
    for (const turn of turns.values()) {
      if (turn.recovery) {
        consider(turn.recovery.graceUntil);
        continue;
      }
      consider(turn.monitor.nextDeadline());
      consider(turn.nextReminderAt);
    }
    return next;
  }

  const timer = createDeadlineTimer({
    nextDeadline,
    now,
    onDeadline(at) {
      for (const turn of [...turns.values()]) {
        if (turn.recovery) {
          if (at >= turn.recovery.graceUntil) finishRecovery(turn, at);
          continue;
        }
        if (turn.nextReminderAt !== undefined && at >= turn.nextReminderAt) remindWaiting(turn, at);
        watchTurn(turn, at);
      }
    },
  });

  /** Sample the agent's tree for one turn: the share of the samples taken since its last one. */
  function sampleFor(turn: Turn): Extract<MonitorSignal, { type: "liveness" }> {
    const generation = current;
    const sample = generation.handle?.sampleTree();
    record("acp_liveness_sample", {
      session_id: turn.sessionId,
      cpu_ms: sample === undefined ? undefined : Math.round(sample.cpuMs),
      io_bytes: sample?.ioBytes,
      processes: sample?.pids.length,
      pids: sample?.pids.slice(0, 50),
    });
    // No way to look at the processes: silence alone decides.
    if (!sample) return { type: "liveness", cpuMs: 0, unmeasured: true };
    const totals = generation.totals;
    totals.cpuMs += sample.cpuMs;
    if (sample.ioBytes !== undefined) totals.ioBytes = (totals.ioBytes ?? 0) + sample.ioBytes;
    const base = turn.sampleBase;
    turn.sampleBase = { cpuMs: totals.cpuMs, ioBytes: totals.ioBytes };
    const cpuMs = base === undefined ? sample.cpuMs : totals.cpuMs - base.cpuMs;
    const ioBytes =
      totals.ioBytes === undefined
        ? undefined
        : base?.ioBytes === undefined
          ? sample.ioBytes
          : totals.ioBytes - base.ioBytes;
    return {
      type: "liveness",
      cpuMs,
      pids: sample.pids,
      ...(ioBytes === undefined ? {} : { ioBytes }),
    };
  }

  /** Look at a turn when its monitor's deadline comes: samples, warnings, a verdict. */
  function watchTurn(turn: Turn, at: number): void {
    const first = turn.monitor.check(at);
    let check: CheckResult = first;
    if (first.probe && current.number === turn.generation) {
      turn.monitor.observe(sampleFor(turn), at);
      check = turn.monitor.check(at);
      if (first.warning && !check.warning) check = { ...check, warning: first.warning };
    }
    if (check.working) {
      record("acp_quiet_but_working", {
        session_id: turn.sessionId,
        quiet_ms: check.working.quietMs,
        cpu_ms: check.working.cpuMs,
        io_bytes: check.working.ioBytes,
        summary: check.working.message,
      });
    }
    if (check.warning) {
      record("acp_stall_warning", {
        session_id: turn.sessionId,
        kind: check.warning.kind,
        fires_in_ms: check.warning.firesInMs,
        summary: check.warning.message,
      });
    }
    if (check.verdict === "ok" || check.verdict === "waiting") return;
    startRecovery(turn, check, at);
  }

  // ─── recovery ───────────────────────────────────────────────────────────────────────────
  /** Tell the editor what happened to the turn: stuck calls failed, or a line in the thread. */
  function reportInThread(
    turn: Turn,
    callMessage: (call: ToolCallState) => string,
    message: string,
  ): void {
    const calls = openCalls(turn);
    for (const call of calls) {
      call.open = false;
      const text = callMessage(call);
      tellEditor(sessionUpdate(turn.sessionId, failedToolCall(call.id, text)));
      record("acp_tool_call_failed", {
        session_id: turn.sessionId,
        tool_call_id: call.id,
        kind: call.kind,
        title: call.title,
        elapsed_ms: Math.round(now() - call.startedAt),
        summary: text,
      });
    }
    if (calls.length === 0) {
      tellEditor(
        sessionUpdate(
          turn.sessionId,
          messageChunk(`${idPrefix}-${randomUUID().slice(0, 8)}`, message),
        ),
      );
    }
  }

  /** The monitor's verdict on a turn: tell the editor, cancel at the agent, and wait the grace. */
  function startRecovery(turn: Turn, check: CheckResult, at: number): void {
    const reason = check.reason;
    record("acp_hang_detected", {
      session_id: turn.sessionId,
      verdict: check.verdict,
      reason,
      summary: reason.message,
    });
    const silentFor = formatDuration(reason.idleMs);
    const message =
      check.verdict === "budget"
        ? `cursor-wrap: the turn ran past its budget of ${formatDuration(finiteOr(monitorOptions.maxTurnMs, 0))}; cancelled`
        : `cursor-wrap: ${agentName} gave no output for ${silentFor} with no tool running; cancelled`;
    reportInThread(
      turn,
      (call) =>
        `cursor-wrap: ${callLabel(call)} gave no result for ${formatDuration(at - call.startedAt)}; cancelled`,
      message,
    );
    // The cancel first, then what still waits on the editor (only a budget fires while the turn
    // waits) is withdrawn, answered `cancelled`: ACP's order, so the agent, told of the cancel
    // before the answers, ends the turn cancelled rather than going on with them.
    tellAgent(notificationMessage(METHODS.sessionCancel, { sessionId: turn.sessionId }));
    withdrawTurnRequests(turn);
    record("acp_cancel_sent", {
      session_id: turn.sessionId,
      grace_ms: cancelGraceMs,
      summary: `sent session/cancel; ${agentName} has ${formatDuration(cancelGraceMs)} to end the turn`,
    });
    // A sample now is the baseline for deciding, after the grace, whether the agent is parked.
    if (current.number === turn.generation) sampleFor(turn);
    turn.recovery = {
      reason: reason.message,
      verdict: check.verdict,
      cancelledAt: at,
      graceUntil: at + cancelGraceMs,
    };
    timer.rearm({ exact: true });
  }

  /** Answer the turn's prompts as cancelled, the way each protocol version ends a turn. */
  function answerPromptsCancelled(turn: Turn): void {
    for (const [key, prompt] of turn.prompts) {
      if (!editorRequests.get(key)) continue;
      if (version === 1) {
        answerEditor(key, resultMessage(prompt.id, { stopReason: "cancelled" }));
      } else if (!prompt.acknowledged) {
        // v2: a prompt not yet accepted when its work is cancelled is answered -32800.
        answerEditor(
          key,
          errorMessage(prompt.id, ERROR_CODES.requestCancelled, "cancelled by cursor-wrap"),
        );
      }
    }
    if (version === 2) tellEditor(sessionUpdate(turn.sessionId, idleState("cancelled")));
  }

  /** The grace is over and the agent has not ended the turn: end it for the editor, and deal with the agent. */
  function finishRecovery(turn: Turn, at: number): void {
    const byEditor = turn.recovery?.verdict === "cancel";
    // What the agent still waits on for this turn (the editor should have answered it
    // `cancelled` with its own cancel) is withdrawn: the turn is over.
    withdrawTurnRequests(turn);
    answerPromptsCancelled(turn);
    record("acp_prompt_answered", {
      session_id: turn.sessionId,
      summary: `${agentName} did not end the ${byEditor ? "turn the editor cancelled" : "cancelled turn"} within ${formatDuration(cancelGraceMs)}: the editor's prompt was answered "cancelled"`,
    });
    const span = at - (turn.recovery?.cancelledAt ?? at);
    endTurn(turn, "recovered", "cancelled");
    if (current.number !== turn.generation || current.state === "gone") return;
    // Parked or not: what its tree did since the cancel.
    const activity = sampleFor(turn);
    const working =
      span > 0 &&
      (activity.cpuMs >= span * DEFAULT_LIVENESS.minCpuFraction ||
        (activity.ioBytes !== undefined &&
          (activity.ioBytes * 1_000) / span >= DEFAULT_LIVENESS.minIoBytesPerSecond));
    if (working) {
      record("acp_agent_kept", {
        session_id: turn.sessionId,
        cpu_ms: Math.round(activity.cpuMs),
        io_bytes: activity.ioBytes,
        summary: `${agentName} ignored session/cancel but its processes are working: left running`,
      });
      return;
    }
    restart(
      `${agentName} ignored session/cancel for ${formatDuration(span)} and its processes were idle (parked)`,
    );
  }

  // ─── agent generations ──────────────────────────────────────────────────────────────────
  function newGeneration(): Generation {
    generationCount += 1;
    return {
      number: generationCount,
      handle: undefined,
      writer: undefined,
      // The agent's output is not trusted: a message after a line cut short is not passed on.
      reader: createMessageReader({
        maxLineBytes,
        guard: true,
        now,
        // Dropped, a prompt's answer with one stray byte would pass for a hang.
        onRepaired: ({ bytes, head }) =>
          record("acp_line_repaired", {
            bytes,
            head,
            summary: `passed on a message from ${agentName} that is not valid UTF-8, its invalid bytes replaced by U+FFFD`,
          }),
      }),
      state: "starting",
      endedBecause: undefined,
      exit: undefined,
      totals: { cpuMs: 0, ioBytes: undefined },
      holdsInput: false,
      stderrPending: NO_BYTES,
    };
  }

  /** Start an agent process; after a restart, set it up again (initialize, sessions). */
  function launch(generation: Generation, reload: SessionRecord[]): void {
    // What the replaced process left of a line will never come: its end goes now.
    if (current !== generation) endAgentLine(current);
    current = generation;
    // What a replaced process said on stderr is not why this one fails.
    stderrTail = Buffer.alloc(0);
    stderrTailCut = false;
    const startedAt = now();
    options.startAgent().then(
      (handle) => {
        generation.handle = handle;
        record("acp_agent_started", { pid: handle.pid, generation: generation.number });
        if (stopping !== undefined || generation !== current) {
          generation.endedBecause = stopping ?? "replaced";
          trackKill(handle.kill(generation.endedBecause));
        }
        wire(generation, handle);
        if (stopping !== undefined || generation !== current) return;
        if (generation.number === 1 || initializeParams === undefined) {
          ready(generation);
          return;
        }
        generation.state = "setting-up";
        setUp(generation, reload).then(
          () => {
            // Set up after the editor left (or the process was replaced or died meanwhile):
            // nothing was restarted for anyone.
            if (stopping !== undefined || generation !== current || generation.state === "gone")
              return;
            record("acp_agent_restarted", {
              generation: generation.number,
              pid: handle.pid,
              sessions: reload.map((session) => session.sessionId),
              duration_ms: Math.round(now() - startedAt),
              summary: `${agentName} restarted (pid ${handle.pid}); ${reload.length} session${reload.length === 1 ? "" : "s"} loaded again`,
            });
            ready(generation);
          },
          (error: Error) => {
            if (generation !== current || generation.state === "gone") return;
            restart(`setting up the restarted agent failed: ${error.message}`);
          },
        );
      },
      (error: Error & { code?: string }) => {
        if (generation !== current) return;
        generation.state = "gone";
        const why = error.message;
        record("acp_agent_spawn_failed", {
          generation: generation.number,
          code: error.code,
          summary: `cannot start ${agentName}: ${why}`,
        });
        fail(`cannot start ${agentName}: ${why}`);
        if (stopping !== undefined)
          finish({ exitCode: 1, reason: `cannot start ${agentName}: ${why}` });
      },
    );
  }

  /** Resolves a second after it is called, once the editor reads (see `wire`). */
  function outputQuiet(): Promise<void> {
    const startedAt = now();
    return new Promise<void>((resolve) => {
      const check = (): void => {
        if (!editorBlocked || stopping !== undefined || now() - startedAt >= 60_000) resolve();
        else setTimeout(check, 1_000).unref();
      };
      setTimeout(check, 1_000).unref();
    });
  }

  /** Read the agent's output, follow its exit, and write to it. */
  function wire(generation: Generation, handle: AcpAgentHandle): void {
    generation.writer = createMessageWriter(handle.stdin, {
      onBlocked: () => {
        generation.holdsInput = true;
        input.pause();
      },
      onDrained: () => releaseInput(generation),
    });
    handle.stdin.on("error", () => {
      // the agent went away without reading: its exit says what happened
    });
    handle.stdout.on("data", (chunk: Buffer) => {
      for (const item of generation.reader.push(chunk)) fromAgent(generation, item);
      timer.rearm();
    });
    const outputEnded = new Promise<void>((resolve) => {
      handle.stdout.once("end", () => resolve());
      handle.stdout.once("close", () => resolve());
      handle.stdout.once("error", () => resolve());
    });
    handle.stderr?.on("data", (chunk: Buffer) => {
      options.agentStderr?.write(chunk);
      if (generation === current) {
        const joined = Buffer.concat([stderrTail, chunk]);
        if (joined.length > STDERR_TAIL_BYTES) stderrTailCut = true;
        stderrTail = joined.subarray(-STDERR_TAIL_BYTES);
      }
      logStderr(generation, chunk);
    });
    void handle.exited.then(async (exit) => {
      // What it wrote before it died reaches the editor first: its output is waited for, a
      // second past its exit, not counting the time its pipe is not read because the editor's
      // is full (unless the proxy is stopping, or that lasts a minute).
      await Promise.race([outputEnded, outputQuiet()]);
      for (const item of generation.reader.end()) fromAgent(generation, item);
      // A last stderr line without its newline is logged too.
      logStderrLine(generation.stderrPending);
      generation.stderrPending = NO_BYTES;
      agentGone(generation, exit);
    });
  }

  /**
   * The agent's stderr into the log, a line at a time, as bytes (a character split between
   * chunks stays whole). A line longer than {@link STDERR_PIECE_BYTES} is logged in pieces:
   * an agent that never ends its line cannot make the proxy hold it all.
   */
  function logStderr(generation: Generation, chunk: Buffer): void {
    if (!options.log?.stderr) return;
    let pending = generation.stderrPending;
    let start = 0;
    for (let newline = chunk.indexOf(0x0a); newline !== -1; newline = chunk.indexOf(0x0a, start)) {
      const rest = chunk.subarray(start, newline);
      logStderrLine(pending.length === 0 ? rest : Buffer.concat([pending, rest]));
      pending = NO_BYTES;
      start = newline + 1;
    }
    const tail = chunk.subarray(start);
    pending = pending.length === 0 ? Buffer.from(tail) : Buffer.concat([pending, tail]);
    if (pending.length >= STDERR_PIECE_BYTES) {
      logStderrLine(pending);
      pending = NO_BYTES;
    }
    generation.stderrPending = pending;
  }

  function logStderrLine(line: Buffer): void {
    // Blank lines say nothing.
    if (line.length > 0 && /\S/.test(line.toString("latin1"))) options.log?.stderr?.(line);
  }

  /** An agent's stdin drained, or it is gone: the editor's input flows again (unless held). */
  function releaseInput(generation: Generation): void {
    if (!generation.holdsInput) return;
    generation.holdsInput = false;
    if (!inputPausedForHold) input.resume();
  }

  /** The agent is set up: pass on what the editor sent meanwhile. */
  function ready(generation: Generation): void {
    if (generation !== current || generation.state === "gone") return;
    generation.state = "ready";
    for (const item of held.splice(0)) forwardToAgent(item);
    heldKeys.clear();
    heldBytes = 0;
    if (inputPausedForHold) {
      inputPausedForHold = false;
      input.resume();
    }
  }

  /** Replay the setup the editor did on the previous process: initialize, authenticate, sessions. */
  async function setUp(generation: Generation, reload: SessionRecord[]): Promise<void> {
    const result = await askAgent(generation, METHODS.initialize, initializeParams ?? {});
    const features = agentFeatures(result);
    loadSession = features.loadSession;
    resumeSession = features.resumeSession;
    if (authentication) await askAgent(generation, authentication.method, authentication.params);
    for (const session of reload) {
      const method =
        version === 1 && loadSession
          ? METHODS.sessionLoad
          : resumeSession
            ? METHODS.sessionResume
            : undefined;
      if (method === undefined) {
        sessions.delete(session.sessionId);
        record("acp_session_reloaded", {
          session_id: session.sessionId,
          ok: false,
          summary: `${agentName} cannot load sessions (no loadSession or resume): session ${session.sessionId} is lost`,
        });
        continue;
      }
      reloading.set(session.sessionId, 0);
      try {
        await askAgent(generation, method, { ...session.setup, sessionId: session.sessionId });
      } catch (error) {
        sessions.delete(session.sessionId);
        record("acp_session_reloaded", {
          session_id: session.sessionId,
          ok: false,
          method,
          summary: `${method} of session ${session.sessionId} failed: ${(error as Error).message}`,
        });
        continue;
      } finally {
        const dropped = reloading.get(session.sessionId) ?? 0;
        reloading.delete(session.sessionId);
        if (dropped > 0) {
          record("acp_replay_dropped", {
            session_id: session.sessionId,
            count: dropped,
            summary: `${dropped} update${dropped === 1 ? "" : "s"} of replayed history kept from the editor, which has them`,
          });
        }
      }
      session.generation = generation.number;
      for (const setting of session.settings.values()) {
        await askAgent(generation, setting.method, setting.params).catch(() => undefined);
      }
      record("acp_session_reloaded", {
        session_id: session.sessionId,
        ok: true,
        method,
        settings: session.settings.size,
        summary: `session ${session.sessionId} loaded again (${method})`,
      });
    }
  }

  /** Kill the current agent (if any) and start another, loading its sessions again. */
  function restart(why: string, retireWhy = `${agentName} was restarted (${why})`): void {
    if (stopping !== undefined || failure !== undefined) return;
    const old = current;
    consecutiveRestarts += 1;
    if (consecutiveRestarts > maxRestarts) {
      record("acp_restart_gave_up", {
        restarts: consecutiveRestarts - 1,
        summary: `${maxRestarts} restarts in a row without a completed turn: not restarting ${agentName} again (${why})`,
      });
      retire(old, why);
      killGeneration(old, why);
      fail(
        `${agentName} was restarted ${maxRestarts} times in a row without completing a turn (${why}); restart the agent in your editor`,
      );
      return;
    }
    const reload = [...sessions.values()].filter((session) => session.generation === old.number);
    replace(old, retireWhy, why, reload);
  }

  /**
   * Put a new agent process in the place of `old`: what the editor sent that never reached
   * `old` goes to the new one; what `old` left open is answered or withdrawn; `old` is killed.
   */
  function replace(
    old: Generation,
    retireWhy: string,
    killWhy: string,
    reload: SessionRecord[],
  ): void {
    const next = newGeneration();
    for (const key of heldKeys) {
      const request = editorRequests.get(key);
      if (request) request.meta.generation = next.number;
    }
    for (const turn of turns.values()) {
      if (turn.generation !== old.number || turn.prompts.size === 0) continue;
      if ([...turn.prompts.keys()].every((key) => heldKeys.has(key))) turn.generation = next.number;
    }
    retire(old, retireWhy);
    killGeneration(old, killWhy);
    launch(next, reload);
  }

  function killGeneration(generation: Generation, why: string): void {
    generation.endedBecause ??= why;
    const handle = generation.handle;
    if (!handle || generation.exit) return;
    trackKill(
      handle.kill(why).then((report) => {
        record("acp_agent_killed", {
          pid: handle.pid,
          generation: generation.number,
          reason: why,
          steps: report.steps,
          survivors: report.survivors,
          summary: `killed ${agentName}'s process tree (pid ${handle.pid}): ${why}`,
        });
      }),
    );
  }

  /** A generation is done for: its open requests, both ways, are answered or withdrawn. */
  function retire(generation: Generation, why: string): void {
    // Its stdin will never drain now.
    releaseInput(generation);
    for (const turn of [...turns.values()]) {
      if (turn.generation !== generation.number) continue;
      reportInThread(
        turn,
        (call) => `cursor-wrap: ${callLabel(call)} was cut short: ${why}`,
        `cursor-wrap: the turn was cut short: ${why}`,
      );
      answerPromptsCancelled(turn);
      endTurn(turn, "agent gone", "cancelled");
    }
    failEditorRequests(generation.number, why);
    for (const [key, request] of [...agentRequests]) {
      if (request.generation === generation.number) withdrawAgentRequest(key, false, why);
    }
    for (const request of proxyRequests.values()) {
      if (request.meta.generation !== generation.number) continue;
      proxyRequests.settle(request.key);
      request.meta.reject(new Error(why));
    }
  }

  /**
   * A line of the current process that it will never finish (it exited, or it is replaced
   * mid-line: a hang in the middle of a long line) ends here, so that the editor's framing
   * recovers and the watchdog's own messages, queued behind it, reach the editor.
   */
  function endAgentLine(generation: Generation | undefined): void {
    if (generation === undefined || generation !== current || !toEditor.endLine()) return;
    record("acp_line_ended", {
      generation: generation.number,
      summary: `${agentName} left a line unfinished (its process is gone or replaced): ended there for the editor`,
    });
  }

  /** An agent process exited. */
  function agentGone(generation: Generation, exit: AgentExit): void {
    if (generation.state === "gone" && generation.exit) return;
    generation.state = "gone";
    generation.exit = exit;
    endAgentLine(generation);
    releaseInput(generation);
    const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
    record("acp_agent_exited", {
      pid: generation.handle?.pid,
      generation: generation.number,
      code: exit.code,
      signal: exit.signal,
      expected: generation.endedBecause !== undefined,
      summary: `${agentName} ${how}${generation.endedBecause ? ` (${generation.endedBecause})` : ""}`,
    });
    if (generation !== current) return;
    if (stopping !== undefined) {
      finish({
        exitCode: failure === undefined ? 0 : 1,
        reason: failure ?? `shut down: ${stopping}`,
      });
      return;
    }
    const said = stderrTail.toString("utf8");
    // What was cut off before the kept bytes leaves no piece of a word (a key) at their start.
    const kept = stderrTailCut ? withoutFirstWord(said) : said;
    const tail = kept.trim().split("\n").slice(-3).join(" | ");
    const why = `${agentName} ${how}${tail ? ` (it said: ${lastWords(tail, 500)})` : ""}`;
    if (failure !== undefined) return;
    if (initializeParams === undefined) {
      // It died before the editor set anything up: there is nothing to restore, only to say why.
      consecutiveRestarts += 1;
      if (consecutiveRestarts > maxRestarts) {
        retire(generation, why);
        fail(why);
        return;
      }
      replace(generation, why, why, []);
      return;
    }
    restart(why, `${why}; cursor-wrap restarts it`);
  }

  /** The agent cannot be run: every request is answered with why, until the editor leaves. */
  function fail(why: string): void {
    failure = why;
    for (const turn of [...turns.values()]) {
      answerPromptsCancelled(turn);
      endTurn(turn, "failed", "cancelled");
    }
    failEditorRequests("all", why, () => `cursor-wrap: ${why}`);
    // Held requests were answered above; the rest of what was held has no one to go to.
    held.splice(0);
    heldKeys.clear();
    heldBytes = 0;
    if (inputPausedForHold) {
      inputPausedForHold = false;
      input.resume();
    }
  }

  /** Answer a request that came after the agent failed for good. */
  function answerFailed(item: Incoming): void {
    if (item.kind !== "request") return;
    answeredByProxy.add(item.id.key);
    tellEditor(errorMessage(item.id, ERROR_CODES.internalError, `cursor-wrap: ${failure}`));
  }

  // ─── editor → agent ─────────────────────────────────────────────────────────────────────
  function logMessage(
    direction: "editor→agent" | "agent→editor" | "agent→proxy",
    item: Incoming,
    extra: JsonObject = {},
  ): void {
    if (!options.log) return;
    const fields: Record<string, unknown> = {
      dir: direction,
      kind: item.kind,
      bytes: item.raw.length,
    };
    switch (item.kind) {
      case "request":
        fields.id = loggedId(item.id);
        fields.method = item.method;
        fields.session_id = sessionIdOf(item.params);
        break;
      case "notification":
        fields.method = item.method;
        fields.session_id = sessionIdOf(item.params);
        if (item.method === METHODS.sessionUpdate) {
          const update = item.params?.update;
          fields.update = stringAt(update, "sessionUpdate");
          const toolCallId = stringAt(update, "toolCallId");
          if (toolCallId !== undefined) {
            fields.tool_call_id = toolCallId;
            fields.status = stringAt(update, "status");
          }
        }
        break;
      case "response":
        fields.id = loggedId(item.id);
        if (item.error) fields.error_code = item.error.code;
        break;
      case "invalid":
        fields.reason = item.reason;
        break;
      case "oversize":
        break;
    }
    record("acp_message", { ...fields, ...extra });
  }

  function fromEditor(item: Incoming): void {
    if (item.kind === "oversize") {
      toAgent(item);
      if (!item.final) return;
      oversizeLine("editor→agent", item.bytes);
      // An answer too long to parse (a big file the agent asked to read) still settles what
      // the agent waits for: its id was read as it passed.
      if (item.message?.kind === "response") settleAgentRequest(item.message.id.key, now());
      return;
    }
    logMessage("editor→agent", item);
    if (item.kind === "invalid" && item.batch) {
      rejectBatch(item.batch, item.raw.length);
      return;
    }
    if (failure !== undefined) {
      answerFailed(item);
      return;
    }
    const at = now();
    switch (item.kind) {
      case "request": {
        const sessionId = sessionIdOf(item.params);
        const isPrompt = item.method === METHODS.sessionPrompt && sessionId !== undefined;
        const key = item.id.key;
        answeredByProxy.delete(key);
        answeredByAgent.delete(key);
        editorRequests.add(
          key,
          {
            id: item.id,
            method: item.method,
            sessionId,
            generation: current.number,
            startedAt: at,
            params: KEPT_PARAMS.has(item.method) ? item.params : undefined,
          },
          // A prompt takes as long as its turn, which the monitor watches.
          {
            timeoutMs: isPrompt || !Number.isFinite(requestTimeoutMs) ? Infinity : requestTimeoutMs,
          },
        );
        if (item.method === METHODS.initialize) initializeParams = item.params ?? {};
        if (isPrompt) {
          const turn = turns.get(sessionId) ?? startTurn(sessionId, at, "prompt");
          turn.prompts.set(key, { id: item.id, acknowledged: false });
        }
        timer.rearm();
        break;
      }
      case "response": {
        const key = item.id.key;
        const request = settleAgentRequest(key, at);
        if (request) {
          if (request.generation !== current.number || current.state === "gone") {
            withdrawn.add(key);
            record("acp_answer_dropped", {
              id: loggedId(item.id),
              method: request.method,
              summary: `the editor answered ${request.method} of an agent process that is gone: dropped`,
            });
            return;
          }
          if (request.editorId !== request.id) {
            // The id was changed on the way out: the agent gets its own back, exactly, and
            // every other byte of the answer as the editor wrote it.
            const raw = lineWithId(item.raw, request.id);
            if (raw !== undefined) {
              toAgent({ ...item, raw });
              return;
            }
          }
        } else if (withdrawn.has(key)) {
          record("acp_answer_dropped", {
            id: loggedId(item.id),
            summary: "the editor answered a request that was withdrawn: dropped",
          });
          return;
        } else {
          record("acp_unknown_response", {
            dir: "editor→agent",
            id: loggedId(item.id),
            summary: "a response to no pending request of the agent: forwarded",
          });
        }
        break;
      }
      case "notification":
        if (item.method === METHODS.sessionCancel) editorCancelled(sessionIdOf(item.params), at);
        break;
      case "invalid":
        break;
    }
    toAgent(item);
  }

  /**
   * The editor cancelled a turn itself (its Stop button): the agent must end the turn
   * `cancelled`, and gets the same grace as after a cancel of the proxy's own; past it, the
   * prompt is answered `cancelled` and a parked agent is restarted. The editor is not left
   * waiting on an agent that ignores the cancel, nor on a tool call's own deadline.
   */
  function editorCancelled(sessionId: string | undefined, at: number): void {
    const turn = sessionId === undefined ? undefined : turns.get(sessionId);
    if (!turn || turn.recovery) return;
    record("acp_editor_cancel", {
      session_id: turn.sessionId,
      grace_ms: cancelGraceMs,
      summary: `the editor cancelled the turn; ${agentName} has ${formatDuration(cancelGraceMs)} to end it`,
    });
    if (current.number === turn.generation) sampleFor(turn);
    turn.recovery = {
      reason: "the editor cancelled the turn",
      verdict: "cancel",
      cancelledAt: at,
      graceUntil: at + cancelGraceMs,
    };
    timer.rearm({ exact: true });
  }

  /**
   * A batch from the editor: ACP has none, and an agent that answered one would answer with an
   * array the proxy cannot pass back. Each request in it is answered with an error; a batch of
   * neither requests nor notifications (`[]`) gets one with a null id, as JSON-RPC answers it.
   */
  function rejectBatch(batch: JsonRpcBatch, bytes: number): void {
    const why =
      "cursor-wrap's ACP watchdog does not pass JSON-RPC batches on: ACP does not use them; send each message on its own line";
    for (const id of batch.requestIds) answeredByProxy.add(id.key);
    for (const line of batchRejection(batch, ERROR_CODES.invalidRequest, why)) tellEditor(line);
    record("acp_batch_rejected", {
      bytes,
      requests: batch.requestIds.length,
      ids: batch.requestIds.slice(0, 50).map(loggedId),
      summary:
        batch.requestIds.length > 0
          ? `a batch from the editor was not passed on; its ${batch.requestIds.length} request(s) answered with an error`
          : batch.notifications > 0
            ? "a batch of notifications from the editor was not passed on (they get no answer)"
            : "a batch from the editor was not passed on; it holds no message, so one error with a null id answered it",
    });
  }

  /** Pass editor bytes to the agent, or hold them while it starts. */
  function toAgent(item: Incoming): void {
    if (current.state === "ready") {
      forwardToAgent(item);
      return;
    }
    held.push(item);
    if (item.kind === "request") heldKeys.add(item.id.key);
    heldBytes += item.raw.length;
    if (heldBytes > MAX_HELD_BYTES && !inputPausedForHold) {
      inputPausedForHold = true;
      input.pause();
    }
  }

  function forwardToAgent(item: Incoming): void {
    const whole = item.kind === "oversize" ? item.final : !item.unterminated;
    current.writer?.forward(item.raw, whole);
  }

  // ─── agent → editor ─────────────────────────────────────────────────────────────────────
  // The agent's line above the cap being dropped, piece by piece (it is not JSON).
  let droppingOversize = false;

  function fromAgent(generation: Generation, item: Incoming): void {
    if (generation !== current) {
      // A process the proxy replaced: what it still says belongs to no one.
      return;
    }
    const at = now();
    if (item.kind === "oversize") {
      // A sign of life for every turn of this process, whichever it belongs to.
      for (const turn of turns.values()) {
        if (!turn.recovery) turn.monitor.observe({ type: "activity", eventType: "oversize" }, at);
      }
      // A line that does not begin as a JSON object cannot be a message: kept from the
      // editor however long it is, as a short one is.
      if (item.first) droppingOversize = !beginsAsObject(item.raw);
      if (droppingOversize) {
        if (!item.final) return;
        droppingOversize = false;
        record("acp_invalid_line", {
          reason: "not-json",
          bytes: item.bytes,
          head: item.raw.subarray(0, 200).toString("utf8"),
          summary: `dropped a line of ${item.bytes} bytes from ${agentName} that is not a JSON-RPC message (not-json)`,
        });
        return;
      }
      toEditor.forward(item.raw, item.final);
      if (!item.final) return;
      oversizeLine("agent→editor", item.bytes);
      // An answer too long to parse is still the answer: the editor's request is settled (and a
      // prompt's turn ended) as by any other, so the proxy never answers it a second time.
      if (item.message?.kind === "response") settleAnsweredInPieces(item.message);
      return;
    }
    if (item.kind === "invalid") {
      record("acp_invalid_line", {
        reason: item.reason,
        bytes: item.raw.length,
        head: item.head,
        summary:
          item.reason === "smuggled"
            ? `dropped a message from ${agentName} that came after a line cut short: it may have been part of that line`
            : `dropped a line from ${agentName} that is not a JSON-RPC message (${item.reason})`,
      });
      return;
    }
    switch (item.kind) {
      case "response":
        fromAgentResponse(item, at);
        return;
      case "notification":
        fromAgentNotification(item, at);
        return;
      case "request":
        fromAgentRequest(generation, item, at);
        return;
      default: {
        const unreachable: never = item;
        throw new Error(`unexpected message ${JSON.stringify(unreachable)}`);
      }
    }
  }

  /** One record for a line above the cap, once it has passed. */
  function oversizeLine(dir: "editor→agent" | "agent→editor", bytes: number): void {
    record("acp_oversize_line", {
      dir,
      bytes,
      summary: `a line of ${bytes} bytes passed through unparsed`,
    });
  }

  /** A response above the cap, already forwarded in pieces: what it settles. */
  function settleAnsweredInPieces(response: { id: JsonRpcId; isError: boolean }): void {
    const key = response.id.key;
    const own = proxyRequests.settle(key)?.meta;
    if (own) {
      own.reject(new Error(`the answer to ${own.method} was too long to read`));
      return;
    }
    const request = editorRequests.settle(key)?.meta;
    if (!request) return;
    answeredByAgent.add(key);
    // Its result was not read: a prompt's turn ends without its stop reason.
    learnFrom(request, !response.isError, undefined);
  }

  function fromAgentResponse(item: Extract<Incoming, { kind: "response" }>, at: number): void {
    const key = item.id.key;
    const own = proxyRequests.settle(key)?.meta;
    if (own) {
      logMessage("agent→proxy", item, { method: own.method });
      if (item.error) own.reject(new Error(`${item.error.code} ${item.error.message}`));
      else own.resolve(item.result);
      return;
    }
    const request = editorRequests.settle(key)?.meta;
    if (!request) {
      if (answeredByProxy.has(key) || answeredByAgent.has(key)) {
        record("acp_late_response", {
          id: loggedId(item.id),
          summary: answeredByProxy.has(key)
            ? "an answer came for a request cursor-wrap had answered: dropped"
            : "a second answer to one request: dropped",
        });
        return;
      }
      record("acp_unknown_response", {
        dir: "agent→editor",
        id: loggedId(item.id),
        summary:
          item.id.value === null
            ? "an answer with a null id (the agent could not read a line of the editor's): forwarded"
            : "a response to no pending request: forwarded",
      });
      logMessage("agent→editor", item);
      toEditor.forward(item.raw, !item.unterminated);
      return;
    }
    answeredByAgent.add(key);
    logMessage("agent→editor", item, {
      method: request.method,
      latency_ms: Math.round((at - request.startedAt) * 1000) / 1000,
    });
    toEditor.forward(item.raw, !item.unterminated);
    learnFrom(request, item.error === undefined, item.result);
  }

  /**
   * What a response to the editor's request tells the proxy (versions, sessions, the end of a
   * turn): `ok` unless it is an error; `result` undefined when it was too long to read.
   */
  function learnFrom(request: EditorRequest, ok: boolean, result: unknown): void {
    switch (request.method) {
      case METHODS.initialize: {
        if (!ok) return;
        const features = agentFeatures(result);
        version = features.version;
        loadSession = features.loadSession;
        resumeSession = features.resumeSession;
        record("acp_negotiated", {
          protocol_version: features.protocolVersion,
          version: features.version,
          load_session: features.loadSession,
          resume_session: features.resumeSession,
          summary: `ACP v${features.version}${features.loadSession ? ", session/load" : ""}${features.resumeSession ? ", session/resume" : ""}`,
        });
        return;
      }
      case METHODS.authenticate:
      case METHODS.authLogin:
        if (ok) authentication = { method: request.method, params: request.params ?? {} };
        return;
      case METHODS.sessionNew:
      case METHODS.sessionLoad:
      case METHODS.sessionResume: {
        const sessionId =
          request.method === METHODS.sessionNew ? stringAt(result, "sessionId") : request.sessionId;
        if (!ok || sessionId === undefined) return;
        const { sessionId: _given, ...setup } = request.params ?? {};
        const known = sessions.get(sessionId);
        sessions.set(sessionId, {
          sessionId,
          setup,
          generation: current.number,
          settings: known?.settings ?? new Map(),
        });
        return;
      }
      case METHODS.sessionClose:
      case METHODS.sessionDelete:
        if (ok && request.sessionId !== undefined) sessions.delete(request.sessionId);
        return;
      case METHODS.sessionPrompt: {
        const turn = request.sessionId === undefined ? undefined : turns.get(request.sessionId);
        if (!turn) return;
        const key = request.id.key;
        if (version === 2 && ok) {
          const prompt = turn.prompts.get(key);
          if (prompt) prompt.acknowledged = true;
          return;
        }
        turn.prompts.delete(key);
        if (turn.prompts.size > 0) return;
        const stopReason = ok ? stringAt(result, "stopReason") : undefined;
        if (turn.recovery?.verdict === "cancel") {
          // The agent ended the turn itself: `cancelled`, or an end it had reached anyway.
          endTurn(
            turn,
            !ok ? "error" : stopReason === "cancelled" ? "cancelled" : "completed",
            stopReason,
          );
        } else if (turn.recovery) {
          record("acp_cancel_honoured", {
            session_id: turn.sessionId,
            stop_reason: stopReason,
            summary: `${agentName} ended the cancelled turn itself (${stopReason ?? "with an error"})`,
          });
          endTurn(turn, "cancelled by cursor-wrap", stopReason);
        } else {
          endTurn(turn, ok ? "completed" : "error", stopReason);
        }
        return;
      }
      default:
        if (ok && SETTING_METHODS.has(request.method) && request.sessionId !== undefined) {
          const session = sessions.get(request.sessionId);
          const option =
            stringAt(request.params, "configId") ?? stringAt(request.params, "modeId") ?? "";
          const key =
            request.method === "session/set_config_option"
              ? `${request.method}:${option}`
              : request.method;
          session?.settings.set(key, { method: request.method, params: request.params ?? {} });
        }
    }
  }

  function fromAgentNotification(
    item: Extract<Incoming, { kind: "notification" }>,
    at: number,
  ): void {
    const sessionId = sessionIdOf(item.params);
    if (
      item.method === METHODS.sessionUpdate &&
      sessionId !== undefined &&
      reloading.has(sessionId)
    ) {
      reloading.set(sessionId, (reloading.get(sessionId) ?? 0) + 1);
      return;
    }
    logMessage("agent→editor", item);
    toEditor.forward(item.raw, !item.unterminated);
    if (item.method !== METHODS.sessionUpdate || sessionId === undefined) {
      // Another notification (Cursor's `cursor/update_todos`, `cursor/task`, …): a sign of
      // life for the turn it names, or for every turn when it names none.
      for (const turn of turns.values()) {
        if (sessionId !== undefined && turn.sessionId !== sessionId) continue;
        if (!turn.recovery) turn.monitor.observe({ type: "activity", eventType: item.method }, at);
      }
      return;
    }
    const meaning = updateMeaning(item.params?.update as JsonObject | undefined);
    let turn = turns.get(sessionId);
    if (meaning.kind === "state") {
      if (meaning.state === "running" && !turn && version === 2) {
        turn = startTurn(sessionId, at, "agent");
      }
      if (!turn) return;
      if (meaning.state === "idle") {
        const stopReason = typeof meaning.stopReason === "string" ? meaning.stopReason : undefined;
        if (turn.recovery?.verdict === "cancel") {
          endTurn(turn, "cancelled", stopReason);
        } else if (turn.recovery) {
          record("acp_cancel_honoured", {
            session_id: sessionId,
            stop_reason: stopReason,
            summary: `${agentName} ended the cancelled work itself (${stopReason ?? "idle"})`,
          });
          endTurn(turn, "cancelled by cursor-wrap", stopReason);
        } else {
          endTurn(turn, stopReason === "cancelled" ? "cancelled" : "completed", stopReason);
        }
        return;
      }
      turn.requiresAction = meaning.state === "requires_action";
      if (!turn.recovery)
        turn.monitor.observe({ type: "activity", eventType: `state_update:${meaning.state}` }, at);
      updateWaiting(turn, at);
      return;
    }
    if (!turn || turn.recovery) return;
    const observed = observeUpdate(turn, meaning, at);
    if (observed.opened) {
      record("acp_tool_call", {
        session_id: sessionId,
        event: "opened",
        tool_call_id: observed.opened.id,
        kind: observed.opened.kind,
        title: observed.opened.title,
        name: observed.opened.name,
      });
    }
    if (observed.closed) {
      record("acp_tool_call", {
        session_id: sessionId,
        event: "closed",
        tool_call_id: observed.closed.id,
        status: observed.closed.status,
        elapsed_ms: Math.round(at - observed.closed.startedAt),
      });
    }
  }

  function fromAgentRequest(
    generation: Generation,
    item: Extract<Incoming, { kind: "request" }>,
    at: number,
  ): void {
    const sessionId = sessionIdOf(item.params);
    let key = item.id.key;
    let editorId: JsonRpcId = item.id;
    // A new process reuses ids an earlier one left open at the editor: the editor must not
    // take one for the other, so this one gets an id of its own on the way out; one no request
    // open at the editor has (the agent may have sent that very string as an id too).
    for (let n = 1; agentRequests.has(key) || withdrawn.has(key); n += 1) {
      editorId = rpcId(`cursor-wrap:${generation.number}:${item.id.text}${n === 1 ? "" : `:${n}`}`);
      key = editorId.key;
    }
    const held = heldTurns(sessionId, item.params, generation).filter((turn) => !turn.recovery);
    const request: AgentRequest = {
      id: item.id,
      editorId,
      method: item.method,
      description: describeAgentRequest(item.method, item.params),
      sessionId: sessionId ?? (held.length === 1 ? held[0]!.sessionId : undefined),
      generation: generation.number,
      startedAt: at,
      turns: held,
    };
    agentRequests.set(key, request);
    logMessage("agent→editor", item);
    if (editorId === item.id) {
      toEditor.forward(item.raw, !item.unterminated);
    } else {
      // Only the id changes: every other byte goes as the agent wrote it.
      toEditor.forward(lineWithId(item.raw, editorId) ?? item.raw, !item.unterminated);
    }
    for (const turn of request.turns) {
      turn.monitor.observe({ type: "activity", eventType: item.method }, at);
      turn.awaited.set(key, awaitedOf(request));
      updateWaiting(turn, at);
    }
  }

  /**
   * The turns a request of the agent holds up: its session's; else (Cursor's `cursor/*`
   * requests name no session) the turn of its `toolCallId`, the only turn running, or, when it
   * cannot be told, every turn of the process, so none is called hung while it waits on you.
   */
  function heldTurns(
    sessionId: string | undefined,
    params: JsonObject | undefined,
    generation: Generation,
  ): Turn[] {
    if (sessionId !== undefined) {
      const turn = turns.get(sessionId);
      return turn ? [turn] : [];
    }
    const running = [...turns.values()].filter((turn) => turn.generation === generation.number);
    const toolCallId = stringAt(params, "toolCallId");
    const owner = running.find((turn) => toolCallId !== undefined && turn.calls.has(toolCallId));
    return owner ? [owner] : running;
  }

  // ─── shutdown ───────────────────────────────────────────────────────────────────────────
  function finish(end: AcpProxyEnd): void {
    if (finished) return;
    finished = true;
    timer.stop();
    input.off("data", onEditorData);
    input.off("end", onEditorEnd);
    for (const request of proxyRequests.drain()) request.meta.reject(new Error("the proxy ended"));
    proxyRequests.stop();
    editorRequests.stop();
    void Promise.all([...kills]).then(() => {
      record("acp_proxy_end", { exit_code: end.exitCode, summary: end.reason });
      resolveDone(end);
    });
  }

  /** Shut the agent down in stages: its stdin closed, a grace, its whole tree killed. */
  function stop(reason: string, how: { hurry?: boolean } = {}): void {
    if (stopping !== undefined || finished) return;
    stopping = reason;
    record("acp_shutdown", { reason, summary: `shutting ${agentName} down: ${reason}` });
    if (how.hurry) {
      // The editor is still there: it hears of the end instead of waiting on it.
      for (const turn of [...turns.values()]) {
        answerPromptsCancelled(turn);
        endTurn(turn, "shut down", "cancelled");
      }
      failEditorRequests("all", `shutting down (${reason})`);
    }
    const generation = current;
    const handle = generation.handle;
    if (!handle || generation.exit) {
      if (generation.state !== "starting") {
        finish({
          exitCode: failure === undefined ? 0 : 1,
          reason: failure ?? `shut down: ${reason}`,
        });
      }
      // Still starting: it is killed as soon as it is up, and its exit ends the proxy.
      return;
    }
    generation.endedBecause = reason;
    handle.stdin.end();
    if (how.hurry) {
      killGeneration(generation, reason);
      return;
    }
    const grace = new Promise<"grace">((resolve) =>
      setTimeout(
        () => resolve("grace"),
        options.stdinCloseGraceMs ?? ACP_DEFAULTS.stdinCloseGraceMs,
      ).unref(),
    );
    void Promise.race([handle.exited.then(() => "exited" as const), grace]).then((first) => {
      if (first === "exited") return;
      record("acp_shutdown", {
        step: "kill",
        summary: `${agentName} did not exit after its stdin closed: killing its process tree`,
      });
      killGeneration(generation, reason);
    });
  }

  const editorReader = createMessageReader({ maxLineBytes });
  const onEditorData = (chunk: Buffer): void => {
    for (const item of editorReader.push(chunk)) fromEditor(item);
    timer.rearm();
  };
  const onEditorEnd = (): void => {
    for (const item of editorReader.end()) fromEditor(item);
    stop("the editor closed its end");
  };

  record("acp_proxy_start", {
    ...options.context,
    agent: agentName,
    monitor: monitorOptions,
    cancel_grace_ms: cancelGraceMs,
    max_restarts: maxRestarts,
    request_timeout_ms: requestTimeoutMs,
  });
  launch(newGeneration(), []);
  input.on("data", onEditorData);
  input.once("end", onEditorEnd);

  return {
    get agentPid() {
      return current.handle?.pid;
    },
    get generations() {
      return generationCount;
    },
    done,
    shutdown: stop,
  };
}
