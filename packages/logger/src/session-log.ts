import {
  closeSync,
  fsync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  renameSync,
  writeSync,
  writevSync,
} from "node:fs";
import { dirname, join } from "node:path";
import type { AgentEvent } from "@cursor-wrap/events";
import { pino } from "pino";
import {
  type ConsoleSinkOptions,
  colorFor,
  LEVELS,
  type LevelName,
  renderConsoleLine,
} from "./console-sink.js";
import { LogDirError } from "./errors.js";
import { type LogTag, logFileName } from "./file-names.js";
import { mayContainSecret, redact } from "./redact.js";
import { pruneLogs } from "./retention.js";

/** Options for {@link openSessionLog}. */
export interface SessionLogOptions {
  /** Directory for log files; created if missing. */
  dir: string;
  /** Human-readable sink (R-LOG5). Default: none. */
  console?: ConsoleSinkOptions;
  /** Redact secrets in the file log (R-LOG6). Default true. */
  redact?: boolean;
  /** Delete logs older than this at start-up, ms (flagged ones live twice as long). Default 7 days; 0 keeps everything. */
  retentionMs?: number;
  /** fsync after every decision record and at close (R-LOG4). Default true. */
  fsync?: boolean;
  /** Wall clock for records, epoch ms. Default `Date.now`. */
  now?: () => number;
}

/** How a session ended, for the final record and the flag in the file name. */
export interface SessionEnd {
  outcome: string;
  /** Outcomes that flag the log for review (hang, linger, budget, error, …). */
  flagged: boolean;
  [field: string]: unknown;
}

/** Extra fields of a record. */
export type Fields = Record<string, unknown>;

/** A session log: one JSONL file per wrapper invocation (R-LOG1). */
export interface SessionLog {
  /** Current path of the log file (it changes when the session id is known). */
  readonly path: string;
  /** True once a write failed (disk full, …): records are missing from the file. */
  readonly incomplete: boolean;
  /** Log a line of agent output verbatim (R-LOG2): before it is forwarded. */
  raw(event: AgentEvent): void;
  /** Log several lines (one chunk of output) with one write(2): each record stays whole. */
  rawAll(events: readonly AgentEvent[]): void;
  /** Log a line of agent stderr: JSON lines at debug, anything else at warn (R-SUP4). */
  stderr(line: Buffer): void;
  /**
   * A wrapper decision (R-LOG3): written, then fsynced, at once or (`sync: "soon"`, for
   * routine records such as tool calls opening and closing) within 50 ms together with others.
   */
  decision(
    message: string,
    fields?: Fields,
    level?: "debug" | "info" | "warn" | "error",
    options?: { sync?: "now" | "soon" },
  ): void;
  debug(fields: Fields, message: string): void;
  info(fields: Fields, message: string): void;
  warn(fields: Fields, message: string): void;
  error(fields: Fields, message: string): void;
  /** Change the console sink's level (e.g. `silent` once nobody should hear more). */
  setConsoleLevel(level: LevelName): void;
  /** Rename the file to carry the session id (once; later calls are ignored). */
  setSessionId(sessionId: string): void;
  /** Write the final record, fsync, close, and flag the file name if needed. Idempotent. */
  close(end: SessionEnd): void;
}

const DAY = 86_400_000;
const RAW_HEAD_BYTES = 4_096;
const RECORD_END = Buffer.from("}\n");
const SYNC_SOON_MS = 50;
const BACKGROUND_SYNC_BYTES = 8 * 1024 * 1024;

function ensureDirectory(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new LogDirError(dir, error as NodeJS.ErrnoException);
  }
}

function createFile(dir: string, startedAt: number): { fd: number; path: string; name: string } {
  for (const name of [
    "unknown",
    `unknown-${process.pid}`,
    `unknown-${process.pid}-${Date.now()}`,
  ]) {
    const path = join(dir, logFileName({ startedAt, sessionId: name, tags: [] }));
    try {
      return { fd: openSync(path, "ax", 0o600), path, name };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
        throw new LogDirError(dir, error as NodeJS.ErrnoException);
      }
    }
  }
  throw new LogDirError(
    dir,
    Object.assign(new Error("log file names exhausted"), { code: "EEXIST" }),
  );
}

/**
 * Open the log for one wrapper invocation. Throws {@link LogDirError} at once when the
 * directory cannot be written, so nothing is started without a log (R-LOG8).
 *
 * Records are written whole by synchronous `write(2)`/`writev(2)` calls with no user-space
 * buffer, so a crash loses nothing already logged; decision records are also fsynced, at once
 * or (`sync: "soon"`) within 50 ms (R-LOG4). Raw agent lines are embedded byte for byte, never
 * re-serialised (R-LOG2).
 */
