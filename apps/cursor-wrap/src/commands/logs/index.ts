import { existsSync } from "node:fs";
import { basename, join } from "node:path";
import {
  eventTypeOf,
  parseLine,
  sessionIdOf,
  terminalSafe,
  terminalSafeJson,
  userPrompt,
} from "@cursor-wrap/events";
import { createFormatter } from "@cursor-wrap/format";
import {
  LEVELS,
  listSessions,
  logEntryEvent,
  parseLogFileName,
  readSessionLog,
  renderConsoleLine,
  type SessionSummary,
} from "@cursor-wrap/logger";
import type { Reason } from "@cursor-wrap/monitor";
import {
  type CancelReason,
  RECORDS,
  type RecordFields,
  type RecordName,
  verdictOf,
} from "@cursor-wrap/run";
import { formatDuration } from "@cursor-wrap/wording";
import { createColors } from "picocolors";
import { readableFile } from "../../readable-file.js";
import type { RunIo } from "../../run-io.js";
import { UsageError } from "../../usage-error.js";
import { acpTimelineLine } from "./acp-timeline.js";
import { mcpTimeline, mcpTimelineLine } from "./mcp-timeline.js";

/** Options of `cursor-wrap logs` and `cursor-wrap logs show`. */
export interface LogsOptions {
  /** `[]` to list; `["show", <session|file>]` to render one. */
  args: readonly string[];
  /** Only flagged sessions. */
  flagged: boolean;
  /** JSON instead of a table. */
  json: boolean;
  logDir: string;
}

