import { openSync, unlinkSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { type AgentEvent, parseLine } from "@cursor-wrap/events";
import { pino } from "pino";
import { type ConsoleSinkOptions, colorFor, renderConsoleLine } from "./console-sink.js";
import { createDurableFile, renameNoReplace } from "./durable-file.js";
import { LogDirError } from "./errors.js";
import { type LogKind, type LogTag, logFileName } from "./file-names.js";
import { LEVELS, type LevelName, type RecordLevel } from "./levels.js";
import { ensurePrivateDirectory } from "./private-directory.js";
import { createRawRecordEncoder, createStderrRecordEncoder } from "./raw-record.js";
import { recordText } from "./record-text.js";
import { isSecretName, redact, redactField } from "./redact.js";
import { DEFAULT_RETENTION_MS, pruneLogs } from "./retention.js";

/** Options for {@link openSessionLog}. */
export interface SessionLogOptions {
  /** Directory for log files; created if missing. */
  dir: string;
  /** Human-readable sink (R-LOG5). Default: none. */
  console?: ConsoleSinkOptions;
  /** Redact secrets in the file log (R-LOG6). Default true. */
  redact?: boolean;
  /** Delete logs older than this at start-up, ms (flagged ones live twice as long). Default {@link DEFAULT_RETENTION_MS} (7 days); 0 keeps everything. */
  retentionMs?: number;
  /** fsync after every decision record and at close (R-LOG4). Default true. */
  fsync?: boolean;
  /** Wall clock for records, epoch ms. Default `Date.now`. */
  now?: () => number;
  /**
   * What the log records: a cursor-wrap session (default), or an MCP proxy, whose file is
   * `cursor-wrap-mcp-<start>-<name>.jsonl` and which `listSessions` leaves out.
   */
  kind?: LogKind;
  /** The name part of the file until `setSessionId` (default `unknown`); an MCP log's server id. */
  name?: string;
  /**
   * Keep the log's size bounded (a proxy that runs for days): when the file grows past this
   * many bytes it becomes `….rotated.jsonl` (replacing an earlier one) and a new file is begun
   * under the log's name, so the log never takes much more than twice this. Default: no limit.
   */
  rotateBytes?: number;
  /** Fields written at the head of every new file after a rotation (what names the log's run). */
  carry?: Fields;
  /**
   * What the `log_dir_shared` warning advises when others can write to the directory (a CLI
   * adds its flag for another directory). Default `chmod o-w`.
   */
  sharedDirectoryAdvice?: string;
  /**
   * Told of each record once it is written (see {@link RecordTap}): every record but the raw
   * lines of agent stdout and the JSON lines mirrored on its stderr. Default: none, and then
   * nothing is done for it.
   */
  onRecord?: RecordTap;
}

/**
 * A reader of the log as it is written: `message` is the record's name (`session_start`,
 * `hang_detected`, `agent_stderr`, `session_end`, …) and `record` the record as it stands in the
 * file (parsed back, so redacted as the file is, with `level`, `time` and `ts`). Called
 * synchronously after the record is written; whatever it throws is dropped, so a tap can never
 * break the log.
 */
export type RecordTap = (message: string, record: Readonly<Record<string, unknown>>) => void;

/**
 * How a session ended: the fields of the final `session_end` record (snake_case, as written)
 * and the flag in the file name. `listSessions()` reads the same fields back.
 */
export interface SessionEnd {
  /** `completed`, `hang`, `failure`, `signal SIGINT`, `crash`, … */
  outcome: string;
  /** The session deserves a look (hang, linger, budget, error, …): the file name says so. */
  flagged: boolean;
  /** The wrapper's exit code. */
  exit_code: number;
  /** Turns run, retries included. */
  turns?: number;
  /** Wall time of the whole invocation, ms. */
  duration_ms?: number;
  /** The agent session, once known. */
  session_id?: string;
  /** The agent's version at the last turn, when known. */
  agent_version?: string;
}

const NEWLINE = Buffer.from("\n");

/** The records a session log writes by itself (the caller's decisions come on top), by message. */
export const SESSION_LOG_RECORDS = [
  "session_start",
  "session_end",
  "raw_event",
  "raw_event_end",
  "agent_stderr",
  "stderr_event",
  "server_stderr",
  "log_renamed",
  "log_rename_failed",
  "log_dir_shared",
  "log_rotated",
] as const;

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
  /**
   * Begin the records of one chunk of agent output (or of anything else: `events` may be
   * empty): its raw records, and the routine decisions (`sync: "soon"`) and plain records
   * (`debug`, `info`, …) written until {@link SessionLog.endChunk}, are held and written
   * together with one write(2) there. An urgent decision written meanwhile first writes what
   * is held, so the file keeps the order of the calls. The caller forwards the chunk after
   * `endChunk`.
   */
  beginChunk(events: readonly AgentEvent[]): void;
  /** Write what {@link SessionLog.beginChunk} held, with one write(2); then fsync soon if it held decisions. */
  endChunk(): void;
  /** Log a line of agent stderr: JSON lines at debug, anything else at warn (R-SUP4). */
  stderr(line: Buffer): void;
  /**
   * Log the lines of one chunk of agent stderr with one write(2), byte-exact (`raw_base64` for
   * a line that is not UTF-8); lines that are not JSON also reach the console sink at warn. In
   * an MCP proxy's log (`kind: "mcp"`) they are its server's: `server_stderr` records, never on
   * the console (the proxy passes the bytes on itself).
   */
  stderrAll(events: readonly AgentEvent[]): void;
  /**
   * A wrapper decision (R-LOG3): written, then fsynced, at once or (`sync: "soon"`, for
   * routine records such as tool calls opening and closing) within 50 ms together with others.
   */
  decision(
    message: string,
    fields?: Fields,
    level?: RecordLevel,
    options?: { sync?: "now" | "soon" },
  ): void;
  debug(fields: Fields, message: string): void;
  /**
   * A debug record whose fields the caller wrote as JSON members (`"dir":"…","bytes":151`),
   * for records written by the thousand: the same line as `debug`, held with a chunk like it,
   * without pino. Not searched for secrets here: every string value among the members must be
   * the text {@link recordStringJson} gave for it (redacted as `debug` redacts its fields), and
   * every other value a number, a boolean, null or a constant of the caller's own.
   */
  debugRecord(message: string, members: string): void;
  info(fields: Fields, message: string): void;
  warn(fields: Fields, message: string): void;
  error(fields: Fields, message: string): void;
  /** Change the console sink's level (e.g. `silent` once nobody should hear more). */
  setConsoleLevel(level: LevelName): void;
  /** Rename the file to carry the session id (once; later calls are ignored). */
  setSessionId(sessionId: string): void;
  /**
   * Flag the file name now (a verdict: the session will end flagged), so that the path handed
   * on from here (a hook's `CURSOR_WRAP_LOG_PATH`, a notification's `log_path`) is the one the
   * log keeps; `close` flags it anyway. Once flagged, it stays so. Idempotent.
   */
  flag(): void;
  /** Write the final record, fsync, close, and flag the file name if needed. Idempotent. */
  close(end: SessionEnd): void;
}

