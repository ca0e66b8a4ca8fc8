import { closeSync, createReadStream, openSync, readSync } from "node:fs";
import {
  createLineFramer,
  recordedTimeline,
  sessionIdOf,
  terminalSafe,
  terminalSafeJson,
  toMonitorSignal,
} from "@cursor-wrap/events";
import { isLogRecord, logEntryEvent, readSessionLog } from "@cursor-wrap/logger";
import {
  type MonitorSignal,
  type SimulationEntry,
  simulate,
  type TimedSignal,
} from "@cursor-wrap/monitor";
import { RECORDS, type RecordName } from "@cursor-wrap/run";
import { formatDuration } from "@cursor-wrap/wording";
import { resolveOptions } from "../../options/flag-table.js";
import {
  MONITOR_FLAGS,
  type MonitorThresholds,
  monitorOptions,
  monitorThresholdsOf,
} from "../../options/monitor-options.js";
import { printError } from "../../print-error.js";
import { readableFile } from "../../readable-file.js";
import type { RunIo } from "../../run-io.js";
import { UsageError } from "../../usage-error.js";

/** The thresholds `replay` takes (the run command's flags of the same names). */
export type ReplayThresholds = MonitorThresholds;

/** Options of `cursor-wrap replay`. */
export interface ReplayOptions {
  /** A session log or a raw stream-json capture. */
  file: string;
  json: boolean;
  /**
   * Keep the clock running this long after the last line (`--tail`), ms. Default: until the
   * next verdict for a turn that ends without a result and without a recorded kill (something
   * stopped it), else 0.
   */
  tailMs: number | undefined;
  /**
   * Thresholds given by flags or variables. The others are the ones a session log recorded,
   * else the defaults.
   */
  thresholds: Partial<ReplayThresholds>;
}

/**
 * The fields each threshold had in the `options` record of logs written before it held the
 * monitor's options as one object. Frozen: a new threshold is in `monitor` only.
 */
const EARLIER_FIELDS: Readonly<Record<string, keyof ReplayThresholds>> = {
  idle_timeout_ms: "idleTimeoutMs",
  tool_grace_ms: "toolGraceMs",
  tool_timeouts: "toolTimeouts",
  exit_grace_ms: "exitGraceMs",
  max_turn_ms: "maxTurnMs",
  first_output_ms: "firstOutputMs",
  max_quiet_ms: "maxQuietMs",
  max_drain_ms: "maxDrainMs",
  background_wait_ms: "backgroundWaitMs",
};

/** The thresholds a session log's `options` record holds (either form). */
export function recordedThresholds(record: Record<string, unknown>): Partial<ReplayThresholds> {
  if ("monitor" in record) return monitorThresholdsOf(record.monitor);
  const thresholds: Record<string, unknown> = {};
  for (const [field, key] of Object.entries(EARLIER_FIELDS)) {
    const value = record[field];
    // Logs write `null` for "off" (JSON has no Infinity).
    if (typeof value === "number") thresholds[key] = value;
    else if (value === null) thresholds[key] = Number.POSITIVE_INFINITY;
    else if (key === "toolTimeouts" && typeof value === "object") thresholds[key] = value;
  }
  return thresholds as Partial<ReplayThresholds>;
}

/** A recorded turn, ready to be replayed. */
interface RecordedTurn {
  sessionId: string | undefined;
  startedAt: number;
  endedAt: number;
  lines: number;
  signals: TimedSignal[];
  /** What the wrapper actually decided during the turn (logs only). */
  recorded: Array<{ at: number; message: string }>;
  /** The agent's result arrived. */
  hasResult: boolean;
  /** The wrapper killed the agent during the turn (logs only). */
  killed: boolean;
  /** The log holds samples of the agent's processes (a capture never does). */
  sampled: boolean;
  /** A measured sample found none of the agent's processes (taken once, as the run takes it). */
  treeGone?: boolean;
}

/** What replay does with a record of the log, by the table. */
function replayRole(message: unknown): (typeof RECORDS)[RecordName]["replay"] {
  return typeof message === "string" && Object.hasOwn(RECORDS, message)
    ? RECORDS[message as RecordName].replay
    : undefined;
}

