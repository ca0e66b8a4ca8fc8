import {
  closeSync,
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
  /** Log a line of agent stderr: JSON lines at debug, anything else at warn (R-SUP4). */
  stderr(line: Buffer): void;
  /** A wrapper decision (R-LOG3): written, then fsynced. */
  decision(message: string, fields?: Fields, level?: "debug" | "info" | "warn" | "error"): void;
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
const NEWLINE = Buffer.from("}\n");

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
 * Every record is one synchronous `write(2)` with no user-space buffer, so a crash loses
 * nothing already logged; decision records are also fsynced (R-LOG4). Raw agent lines are
 * embedded byte for byte, never re-serialised (R-LOG2).
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

  /** Write one record with one write(2); never throws. */
  const writeRecord = (parts: Buffer[] | string): void => {
    if (closed) return;
    try {
      if (typeof parts === "string") {
        const bytes = Buffer.from(parts, "utf8");
        const written = writeSync(fd, bytes);
        if (written !== bytes.length)
          throw Object.assign(new Error("short write"), { code: "ENOSPC" });
        size += written;
      } else {
        const total = parts.reduce((sum, part) => sum + part.length, 0);
        const written = writevSync(fd, parts);
        if (written !== total) throw Object.assign(new Error("short write"), { code: "ENOSPC" });
        size += written;
      }
    } catch (error) {
      writeFailed(error);
    }
  };

  const sync = (): void => {
    if (!shouldFsync || closed) return;
    try {
      fsyncSync(fd);
    } catch (error) {
      writeFailed(error);
    }
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

  const writeRaw = (prefix: string, bytes: Buffer): void => {
    if (shouldRedact && mayContainSecret(bytes)) {
      writeRecord(redact(`${prefix}${bytes.toString("utf8")}}\n`));
    } else {
      writeRecord([Buffer.from(prefix, "utf8"), bytes, NEWLINE]);
    }
  };

  const eolField = (eol: string): string => (eol === "\n" ? "" : `,"eol":${JSON.stringify(eol)}`);

  const log: SessionLog = {
    get path() {
      return path;
    },
    get incomplete() {
      return incomplete;
    },

    raw(event) {
      const recvTs = event.recvAt.epoch;
      switch (event.kind) {
        case "json":
          writeRaw(`${rawPrefix(LEVELS.debug, recvTs)}${eolField(event.eol)},"raw":`, event.line);
          break;
        case "text": {
          const base64 =
            event.reason === "invalid-utf8"
              ? `,"raw_base64":"${event.line.toString("base64")}"`
              : "";
          const record = `${rawPrefix(LEVELS.warn, recvTs)}${eolField(event.eol)},"reason":"${event.reason}"${base64},"raw_text":${JSON.stringify(event.text)}}\n`;
          writeRecord(shouldRedact ? redact(record) : record);
          break;
        }
        case "oversize": {
          if (event.first) {
            const head = JSON.stringify(event.line.subarray(0, RAW_HEAD_BYTES).toString("utf8"));
            const record = `${rawPrefix(LEVELS.warn, recvTs)},"oversize":true,"truncated":true,"raw_head":${head}}\n`;
            writeRecord(shouldRedact ? redact(record) : record);
          }
          if (event.final) {
            writeRecord(
              `${rawPrefix(LEVELS.warn, recvTs, "raw_event_end")},"oversize":true,"bytes":${event.totalBytes}}\n`,
            );
          }
          break;
        }
      }
    },

    stderr(line) {
      const text = line.toString("utf8");
      const trimmed = text.trimStart();
      if (trimmed.startsWith("{"))
        logger.debug({ stream: "stderr", raw_text: text }, "stderr_event");
      else logger.warn({ stream: "stderr", raw_text: text, summary: text }, "agent_stderr");
    },

    decision(message, fields = {}, level = "info") {
      logger[level](fields, message);
      sync();
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
      try {
        closeSync(fd);
      } catch {
        // already unusable: nothing more to do
      }
      fd = -1;
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