// Keys pino writes itself (`level`, `time`, `ts`, `msg`), through a serialiser (`err`) or not
// at all (`__proto__`, which its merge of the fields assigns as the prototype): a record with
// one of them as a field is left to pino.
const PINO_KEYS = new Set(["level", "time", "ts", "msg", "err", "__proto__"]);
/** A field key as a plain record writes it: `,"key":`, and whether it names a secret. */
interface EncodedKey {
  text: string;
  namesSecret: boolean;
  /**
   * The last value under this key found to hold no secret (`kind`, `outcome`, an MCP method
   * repeat), and its JSON text.
   */
  clean: string | undefined;
  cleanJson: string;
}
// Each field key seen, or null for a key left to pino. The keys are the record vocabulary's, a
// few dozen; the cache stops growing at a bound all the same.
const encodedKeys = new Map<string, EncodedKey | null>();

function encodedKey(key: string): EncodedKey | null {
  let encoded = encodedKeys.get(key);
  if (encoded === undefined) {
    // An index key (`"0"`) comes before `ts` in the object pino writes (JavaScript orders
    // such keys first): left to pino as well.
    const indexKey = /^(?:0|[1-9][0-9]*)$/.test(key) && Number(key) < 2 ** 32 - 1;
    encoded =
      PINO_KEYS.has(key) || indexKey
        ? null
        : {
            text: `,${JSON.stringify(key)}:`,
            namesSecret: isSecretName(key),
            clean: undefined,
            cleanJson: "",
          };
    if (encodedKeys.size < 1_024) encodedKeys.set(key, encoded);
  }
  return encoded;
}