/** The first lines of a file (up to 64 KiB of it). */
function firstLines(path: string): string[] {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, read).toString("utf8").split("\n").slice(0, 8);
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether a file is a cursor-wrap session log (rather than raw agent output): one of its first
 * lines is a record of one (a log whose first line a crash or an editor damaged still is).
 */
function isSessionLog(path: string): boolean {
  return firstLines(path).some((line) => {
    try {
      const record = JSON.parse(line) as unknown;
      return (
        typeof record === "object" &&
        record !== null &&
        isLogRecord(record as Record<string, unknown>)
      );
    } catch {
      return false;
    }
  });
}

/** A capture: one turn at the agent's own timing (`timestamp_ms`). */
async function captureTurns(path: string): Promise<RecordedTurn[]> {
  const framer = createLineFramer();
  const events = [];
  for await (const chunk of createReadStream(path)) events.push(...framer.push(chunk as Buffer));
  events.push(...framer.end());
  const times = recordedTimeline(events);
  const signals = events.map((event, index) => ({
    at: times[index]!,
    signal: toMonitorSignal(event),
  }));
  return [
    {
      sessionId: events.map(sessionIdOf).find(Boolean),
      startedAt: times[0] ?? 0,
      endedAt: times.at(-1) ?? 0,
      // A line above the parse cap comes as pieces: it is one line.
      lines: events.filter((event) => event.kind !== "oversize" || event.first).length,
      signals,
      recorded: [],
      hasResult: signals.some(({ signal }) => signal.type === "done"),
      killed: false,
      sampled: false,
    },
  ];
}

/** A session log: one turn per agent start, at the wrapper's receive times. */
async function logTurns(path: string): Promise<{
  turns: RecordedTurn[];
  thresholds: Partial<ReplayThresholds>;
  damaged: { truncated: number; other: number };
  /** The log is an MCP or ACP proxy's, which has no turns of a supervised run. */
  proxy?: "MCP" | "ACP";
}> {
  let proxy: "MCP" | "ACP" | undefined;
  const turns: RecordedTurn[] = [];
  let thresholds: Partial<ReplayThresholds> = {};
  let turn: RecordedTurn | undefined;
  const damaged = { truncated: 0, other: 0 };
  for await (const entry of readSessionLog(path)) {
    if (entry.kind === "damaged") {
      damaged[entry.truncated ? "truncated" : "other"] += 1;
      continue;
    }
    if (entry.kind === "record") {
      const { record } = entry;
      if (record.msg === "mcp_proxy_start") proxy = "MCP";
      else if (record.msg === "acp_proxy_start") proxy = "ACP";
      const at = Number(record.ts ?? record.time ?? 0);
      const role = replayRole(record.msg);
      if (record.msg === "options") thresholds = recordedThresholds(record);
      if (role === "turn-start") {
        turn = {
          sessionId: undefined,
          startedAt: at,
          endedAt: at,
          lines: 0,
          signals: [],
          recorded: [],
          hasResult: false,
          killed: false,
          sampled: false,
        };
        turns.push(turn);
      } else if (turn && record.stream === "stderr") {
        turn.signals.push({ at, signal: { type: "activity", eventType: "stderr", aside: true } });
      } else if (
        turn &&
        role === "liveness" &&
        typeof record.cpu_ms === "number" &&
        record.processes === 0 &&
        !turn.treeGone
      ) {
        turn.treeGone = true;
        // A measured sample with none of the agent's processes left: it had exited, and the
        // run took that for the end coming, not for silence (see run-turn's sampling).
        turn.signals.push({ at, signal: { type: "activity", eventType: "exited", aside: true } });
        turn.sampled = true;
      } else if (turn && role === "liveness") {
        // A recorded sample of the agent's processes: the monitor's answer when it asks again.
        // No figure recorded: the run could not look at the processes (it said so, not 0 ms).
        const measured = typeof record.cpu_ms === "number";
        const signal: MonitorSignal = {
          type: "liveness",
          cpuMs: measured ? (record.cpu_ms as number) : 0,
          ...(measured ? {} : { unmeasured: true }),
        };
        if (typeof record.io_bytes === "number") signal.ioBytes = record.io_bytes;
        if (Array.isArray(record.pids)) {
          signal.pids = record.pids.filter((pid): pid is number => typeof pid === "number");
        }
        turn.signals.push({ at, signal });
        turn.sampled = true;
      } else if (turn && role === "turn-exit") {
        turn.signals.push({ at, signal: { type: "exit", eventType: "exit" } });
        turn.endedAt = at;
      } else if (turn && role === "decided") {
        if (record.msg === "agent_killed") turn.killed = true;
        turn.recorded.push({
          at,
          message: `${record.msg}${typeof record.summary === "string" ? `: ${record.summary}` : ""}`,
        });
      }
      continue;
    }
    if (!turn) continue;
    const event = logEntryEvent(entry);
    const signal = event
      ? toMonitorSignal(event)
      : { type: "activity" as const, eventType: "oversize" };
    if (event) turn.sessionId ??= sessionIdOf(event);
    if (signal.type === "done") turn.hasResult = true;
    turn.signals.push({ at: entry.recvTs, signal });
    // A line above the parse cap is logged as its head and, at its end, its length: one line.
    if (entry.kind !== "oversize" || entry.bytes === undefined) turn.lines += 1;
    turn.endedAt = Math.max(turn.endedAt, entry.recvTs);
  }
  return { turns, thresholds, damaged, ...(proxy === undefined ? {} : { proxy }) };
}

