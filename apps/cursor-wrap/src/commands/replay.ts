import { closeSync, createReadStream, openSync, readSync } from "node:fs";
import {
  createLineFramer,
  recordedTimeline,
  sessionIdOf,
  toMonitorSignal,
} from "@cursor-wrap/events";
import { logEntryEvent, readSessionLog } from "@cursor-wrap/logger";
import {
  formatDuration,
  type SimulationEntry,
  simulate,
  type TimedSignal,
} from "@cursor-wrap/monitor";
import { RECORDS, type RecordName } from "../log-records.js";
import { monitorOptions } from "../options/resolve.js";
import type { RunOptions } from "../options/run-options.js";
import { parseDuration } from "../options/units.js";
import type { RunIo } from "./run.js";

/** The thresholds `replay` takes (the run command's flags of the same names). */
export type ReplayThresholds = Pick<
  RunOptions,
  "idleTimeoutMs" | "toolGraceMs" | "toolTimeouts" | "exitGraceMs" | "maxTurnMs"
>;

/** Options of `cursor-wrap replay`. */
export interface ReplayOptions {
  /** A session log or a raw stream-json capture. */
  file: string;
  json: boolean;
  /** Keep the clock running this long after the last line (`--tail`). */
  tail: string | undefined;
  thresholds: ReplayThresholds;
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
}

/** What replay does with a record of the log, by the table. */
function replayRole(message: unknown): (typeof RECORDS)[RecordName]["replay"] {
  return typeof message === "string" && Object.hasOwn(RECORDS, message)
    ? RECORDS[message as RecordName].replay
    : undefined;
}

function firstLine(path: string): string {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, read).toString("utf8").split("\n")[0] ?? "";
  } finally {
    closeSync(fd);
  }
}

/** Whether a file is a cursor-wrap session log (rather than raw agent output). */
function isSessionLog(path: string): boolean {
  try {
    const record = JSON.parse(firstLine(path)) as Record<string, unknown>;
    return typeof record.level === "number" && typeof record.msg === "string";
  } catch {
    return false;
  }
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
      lines: events.length,
      signals,
      recorded: [],
    },
  ];
}

/** A session log: one turn per agent start, at the wrapper's receive times. */
async function logTurns(path: string): Promise<RecordedTurn[]> {
  const turns: RecordedTurn[] = [];
  let turn: RecordedTurn | undefined;
  for await (const entry of readSessionLog(path)) {
    if (entry.kind === "record") {
      const { record } = entry;
      const at = Number(record.ts ?? record.time ?? 0);
      const role = replayRole(record.msg);
      if (role === "turn-start") {
        turn = {
          sessionId: undefined,
          startedAt: at,
          endedAt: at,
          lines: 0,
          signals: [],
          recorded: [],
        };
        turns.push(turn);
      } else if (turn && record.stream === "stderr") {
        turn.signals.push({ at, signal: { type: "activity", eventType: "stderr" } });
      } else if (turn && role === "turn-exit") {
        turn.signals.push({ at, signal: { type: "exit", eventType: "exit" } });
        turn.endedAt = at;
      } else if (turn && role === "decided") {
        turn.recorded.push({
          at,
          message: `${record.msg}${typeof record.summary === "string" ? `: ${record.summary}` : ""}`,
        });
      }
      continue;
    }
    if (!turn || entry.kind === "damaged") continue;
    const event = logEntryEvent(entry);
    const signal = event
      ? toMonitorSignal(event)
      : { type: "activity" as const, eventType: "oversize" };
    if (event) turn.sessionId ??= sessionIdOf(event);
    turn.signals.push({ at: entry.recvTs, signal });
    turn.lines += 1;
    turn.endedAt = Math.max(turn.endedAt, entry.recvTs);
  }
  return turns;
}

function describe(entry: SimulationEntry): string {
  switch (entry.type) {
    case "notice":
      return `notice   ${entry.warning.message}`;
    case "warning":
      return `warning  ${entry.warning.message}`;
    case "verdict":
      return `${entry.verdict.toUpperCase().padEnd(8)} ${entry.reason.message}`;
  }
}

/**
 * `cursor-wrap replay <log-or-capture>` (R-CLI6): run the monitor over recorded output on a
 * simulated clock and show when each warning and verdict would have fired with the given
 * thresholds, for tuning them on real data.
 */
export async function replayCommand(replay: ReplayOptions, io: RunIo): Promise<number> {
  const { file, thresholds: options } = replay;
  const tailMs = replay.tail === undefined ? 0 : parseDuration(replay.tail, "--tail");
  const log = isSessionLog(file);
  const turns = log ? await logTurns(file) : await captureTurns(file);
  const results = turns.map((turn, index) => {
    const simulation = simulate(turn.signals, {
      ...monitorOptions(options),
      startedAt: turn.startedAt,
      until: turn.endedAt + tailMs,
    });
    return { index: index + 1, turn, simulation };
  });

  if (replay.json) {
    const json = results.map(({ index, turn, simulation }) => ({
      turn: index,
      session_id: turn.sessionId,
      lines: turn.lines,
      duration_ms: turn.endedAt - turn.startedAt,
      entries: simulation.entries.map((entry) => ({
        at_ms: entry.at - turn.startedAt,
        type: entry.type,
        ...(entry.type === "verdict"
          ? { verdict: entry.verdict, reason: entry.reason }
          : { message: entry.warning.message }),
      })),
      verdict: simulation.verdict
        ? { at_ms: simulation.verdict.at - turn.startedAt, verdict: simulation.verdict.verdict }
        : null,
      recorded: turn.recorded.map((item) => ({
        at_ms: item.at - turn.startedAt,
        message: item.message,
      })),
    }));
    io.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
    return 0;
  }

  const thresholds = `idle ${formatDuration(options.idleTimeoutMs)}, tool grace ${formatDuration(options.toolGraceMs)}, exit grace ${formatDuration(options.exitGraceMs)}${options.maxTurnMs ? `, budget ${formatDuration(options.maxTurnMs)}` : ""}`;
  io.stdout.write(`${log ? "session log" : "capture"} ${file}\nthresholds: ${thresholds}\n`);
  for (const { index, turn, simulation } of results) {
    const offset = (at: number) => `+${formatDuration(at - turn.startedAt)}`.padEnd(10);
    io.stdout.write(
      `\nturn ${index}${turn.sessionId ? ` · session ${turn.sessionId}` : ""} · ${turn.lines} lines over ${formatDuration(turn.endedAt - turn.startedAt)}\n`,
    );
    for (const entry of simulation.entries)
      io.stdout.write(`  ${offset(entry.at)}${describe(entry)}\n`);
    if (!simulation.verdict) io.stdout.write("  no verdict: nothing would have been killed\n");
    for (const item of turn.recorded)
      io.stdout.write(`  recorded ${offset(item.at)}${item.message}\n`);
  }
  return 0;
}