/**
 * The line pino writes for a record whose fields are all plain values (strings, numbers,
 * booleans, null, undefined), built directly: `{"level":…,"time":…,"ts":…,<fields>,"msg":…}`,
 * the fields in their order, undefined ones left out, a number that is not finite as null (as
 * pino does). Undefined when a field needs pino (an object, an error, a key pino writes
 * itself). Strings are escaped by `JSON.stringify`, which also keeps a lone surrogate (pino's
 * own escaping turns one into U+FFFD). With `redactValues`, each string is redacted before it
 * is written (R-LOG6): the secrets in it, or all of it under a key that names a secret; only
 * strings can hold one (the keys and the message are the vocabulary's).
 */
export function plainRecordLine(
  level: number,
  message: string,
  fields: Fields,
  now: () => number,
  redactValues = false,
): string | undefined {
  let body = "";
  for (const key in fields) {
    if (!Object.hasOwn(fields, key)) continue;
    // Before the value: `{ ts: undefined }` takes pino's own `ts` away.
    const name = encodedKey(key);
    if (name === null) return undefined;
    const value = fields[key];
    let encoded: string;
    switch (typeof value) {
      case "undefined":
      case "function":
        continue;
      case "string":
        encoded = redactValues ? redactedJson(name, value) : quoted(value);
        break;
      case "number":
        encoded = Number.isFinite(value) ? String(value) : "null";
        break;
      case "boolean":
        encoded = value ? "true" : "false";
        break;
      default:
        if (value !== null) return undefined;
        encoded = "null";
    }
    body += name.text + encoded;
  }
  // Two readings of the clock, as pino takes them (its timestamp, then the mixin's `ts`).
  const time = now();
  return recordText(level, time, message, body.slice(1), now());
}

// Characters JSON.stringify escapes: `"`, `\`, controls, and surrogates (a lone one is written
// `\udxxx`; a pair, which it leaves as it is, takes the slow path too).
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * A string as JSON.stringify writes it. Most values (ids, kinds, commands) need no escape:
 * a search for one costs a third of JSON.stringify (the routine records of a run write a few
 * strings each, tens of thousands of records).
 */
function quoted(value: string): string {
  return ESCAPED.test(value) ? JSON.stringify(value) : `"${value}"`;
}

/**
 * A field's value with its secrets redacted (R-LOG6), as JSON text. A value equal to the last
 * one found clean under the same key comes back as the text written for it then, without a
 * search or an escape (redacting is a function of the key's name and the value alone).
 */
function redactedJson(key: EncodedKey, value: string): string {
  if (key.clean === value) return key.cleanJson;
  const redacted = redactField(key.namesSecret, value);
  const json = quoted(redacted);
  if (redacted === value && value.length <= CLEAN_VALUE_LENGTH) {
    key.clean = value;
    key.cleanJson = json;
  }
  return json;
}
const CLEAN_VALUE_LENGTH = 256;

/** The fields handed to the console sink for a record it will not show. */
const NO_FIELDS: Fields = Object.freeze({});

/**
 * A string field of a record built as text ({@link SessionLog.debugRecord}), as JSON: its
 * secrets redacted (R-LOG6; all of it under a key that names a secret), escaped as
 * `JSON.stringify` escapes it. Redacted whatever the log's `redact` option: the records built
 * so are the MCP proxy's, whose logs are always redacted. A repeat of the key's last clean value
 * costs a comparison (an MCP method, a tool name: the same few, message after message).
 */
export function recordStringJson(key: string, value: string): string {
  const name = encodedKey(key);
  return name === null ? quoted(redactField(isSecretName(key), value)) : redactedJson(name, value);
}

function ensureDirectory(dir: string): { writableByOthers: boolean } {
  try {
    return ensurePrivateDirectory(dir);
  } catch (error) {
    throw new LogDirError(dir, error as NodeJS.ErrnoException);
  }
}