function describe(entry: SimulationEntry): string {
  switch (entry.type) {
    case "notice":
      return `notice   ${entry.warning.message}`;
    case "warning":
      return `warning  ${entry.warning.message}`;
    case "working":
      return `working  ${entry.report.message}`;
    case "unsampled":
      return "sample   none recorded here: the agent's processes are taken as parked";
    case "verdict":
      return `${entry.verdict.toUpperCase().padEnd(8)} ${entry.reason.message}`;
  }
}

/** The details of an entry in `--json` output. */
function entryDetails(entry: SimulationEntry): Record<string, unknown> {
  switch (entry.type) {
    case "notice":
    case "warning":
      return { message: entry.warning.message };
    case "working":
      return { message: entry.report.message, liveness: entry.report };
    case "unsampled":
      return { message: "no sample recorded: taken as parked" };
    case "verdict":
      return { verdict: entry.verdict, reason: entry.reason };
  }
}

/** What was skipped of a log that is not whole JSON records. */
function damageNotes({ truncated, other }: { truncated: number; other: number }): string[] {
  const notes: string[] = [];
  if (truncated > 0) notes.push("a truncated record at the end (a write cut short) was skipped");
  if (other > 0) notes.push(`${other} damaged record${other === 1 ? " was" : "s were"} skipped`);
  return notes;
}

/**
 * `cursor-wrap replay <log-or-capture>` (R-CLI6): run the monitor over recorded output on a
 * simulated clock and show when each warning and verdict would have fired with the given
 * thresholds, for tuning them on real data.
 */