export function openSessionLog(options: SessionLogOptions): SessionLog {
  const now = options.now ?? Date.now;
  const shouldRedact = options.redact ?? true;
  const shouldFsync = options.fsync ?? true;
  ensureDirectory(options.dir);
  const pruned =
    options.retentionMs === 0
      ? []
      : pruneLogs(options.dir, { retentionMs: options.retentionMs ?? 7 * DAY, now: now() });
  const startedAt = now();
  let { fd, path, name: sessionPart } = createFile(options.dir, startedAt);
  let sessionId: string | undefined;
  let size = 0;
  let incomplete = false;
  let failedWrites = 0;
  let closed = false;
  const consoleOptions = options.console;
  let consoleLevel: number = consoleOptions ? LEVELS[consoleOptions.level] : LEVELS.silent;
  const consoleColor = consoleOptions
    ? (consoleOptions.color ?? colorFor(consoleOptions.stream))
    : false;

  const consoleSkip = new Set(consoleOptions?.skip ?? []);

  const printConsole = (level: number, message: string, fields: Fields): void => {
    if (!consoleOptions || level < consoleLevel || consoleSkip.has(message)) return;
    const line = renderConsoleLine(level, message, fields, consoleColor);
    consoleOptions.stream.write(shouldRedact ? redact(line) : line);
  };

  const writeFailed = (error: unknown): void => {
    failedWrites += 1;
    // A partial record would leave a line that is not JSON: cut the file back to the last whole record.
    try {
      ftruncateSync(fd, size);
    } catch {
      // the file stays as it is; readers skip a damaged last line
    }
    if (incomplete) return;
    incomplete = true;
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    printConsole(LEVELS.warn, "log_write_failed", {
      summary: `${code}: the session log ${path} is incomplete; the agent's output is not affected`,
    });
  };

  /**
   * Write whole records with one write(2) (writev for several parts); never throws. After a
   * failure the file is cut back to the last whole record.
   */
  const writeRecords = (parts: Buffer[]): void => {
    if (closed || parts.length === 0) return;
    try {
      let total = 0;
      for (const part of parts) total += part.length;
      const written = parts.length === 1 ? writeSync(fd, parts[0]!) : writevSync(fd, parts);
      if (written !== total) throw Object.assign(new Error("short write"), { code: "ENOSPC" });
      size += written;
      // Flush heavy output to disk as it goes, off the event loop, so the fsync at the end
      // (and the ones of decisions) only has the last few megabytes left to write.
      unsynced += written;
      if (unsynced >= BACKGROUND_SYNC_BYTES) syncSoon();
    } catch (error) {
      writeFailed(error);
    }
  };
  const writeRecord = (record: string): void => writeRecords([Buffer.from(record, "utf8")]);

  let syncTimer: ReturnType<typeof setTimeout> | undefined;
  let syncing = false;
  let unsynced = 0;
  let closeWhenSynced = false;
  const sync = (): void => {
    if (!shouldFsync || closed) return;
    if (syncTimer) clearTimeout(syncTimer);
    syncTimer = undefined;
    unsynced = 0;
    try {
      fsyncSync(fd);
    } catch (error) {
      writeFailed(error);
    }
  };
  // Routine decisions (a tool call opened or closed) share one fsync at most SYNC_SOON_MS later,
  // run off the event loop: thousands of tool calls must not cost thousands of blocking fsyncs,
  // each flushing everything streamed since the last one. write(2) has already made the records
  // safe from a crash of the wrapper; the fsync is about a crash of the machine.
  const syncSoon = (): void => {
    if (!shouldFsync || closed || syncTimer || syncing) return;
    syncTimer = setTimeout(() => {
      syncTimer = undefined;
      if (closed) return;
      syncing = true;
      unsynced = 0;
      fsync(fd, () => {
        syncing = false;
        if (closeWhenSynced) closeSync(fd);
      });
    }, SYNC_SOON_MS);
    syncTimer.unref?.();
  };

  // pino serialises every record except raw lines; this destination writes them to the file
  // and hands the level and fields to the console sink (pino's metadata protocol).
  const destination = {
    [Symbol.for("pino.metadata")]: true,
    lastLevel: 0,
    lastMsg: "",
    lastObj: {} as Fields,
    write(line: string) {
      writeRecord(line);
      printConsole(this.lastLevel, this.lastMsg, this.lastObj);
    },
  };
  const logger = pino(
    {
      level: "debug",
      base: undefined,
      timestamp: () => `,"time":${now()}`,
      mixin: () => ({ ts: now() }),
      hooks: shouldRedact ? { streamWrite: redact } : {},
    },
    destination,
  );

  const rawPrefix = (level: number, recvTs: number, message = "raw_event"): string =>
    `{"level":${level},"time":${now()},"msg":"${message}","recv_ts":${recvTs}`;

  const eolField = (eol: string): string => (eol === "\n" ? "" : `,"eol":${JSON.stringify(eol)}`);

  const text = (record: string): Buffer =>
    Buffer.from(shouldRedact ? redact(record) : record, "utf8");

  /** The bytes of the raw record(s) for one event: the line itself is embedded, not copied. */
  const rawParts = (event: AgentEvent): Buffer[] => {
    const recvTs = event.recvAt.epoch;
    switch (event.kind) {
      case "json": {
        const prefix = `${rawPrefix(LEVELS.debug, recvTs)}${eolField(event.eol)},"raw":`;
        // The line was already decoded to be parsed: search that text, not the bytes again.
        if (shouldRedact && mayContainSecret(event.text)) {
          return [Buffer.from(redact(`${prefix}${event.text}}\n`), "utf8")];
        }
        return [Buffer.from(prefix, "latin1"), event.line, RECORD_END];
      }
      case "text": {
        const base64 =
          event.reason === "invalid-utf8" ? `,"raw_base64":"${event.line.toString("base64")}"` : "";
        return [
          text(
            `${rawPrefix(LEVELS.warn, recvTs)}${eolField(event.eol)},"reason":"${event.reason}"${base64},"raw_text":${JSON.stringify(event.text)}}\n`,
          ),
        ];
      }
      case "oversize": {
        const parts: Buffer[] = [];
        if (event.first) {
          const head = JSON.stringify(event.line.subarray(0, RAW_HEAD_BYTES).toString("utf8"));
          parts.push(
            text(
              `${rawPrefix(LEVELS.warn, recvTs)},"oversize":true,"truncated":true,"raw_head":${head}}\n`,
            ),
          );
        }
        if (event.final) {
          parts.push(
            text(
              `${rawPrefix(LEVELS.warn, recvTs, "raw_event_end")},"oversize":true,"bytes":${event.totalBytes}}\n`,
            ),
          );
        }
        return parts;
      }
    }
  };

  const log: SessionLog = {
    get path() {
      return path;
    },
    get incomplete() {
      return incomplete;
    },

    raw(event) {
      writeRecords(rawParts(event));
    },

    rawAll(events) {
      const parts: Buffer[] = [];
      for (const event of events) for (const part of rawParts(event)) parts.push(part);
      writeRecords(parts);
    },

    stderr(line) {
      const text = line.toString("utf8");
      const trimmed = text.trimStart();
      if (trimmed.startsWith("{"))
        logger.debug({ stream: "stderr", raw_text: text }, "stderr_event");
      else logger.warn({ stream: "stderr", raw_text: text, summary: text }, "agent_stderr");
    },

    decision(message, fields = {}, level = "info", options = {}) {
      logger[level](fields, message);
      if (options.sync === "soon") syncSoon();
      else sync();
    },
    debug: (fields, message) => logger.debug(fields, message),
    info: (fields, message) => logger.info(fields, message),
    warn: (fields, message) => logger.warn(fields, message),
    error: (fields, message) => logger.error(fields, message),

    setConsoleLevel(level) {
      consoleLevel = LEVELS[level];
    },

    setSessionId(id) {
      if (sessionId !== undefined || closed || !id) return;
      sessionId = id;
      const part = id.replace(/[^A-Za-z0-9_-]/g, "_");
      const next = join(dirname(path), logFileName({ startedAt, sessionId: part, tags: [] }));
      try {
        renameSync(path, next);
        path = next;
        sessionPart = part;
        logger.debug({ session_id: id, path }, "log_renamed");
      } catch (error) {
        logger.warn({ err: error, session_id: id }, "log_rename_failed");
      }
    },

    close(end) {
      if (closed) return;
      logger.debug({ ...end, incomplete, failed_writes: failedWrites }, "session_end");
      sync();
      closed = true;
      if (syncing) {
        // An fsync is running on another thread: close the descriptor when it is done.
        closeWhenSynced = true;
      } else {
        try {
          closeSync(fd);
        } catch {
          // already unusable: nothing more to do
        }
      }
      const tags: LogTag[] = [];
      if (end.flagged) tags.push("flagged");
      if (incomplete) tags.push("incomplete");
      if (tags.length === 0) return;
      const flaggedPath = join(
        dirname(path),
        logFileName({ startedAt, sessionId: sessionPart, tags }),
      );
      try {
        renameSync(path, flaggedPath);
        path = flaggedPath;
      } catch {
        // the flag only helps `logs --flagged`; the log itself is complete
      }
    },
  };

  log.decision(
    "session_start",
    {
      pid: process.pid,
      node: process.version,
      platform: process.platform,
      log_path: path,
      pruned_logs: pruned.length,
    },
    "debug",
  );
  return log;
}