function createFile(
  dir: string,
  startedAt: number,
  kind: LogKind,
  base: string,
): { fd: number; path: string; name: string } {
  for (const name of [base, `${base}-${process.pid}`, `${base}-${process.pid}-${Date.now()}`]) {
    const path = join(dir, logFileName({ kind, startedAt, sessionId: name, tags: [] }));
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
  // Absolute: the path is handed on (reports, notifications, a hook's environment) to
  // programs that may run elsewhere.
  const dir = resolve(options.dir);
  const { writableByOthers } = ensureDirectory(dir);
  const pruned =
    options.retentionMs === 0
      ? []
      : pruneLogs(dir, {
          retentionMs: options.retentionMs ?? DEFAULT_RETENTION_MS,
          now: now(),
        });
  const startedAt = now();
  const kind = options.kind ?? "session";
  const created = createFile(
    dir,
    startedAt,
    kind,
    (options.name ?? "unknown").replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 128) || "unknown",
  );
  let sessionPart = created.name;
  let sessionId: string | undefined;
  let closed = false;
  /** Flagged before the end (`flag()`): the name says so from then on. */
  let flagged = false;
  const consoleOptions = options.console;
  let consoleLevel: number = consoleOptions ? LEVELS[consoleOptions.level] : LEVELS.silent;
  const consoleColor = consoleOptions
    ? (consoleOptions.color ?? colorFor(consoleOptions.stream))
    : false;
  const consoleSkip = new Set(consoleOptions?.skip ?? []);
  const consoleLimits = consoleOptions?.limits;
  const consoleCounts = new Map<string, number>();

  const printConsole = (level: number, message: string, fields: Fields): void => {
    if (!consoleOptions || level < consoleLevel || consoleSkip.has(message)) return;
    const limit = consoleLimits?.[message];
    let shown = fields;
    if (limit !== undefined) {
      const count = (consoleCounts.get(message) ?? 0) + 1;
      consoleCounts.set(message, count);
      if (count > limit + 1) return;
      if (count === limit + 1) {
        shown = { summary: `more ${message} records: in the log file only (${log.path})` };
      }
    }
    const line = renderConsoleLine(level, message, shown, consoleColor);
    consoleOptions.stream.write(shouldRedact ? redact(line) : line);
  };

  const onRecord = options.onRecord;
  /** Hand the tap each record of `text` (whole lines, as written). */
  const tapLines = (text: string): void => {
    if (!onRecord) return;
    let start = 0;
    for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", start)) {
      const line = text.slice(start, end);
      start = end + 1;
      try {
        const record = JSON.parse(line) as Record<string, unknown>;
        onRecord(String(record.msg), record);
      } catch {
        // A tap's failure is its own: the log goes on.
      }
    }
  };

  const openDurable = (fd: number, path: string) =>
    createDurableFile({
      fd,
      path,
      fsync: options.fsync ?? true,
      onFirstFailure(error) {
        const code = (error as NodeJS.ErrnoException).code ?? String(error);
        printConsole(LEVELS.warn, "log_write_failed", {
          summary: `${code}: the session log ${file.path} is incomplete; the agent's output is not affected`,
        });
      },
    });
  let file = openDurable(created.fd, created.path);
  let rotations = 0;

  /** Rename the file to carry `tags`, unless its name already does; whether it has that name now. */
  const renameTo = (tags: LogTag[]): boolean => {
    const next = join(
      dirname(file.path),
      logFileName({ kind, startedAt, sessionId: sessionPart, tags }),
    );
    return next === file.path || file.rename(next);
  };

  /** Records written by hand (not through pino): the head of a file begun by a rotation. */
  const headRecord = (level: number, message: string, fields: Fields): Buffer => {
    const line = `${JSON.stringify({ level, time: now(), ...fields, ts: now(), msg: message })}\n`;
    return Buffer.from(shouldRedact ? redact(line) : line, "utf8");
  };

  /** The file grew past `rotateBytes`: keep it as the rotated part, begin a new one. */
  const rotateIfNeeded = (): void => {
    if (options.rotateBytes === undefined || file.size <= options.rotateBytes || closed) return;
    const current = file.path;
    const rotated = join(
      dirname(current),
      logFileName({ kind, startedAt, sessionId: sessionPart, tags: ["rotated"] }),
    );
    file.close();
    try {
      unlinkSync(rotated);
    } catch {
      // no earlier part
    }
    if (!renameNoReplace(current, rotated)) {
      // The old file stays under its name and keeps growing: better than losing records.
      file = openDurable(openSync(current, "a"), current);
      return;
    }
    let fd: number;
    try {
      fd = openSync(current, "ax", 0o600);
    } catch {
      file = openDurable(openSync(rotated, "a"), rotated);
      return;
    }
    file = openDurable(fd, current);
    rotations += 1;
    file.write([
      headRecord(LEVELS.debug, "session_start", { pid: process.pid, log_path: current }),
      headRecord(LEVELS.info, "log_rotated", {
        ...options.carry,
        rotations,
        previous: rotated,
        summary: `the log grew past ${options.rotateBytes} bytes: its earlier part is ${rotated}`,
      }),
    ]);
  };

  // The records of the chunk begun by `beginChunk`, not written yet: its raw records, then the
  // decisions its lines led to, a pooled Buffer each; and whether routine decisions among them
  // want an fsync. (One string per chunk, encoded once, took 1-3% fewer instructions but raised
  // the MCP proxy's peak under a long load by 4-5 MiB, past P7's 60 MB: fewer allocations
  // outside V8's heap, so fewer full collections to free dead read chunks. BENCHMARKS.md.)
  let held: Buffer[] | undefined;
  let heldDecisions = false;
  // False while an urgent decision is being serialised: it never joins `held`.
  let writingRoutine = true;
  const writeHeld = (): void => {
    if (held === undefined) return;
    const parts = held;
    held = undefined;
    file.write(parts);
    if (heldDecisions) file.syncSoon();
    heldDecisions = false;
    rotateIfNeeded();
  };

  // pino serialises every record except raw lines; this destination writes them to the file
  // and hands the level and fields to the console sink (pino's metadata protocol).
  /** Write one serialised record (redacted already): held with the chunk, or at once. */
  const writeRecordLine = (line: string, level: number, message: string, fields: Fields): void => {
    // Closed: what an exit hook still reports (a last SIGKILL) goes nowhere, not to the console.
    if (closed) return;
    if (held !== undefined && writingRoutine) {
      held.push(Buffer.from(line, "utf8"));
    } else {
      writeHeld();
      file.write([Buffer.from(line, "utf8")]);
      rotateIfNeeded();
    }
    printConsole(level, message, fields);
    if (onRecord) tapLines(line);
  };
  const destination = {
    [Symbol.for("pino.metadata")]: true,
    lastLevel: 0,
    lastMsg: "",
    lastObj: {} as Fields,
    write(line: string) {
      writeRecordLine(line, this.lastLevel, this.lastMsg, this.lastObj);
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
  /**
   * Write a record: plain fields (every routine decision: tool calls opening and closing,
   * monitor warnings) are serialised here, to the same line pino writes, and redacted the same
   * way (the whole line); anything else goes through pino.
   */
  const writeFields = (level: RecordLevel, fields: Fields, message: string): void => {
    const levelNumber = LEVELS[level];
    const line = plainRecordLine(levelNumber, message, fields, now, shouldRedact);
    if (line === undefined) logger[level](fields, message);
    else writeRecordLine(line, levelNumber, message, fields);
  };
  const rawOptions = { now, redact: shouldRedact };
  const stdoutRecords = createRawRecordEncoder(rawOptions);
  // An MCP proxy's log records its server's stderr, which the proxy shows itself.
  const stderrSource = kind === "mcp" ? "server" : "agent";
  const stderrRecords = createStderrRecordEncoder(rawOptions, stderrSource);

  const log: SessionLog = {
    get path() {
      return file.path;
    },
    get incomplete() {
      return file.incomplete;
    },

    raw(event) {
      if (closed) return;
      writeHeld();
      file.write(stdoutRecords.encode(event));
      rotateIfNeeded();
    },

    rawAll(events) {
      log.beginChunk(events);
      writeHeld();
    },

    beginChunk(events) {
      if (closed) return;
      writeHeld();
      held = stdoutRecords.encodeAll(events);
    },

    endChunk: writeHeld,

    stderr(line) {
      log.stderrAll([parseLine(Buffer.concat([line, NEWLINE]))]);
    },

    stderrAll(events) {
      if (closed || events.length === 0) return;
      writeHeld();
      let records = "";
      // The lines people would read (not the events the agent mirrors on stderr), for the tap.
      let tapped = "";
      for (const event of events) {
        const record = stderrRecords.encode(event);
        records += record;
        if (event.kind !== "json" && stderrSource === "agent") {
          if (onRecord) tapped += record;
          const text = event.kind === "text" ? event.text : event.line.toString("utf8");
          printConsole(LEVELS.warn, "agent_stderr", { summary: text });
        }
      }
      file.write([Buffer.from(records, "utf8")]);
      if (tapped) tapLines(tapped);
    },

    decision(message, fields = {}, level = "info", options = {}) {
      if (closed) return;
      const routine = options.sync === "soon";
      writingRoutine = routine;
      try {
        writeFields(level, fields, message);
      } finally {
        writingRoutine = true;
      }
      // A held routine decision is fsynced soon after the chunk is written (see writeHeld).
      if (!routine) file.syncNow();
      else if (held === undefined) file.syncSoon();
      else heldDecisions = true;
    },
    debug: (fields, message) => writeFields("debug", fields, message),
    debugRecord(message, members) {
      if (closed) return;
      const text = recordText(LEVELS.debug, now(), message, members);
      // The console sink takes fields: read back only when it would show the record.
      const shown =
        consoleOptions !== undefined && LEVELS.debug >= consoleLevel && !consoleSkip.has(message);
      // Redacted already: its strings come from recordStringJson (see the interface).
      writeRecordLine(
        text,
        LEVELS.debug,
        message,
        shown ? (JSON.parse(`{${members}}`) as Fields) : NO_FIELDS,
      );
    },
    info: (fields, message) => writeFields("info", fields, message),
    warn: (fields, message) => writeFields("warn", fields, message),
    error: (fields, message) => writeFields("error", fields, message),

    setConsoleLevel(level) {
      consoleLevel = LEVELS[level];
    },

    setSessionId(id) {
      if (sessionId !== undefined || closed || !id) return;
      // An id with a secret in it (it comes from the agent) is no name for the file, which
      // `cursor-wrap logs` lists: the file keeps its name.
      if (shouldRedact && redact(id) !== id) return;
      sessionId = id;
      const safe = id.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 128);
      // Another instance of the same session may have started in the same millisecond.
      for (const part of [safe, `${safe}-${process.pid}`]) {
        const next = join(
          dirname(file.path),
          logFileName({ kind, startedAt, sessionId: part, tags: flagged ? ["flagged"] : [] }),
        );
        if (file.rename(next)) {
          sessionPart = part;
          logger.debug({ session_id: id, path: next }, "log_renamed");
          return;
        }
      }
      logger.warn({ session_id: id }, "log_rename_failed");
    },

    flag() {
      if (flagged || closed) return;
      flagged = true;
      const before = file.path;
      if (renameTo(["flagged"]) && file.path !== before) {
        logger.debug({ session_id: sessionId, path: file.path }, "log_renamed");
      }
    },

    close(end) {
      if (closed) return;
      writeHeld();
      const tagsNow = (): LogTag[] => [
        ...(end.flagged || flagged ? (["flagged"] as const) : []),
        ...(file.incomplete ? (["incomplete"] as const) : []),
      ];
      // The flag only helps `logs --flagged`; if the rename fails the log itself is complete.
      const flag = (tags: LogTag[]): void => {
        if (tags.length > 0) renameTo(tags);
      };
      // Renamed before its last record, so that record (and whatever reads it as it is
      // written, such as a run report) names the file the log ends up in.
      const tags = tagsNow();
      flag(tags);
      const record: SessionEnd & { incomplete: boolean; failed_writes: number; log_path: string } =
        {
          ...end,
          incomplete: file.incomplete,
          failed_writes: file.failedWrites,
          log_path: file.path,
        };
      logger.debug(record, "session_end");
      file.close();
      closed = true;
      // The last record itself could not be written: the name says so too.
      const after = tagsNow();
      if (after.length !== tags.length) flag(after);
    },
  };

  log.decision(
    "session_start",
    {
      pid: process.pid,
      node: process.version,
      platform: process.platform,
      log_path: file.path,
      pruned_logs: pruned.length,
    },
    "debug",
    // fsynced with the next batch (within 50 ms, or at the end): nothing has happened yet.
    { sync: "soon" },
  );
  if (writableByOthers) {
    logger.warn(
      {
        dir,
        summary: `other users can write to the log directory ${dir}; logs hold prompts, code and tool output (${options.sharedDirectoryAdvice ?? "chmod o-w"})`,
      },
      "log_dir_shared",
    );
  }
  return log;
}