export async function replayCommand(replay: ReplayOptions, io: RunIo): Promise<number> {
  const file = readableFile(replay.file, "the log or capture");
  const { tailMs } = replay;
  const log = isSessionLog(file);
  const recorded = log
    ? await logTurns(file)
    : { turns: await captureTurns(file), thresholds: {}, damaged: { truncated: 0, other: 0 } };
  const { turns } = recorded;
  if ("proxy" in recorded && recorded.proxy !== undefined && turns.length === 0) {
    // Its requests and prompt turns are not a run's turns: `logs show` tells its story.
    throw new UsageError(
      `replay reads the logs of supervised runs and captures of agent output; ${terminalSafe(file)} is an ${recorded.proxy} proxy's log (cursor-wrap logs show ${terminalSafe(file)} shows it)`,
    );
  }
  // Flags and variables first, then what the log recorded, then the defaults.
  const options = {
    ...resolveOptions(MONITOR_FLAGS, { given: new Map(), env: {} }),
    ...recorded.thresholds,
    ...replay.thresholds,
  };
  const results = turns.map((turn, index) => {
    // A turn that ends without a result, a kill or the agent's own exit was stopped by
    // something (the wrapper killed, a capture cut off): carry the silence on to the verdict it
    // would have met. An agent that exited (a usage limit, a crash) ended its turn itself.
    const exited = turn.signals.some(({ signal }) => signal.type === "exit");
    const assumedSilence = tailMs === undefined && !turn.hasResult && !turn.killed && !exited;
    const simulation = simulate(turn.signals, {
      ...monitorOptions(options),
      startedAt: turn.startedAt,
      until: assumedSilence ? Number.POSITIVE_INFINITY : turn.endedAt + (tailMs ?? 0),
    });
    return { index: index + 1, turn, simulation, assumedSilence };
  });

  if (replay.json) {
    for (const note of damageNotes(recorded.damaged)) printError(io.stderr, note);
    const json = results.map(({ index, turn, simulation, assumedSilence }) => ({
      turn: index,
      session_id: turn.sessionId,
      lines: turn.lines,
      duration_ms: turn.endedAt - turn.startedAt,
      entries: simulation.entries.map((entry) => ({
        at_ms: entry.at - turn.startedAt,
        type: entry.type,
        ...entryDetails(entry),
      })),
      verdict: simulation.verdict
        ? { at_ms: simulation.verdict.at - turn.startedAt, verdict: simulation.verdict.verdict }
        : null,
      recorded: turn.recorded.map((item) => ({
        at_ms: item.at - turn.startedAt,
        message: item.message,
      })),
      assumed_silence_after_end: assumedSilence,
      process_samples_recorded: turn.sampled,
    }));
    io.stdout.write(`${terminalSafeJson(JSON.stringify(json, null, 2))}\n`);
    return 0;
  }

  const thresholds = `idle ${formatDuration(options.idleTimeoutMs)}, tool grace ${formatDuration(options.toolGraceMs)}, exit grace ${formatDuration(options.exitGraceMs)}${options.maxTurnMs ? `, budget ${formatDuration(options.maxTurnMs)}` : ""}`;
  const source =
    Object.keys(recorded.thresholds).length > 0 ? " (as the log recorded them, flags first)" : "";
  io.stdout.write(
    `${log ? "session log" : "capture"} ${terminalSafe(file)}\nthresholds: ${thresholds}${source}\n`,
  );
  for (const note of damageNotes(recorded.damaged)) io.stdout.write(`${note}\n`);
  for (const { index, turn, simulation, assumedSilence } of results) {
    const offset = (at: number) => `+${formatDuration(at - turn.startedAt)}`.padEnd(10);
    io.stdout.write(
      `\nturn ${index}${turn.sessionId ? ` · session ${terminalSafe(turn.sessionId)}` : ""} · ${turn.lines} lines over ${formatDuration(turn.endedAt - turn.startedAt)}\n`,
    );
    if (assumedSilence) {
      io.stdout.write(
        `  the ${log ? "turn" : "capture"} ends without a result; assuming silence after its end (--tail 0 to stop at the end)\n`,
      );
    }
    if (!turn.sampled && simulation.entries.some((entry) => entry.type === "unsampled")) {
      io.stdout.write(
        `  the ${log ? "log" : "capture"} holds no samples of the agent's processes (${log ? "none were taken" : "raw output carries no CPU data"}): where the quiet-but-working rule wants one, the agent is taken as parked\n`,
      );
    }
    for (const entry of simulation.entries) {
      if (entry.type === "unsampled" && !turn.sampled) continue;
      io.stdout.write(`  ${offset(entry.at)}${terminalSafe(describe(entry))}\n`);
    }
    if (!simulation.verdict) io.stdout.write("  no verdict: nothing would have been killed\n");
    for (const item of turn.recorded)
      io.stdout.write(`  recorded ${offset(item.at)}${terminalSafe(item.message)}\n`);
  }
  return 0;
}