function localTime(epochMs: number): string {
  const date = new Date(epochMs);
  const pad = (value: number) => String(value).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

function table(sessions: SessionSummary[]): string {
  const rows = [
    ["START", "SESSION", "OUTCOME", "TURNS", "DURATION", "AGENT", "FILE"],
    ...sessions.map((session) => [
      localTime(session.startedAt),
      session.kind === "acp" ? `${session.sessionId} (acp)` : session.sessionId,
      `${session.outcome}${session.flagged ? " (flagged)" : ""}${session.incomplete ? " (incomplete)" : ""}${session.truncated ? " (truncated record)" : ""}`,
      session.turns === undefined ? "-" : String(session.turns),
      session.durationMs === undefined ? "-" : formatDuration(session.durationMs),
      session.agentVersion ?? "-",
      basename(session.path),
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** Logs that a `logs show` target names: a path, a file name, or (a prefix of) a session id. */
type Found = { path: string } | { several: SessionSummary[] };

/** Find a log by path, file name, or session id prefix; several matches are all returned. */
function findLog(dir: string, target: string): Found {
  if (existsSync(target)) return { path: readableFile(target, "the log") };
  // A session log's file name (not an MCP proxy's).
  const parsed = basename(target) === target ? parseLogFileName(target) : undefined;
  if (parsed && parsed.kind !== "mcp" && existsSync(join(dir, target))) {
    return { path: readableFile(join(dir, target), "the log") };
  }
  // Only the logs that may be this session's are read (a directory may hold thousands).
  const matches = listSessions(dir, { idPrefix: target });
  if (matches.length === 0) throw new UsageError(`no log for ${JSON.stringify(target)} in ${dir}`);
  return matches.length === 1 ? { path: matches[0]!.path } : { several: matches };
}

/** The table's name for a record, if `record.msg` is one. */
function recordName(record: Record<string, unknown>): RecordName | undefined {
  const name = record.msg;
  return typeof name === "string" && Object.hasOwn(RECORDS, name)
    ? (name as RecordName)
    : undefined;
}

/** Logs written before retry records carried their reason. */
const UNRECORDED_REASON: Reason = {
  kind: "none",
  idleMs: 0,
  openCallCount: 0,
  openCalls: [],
  message: "reason not recorded",
};

/** Render an ACP proxy's log: the traffic, the turns and the watchdog's decisions, a line each. */
async function showAcpLog(path: string, io: RunIo): Promise<void> {
  for await (const entry of readSessionLog(path)) {
    if (entry.kind === "damaged") {
      io.stdout.write(
        `[${entry.truncated ? "truncated" : "damaged"} record: ${terminalSafe(entry.line.slice(0, 80))}]\n`,
      );
      continue;
    }
    if (entry.kind !== "record") continue;
    const line = acpTimelineLine(entry.record);
    if (line !== undefined) io.stdout.write(`${line}\n`);
  }
}

/** What the header of `logs show` says about a session, read from its log. */
interface SessionHeader {
  startedAt: number | undefined;
  sessionId: string | undefined;
  mode: string | undefined;
  outputFormat: string | undefined;
  /** The prompt of the first turn, as the agent echoed it. */
  prompt: string | undefined;
  /** The final record, if the wrapper wrote one. */
  end: Partial<Record<"outcome" | "flagged" | "exit_code" | "turns" | "duration_ms", unknown>>;
  agentVersion: string | undefined;
  /** The log holds records of cursor-wrap (a raw capture holds none). */
  isSessionLog: boolean;
  /**
   * Turns (counted from 1, by agent start) whose verdict the run recovered from by itself (a
   * retry followed): their verdict line offers no resume command, as the live run's did not.
   */
  retriedTurns: Set<number>;
}

/** Read what the header needs: one pass over the log. */
async function readHeader(path: string): Promise<SessionHeader> {
  const header: SessionHeader = {
    startedAt: undefined,
    sessionId: undefined,
    mode: undefined,
    outputFormat: undefined,
    prompt: undefined,
    end: {},
    agentVersion: undefined,
    isSessionLog: false,
    retriedTurns: new Set(),
  };
  let turns = 0;
  for await (const entry of readSessionLog(path)) {
    if (entry.kind === "raw" || entry.kind === "text") {
      const event = logEntryEvent(entry)!;
      header.sessionId ??= sessionIdOf(event);
      header.prompt ??= userPrompt(event);
      continue;
    }
    if (entry.kind !== "record") continue;
    const { record } = entry;
    header.isSessionLog = true;
    if (header.startedAt === undefined && typeof record.time === "number") {
      header.startedAt = record.time;
    }
    switch (record.msg) {
      case "retry":
        header.retriedTurns.add(turns);
        break;
      case "options":
        header.mode = typeof record.mode === "string" ? record.mode : undefined;
        header.outputFormat =
          typeof record.output_format === "string" ? record.output_format : undefined;
        break;
      case "agent_spawn":
        turns += 1;
        if (typeof record.agent_version === "string") header.agentVersion = record.agent_version;
        break;
      case "session_end":
        header.end = record;
        if (typeof record.session_id === "string") header.sessionId ??= record.session_id;
        if (typeof record.agent_version === "string") header.agentVersion = record.agent_version;
        break;
    }
  }
  return header;
}

/** A prompt on one line: its first line, cut at `max` characters, safe for a terminal. */
function promptPreview(prompt: string, max = 160): string {
  const lines = prompt.trim().split("\n");
  let text = lines[0]!;
  if (text.length > max) text = `${text.slice(0, max - 1)}…`;
  const more =
    lines.length > 1 ? ` (+${lines.length - 1} more line${lines.length > 2 ? "s" : ""})` : "";
  return `${terminalSafe(text)}${more}`;
}

/** The header of `logs show`: which session, what was asked, how it ended. */
function headerLines(header: SessionHeader, path: string): string[] {
  if (!header.isSessionLog) {
    return [
      `capture  ${terminalSafe(path)} (agent output only: no decisions of cursor-wrap)`,
      ...(header.prompt === undefined ? [] : [`prompt   ${promptPreview(header.prompt)}`]),
      "",
    ];
  }
  const { end } = header;
  // From the log, which anything may have written: shown, not acted on.
  const how = terminalSafe([header.mode, header.outputFormat].filter(Boolean).join(", "));
  const outcome =
    typeof end.outcome === "string"
      ? [
          `${end.outcome}${end.flagged === true ? " (flagged)" : ""}`,
          typeof end.exit_code === "number" ? `exit ${end.exit_code}` : undefined,
          typeof end.turns === "number"
            ? `${end.turns} turn${end.turns === 1 ? "" : "s"}`
            : undefined,
          typeof end.duration_ms === "number" ? formatDuration(end.duration_ms) : undefined,
        ]
          .filter(Boolean)
          .join(" · ")
      : "unfinished: no final record (still running, or cursor-wrap was killed)";
  return [
    `session  ${terminalSafe(header.sessionId ?? "not announced by the agent")}${how ? ` (${how})` : ""}`,
    ...(header.startedAt === undefined ? [] : [`started  ${localTime(header.startedAt)}`]),
    `prompt   ${header.prompt === undefined ? "not in the log" : promptPreview(header.prompt)}`,
    `outcome  ${terminalSafe(outcome)}`,
    `agent    ${header.agentVersion === undefined ? "version not known (its install path did not tell)" : terminalSafe(header.agentVersion)}`,
    `log      ${terminalSafe(path)}`,
    "",
  ];
}

/** Why a turn was cancelled, in words. */
function cancelText(reason: unknown): string {
  const cancel = reason as Partial<CancelReason> | undefined;
  switch (cancel?.kind) {
    case "turn":
      return "cancelled (Ctrl+C); the session went on";
    case "shutdown":
      return `cancelled by ${cancel.signal ?? "a signal"}; the session ended`;
    case "output":
      return `cancelled: stdout failed (${cancel.code ?? "error"})`;
    default:
      return "cancelled";
  }
}

/** pino's own keys and the receive time: not what happened. */
const BOOKKEEPING = new Set(["level", "time", "msg", "ts", "recv_ts"]);

/** A record of the log as a line of the story, or undefined to leave it out. */
function storyLine(record: Record<string, unknown>, color: boolean): string | undefined {
  const paint = createColors(color);
  const level = typeof record.level === "number" ? record.level : 0;
  const mark = level >= LEVELS.error ? paint.red("✗") : paint.yellow("⚠");
  switch (record.msg) {
    case "agent_stderr":
    case "server_stderr": {
      const text =
        typeof record.raw_text === "string"
          ? record.raw_text
          : typeof record.summary === "string"
            ? record.summary
            : "";
      const whose = record.msg === "agent_stderr" ? "agent" : "server";
      return paint.dim(`  ${whose} stderr │ ${terminalSafe(text)}`);
    }
    case "signal_received":
      return `${mark} ${terminalSafe(String(record.signal))} received`;
    case "turn_cancel_requested":
      return `${paint.yellow("✗")} turn ${cancelText(record.reason)}`;
    case "wrapper_crashed": {
      const error = record.err as { message?: unknown } | undefined;
      return `${paint.red("✗")} cursor-wrap crashed: ${terminalSafe(String(error?.message ?? "unknown error"))}`;
    }
  }
  if (level < LEVELS.warn) return undefined;
  for (const key of ["summary", "message", "detail"]) {
    const text = record[key];
    if (typeof text === "string" && text) {
      return `${mark} ${terminalSafe(String(record.msg).replace(/_/g, " "))}: ${terminalSafe(text)}`;
    }
  }
  const fields = Object.fromEntries(
    Object.entries(record).filter(([key]) => !BOOKKEEPING.has(key)),
  );
  return renderConsoleLine(level, String(record.msg), fields, color).trimEnd();
}

/**
 * Render a session log as a story: a header (the session, its prompt, how it ended), then each
 * turn with the agent's output through the text formatter and the wrapper's decisions, in order.
 */
async function showLog(path: string, io: RunIo): Promise<void> {
  if (parseLogFileName(path)?.kind === "acp") {
    await showAcpLog(path, io);
    return;
  }
  const color = io.stdout.isTTY === true;
  const formatter = createFormatter("text", io.stdout, { tty: false, color });
  const header = await readHeader(path);
  io.stdout.write(`${headerLines(header, path).join("\n")}\n`);
  let sessionId: string | undefined;
  let turn = 0;
  // A turn's separator waits for its prompt (the agent echoes it first) after turn 1.
  let separatorDue = false;
  const separator = (prompt: string | undefined): void => {
    separatorDue = false;
    const title = `turn ${turn}${prompt === undefined || turn === 1 ? "" : ` · ${promptPreview(prompt, 60)}`}`;
    io.stdout.write(`── ${title} ${"─".repeat(Math.max(3, 44 - title.length))}\n`);
  };
  const writeLine = (line: string): void => {
    formatter.flush();
    formatter.interrupt();
    io.stdout.write(`${line}\n`);
  };
  // The MCP proxies that ran under this session, interleaved by time.
  const mcp = await mcpTimeline(path);
  let shownMcp = 0;
  const showMcpUntil = (time: number): void => {
    while (shownMcp < mcp.length && mcp[shownMcp]!.time <= time) {
      const line = mcpTimelineLine(mcp[shownMcp]!);
      shownMcp += 1;
      if (line !== undefined) writeLine(line);
    }
  };
  for await (const entry of readSessionLog(path)) {
    if (mcp.length > shownMcp) {
      const time =
        entry.kind === "raw" || entry.kind === "text" || entry.kind === "oversize"
          ? entry.recvTs
          : entry.kind === "record"
            ? Number(entry.record.time)
            : Number.NaN;
      if (Number.isFinite(time)) showMcpUntil(time);
    }
    if (separatorDue && entry.kind !== "record") {
      const event =
        entry.kind === "raw" || entry.kind === "text" ? logEntryEvent(entry) : undefined;
      // The agent announces its session, then echoes the prompt: the separator names it.
      const announcement = event?.kind === "json" && eventTypeOf(event) === "system/init";
      if (!announcement) separator(event ? userPrompt(event) : undefined);
    }
    switch (entry.kind) {
      case "raw":
      case "text": {
        const event = logEntryEvent(entry)!;
        sessionId = sessionIdOf(event) ?? sessionId;
        formatter.write(event);
        break;
      }
      case "oversize":
        if (entry.bytes !== undefined)
          formatter.write(parseLine(`[a line of ${entry.bytes} bytes, logged in part]`));
        break;
      case "damaged":
        writeLine(
          `[${entry.truncated ? "truncated" : "damaged"} record: ${terminalSafe(entry.line.slice(0, 80))}]`,
        );
        break;
      case "record": {
        const { record } = entry;
        const name = recordName(record);
        switch (name ? RECORDS[name].show : undefined) {
          case "turn-start":
            if (separatorDue) separator(undefined);
            turn += 1;
            separatorDue = true;
            break;
          case "verdict": {
            if (separatorDue) separator(undefined);
            const verdict = verdictOf(String(record.msg));
            const fields = record as Partial<RecordFields["hang_detected"]>;
            if (verdict && fields.reason) {
              // A verdict the run went on from by itself offers no resume command.
              const resumable = sessionId !== undefined && !header.retriedTurns.has(turn);
              formatter.wrapper({
                kind: verdict,
                reason: fields.reason,
                terminal: verdict !== "linger",
                ...(resumable ? { sessionId } : {}),
              });
            }
            break;
          }
          case "retry": {
            const fields = record as Partial<RecordFields["retry"]>;
            // A retry after a hang carries the hang; any other says what it did in its summary.
            const hang = fields.kind === undefined || fields.kind === "hang";
            formatter.wrapper({
              kind: "retry",
              attempt: Number(fields.attempt),
              maxAttempts: Number(fields.max_attempts),
              ...(typeof fields.prompt === "string" ? { prompt: fields.prompt } : {}),
              ...(hang
                ? { reason: fields.reason ?? UNRECORDED_REASON }
                : { message: String(fields.summary) }),
            });
            break;
          }
          case "turn-end": {
            if (separatorDue) separator(undefined);
            const fields = record as Partial<RecordFields["turn_end"]>;
            const summary = {
              durationMs: Number(fields.duration_ms ?? 0),
              toolCalls: Number(fields.tool_calls ?? 0),
              outcome: String(fields.outcome),
            };
            formatter.endTurn(summary);
            writeLine(
              createColors(color).dim(
                `— turn ${turn}: ${terminalSafe(summary.outcome)} · ${formatDuration(summary.durationMs)} · ${summary.toolCalls} tool call${summary.toolCalls === 1 ? "" : "s"}`,
              ),
            );
            break;
          }
          default: {
            const line = storyLine(record, color);
            if (line !== undefined) {
              if (separatorDue) separator(undefined);
              writeLine(line);
            }
          }
        }
      }
    }
  }
  if (separatorDue) separator(undefined);
  showMcpUntil(Number.POSITIVE_INFINITY);
  if (header.isSessionLog && typeof header.end.outcome !== "string") {
    writeLine(
      "[the log ends here, without its final record: cursor-wrap was killed, or it still runs]",
    );
  }
  formatter.close();
}

/** `cursor-wrap logs [--flagged] [--json]` and `cursor-wrap logs show <session|file>` (R-CLI6). */
export async function logsCommand(options: LogsOptions, io: RunIo): Promise<number> {
  const { args, logDir: dir } = options;
  if (args[0] === "show") {
    const target = args[1];
    if (!target) throw new UsageError("logs show needs a session id or a log file");
    const found = findLog(dir, target);
    if ("several" in found) {
      // Picking one (the newest, say) would show a session nobody asked for.
      io.stderr.write(
        `cursor-wrap: ${JSON.stringify(terminalSafe(target))} matches ${found.several.length} session logs in ${terminalSafe(dir)}; give more of the session id, or the file:\n${terminalSafe(table(found.several))}\n`,
      );
      return 1;
    }
    await showLog(found.path, io);
    return 0;
  }
  if (args.length > 0)
    throw new UsageError(
      `unknown logs command ${JSON.stringify(args[0])} (use: logs, logs show <session|file>)`,
    );
  const sessions = listSessions(dir).filter((session) => !options.flagged || session.flagged);
  if (options.json) {
    io.stdout.write(`${terminalSafeJson(JSON.stringify(sessions, null, 2))}\n`);
  } else if (sessions.length === 0) {
    io.stdout.write(`no ${options.flagged ? "flagged " : ""}session logs in ${dir}\n`);
  } else {
    io.stdout.write(`${terminalSafe(table(sessions))}\n`);
  }
  return 0;
}
