// How a line of agent output is stored in the session log (R-LOG2), and read back: the encoder
// and the decoder of the raw records, side by side so they cannot drift apart.

import { isUtf8 } from "node:buffer";
import {
  type AgentEvent,
  type JsonEvent,
  type OversizePiece,
  parseLine,
  type TextLine,
} from "@cursor-wrap/events";
import { LEVELS } from "./levels.js";
import {
  createLineRedactor,
  isSecretName,
  jsonValueMayContainSecret,
  type LineRedactor,
  maskCutSecret,
  maskKnownLead,
  maskLeadingSecret,
  redact,
  redactCut,
  redactJsonText,
  redactJsonValue,
  TOO_DEEP,
} from "./redact.js";

/** Bytes of an oversize line kept in its record (`raw_head`). */
const RAW_HEAD_BYTES = 4_096;
const RECORD_END = Buffer.from("}\n");
const RAW_MARKER = Buffer.from(',"raw":');

/** How raw records are written. */
export interface RawRecordOptions {
  /** Wall clock for the record's `time`, epoch ms. */
  now: () => number;
  /** Redact secrets (R-LOG6). */
  redact: boolean;
}

/**
 * JSON lines up to this long (nearly all) have their records copied, byte for byte, into one
 * buffer per chunk: one allocation and two copies per line instead of three buffers per line
 * or a string per line (in-process on the real-shaped stream, 8% less CPU for the whole run
 * than joining their text). A longer line is embedded as the buffer it came in, without a copy.
 */
const JOINED_LINE_BYTES = 16 * 1024;
/** Room for one record's head (`{"level":…,"raw":`) and end, when sizing a chunk's buffer. */
const HEAD_ROOM = 112;
const EMPTY = Buffer.alloc(0);

/** Writes the raw records of one stream: stdout or stderr (a key printed line by line spans records). */
export interface RawRecordEncoder {
  /** The record(s) for one line of agent stdout. */
  encode(event: AgentEvent): Buffer[];
  /**
   * The records of the lines of one chunk of agent stdout, in order, as buffers to write. They
   * are written together, so they share one reading of the clock (`time`).
   */
  encodeAll(events: readonly AgentEvent[]): Buffer[];
}

const prefix = (now: number, level: number, recvTs: number, message = "raw_event"): string =>
  `{"level":${level},"time":${now},"msg":"${message}","recv_ts":${recvTs}`;

const eolField = (eol: string): string => (eol === "\n" ? "" : `,"eol":${JSON.stringify(eol)}`);

/** `,"raw_base64":"…"` for a line that is not valid UTF-8 (so the log keeps its exact bytes). */
function base64Field(line: Buffer, redactor: LineRedactor | undefined): string {
  if (isUtf8(line)) return "";
  // Secrets are ASCII: redact the bytes read one to one as latin1, then store those bytes.
  const bytes = redactor ? Buffer.from(redactor.line(line.toString("latin1")), "latin1") : line;
  return `,"raw_base64":"${bytes.toString("base64")}"`;
}

/**
 * A JSON line's text with its secrets redacted, or undefined when it holds none: its value
 * redacted and serialized again, or (nested too deep for that) its text redacted as it is.
 */
function redactedJson(event: JsonEvent, tooDeep: boolean): string | undefined {
  if (tooDeep) {
    const text = redactJsonText(event.text);
    return text === event.text ? undefined : text;
  }
  const redacted = redactJsonValue(event.data);
  return redacted.changed ? JSON.stringify(redacted.value) : undefined;
}

/**
 * The encoder of the raw records of agent stdout (R-LOG2). A JSON line is embedded byte for
 * byte (not re-serialised) unless it holds a secret: then its decoded strings are redacted and
 * it is serialised again. The records of a chunk's short JSON lines are copied into one buffer
 * (the head, the line's bytes, the end); a long line is embedded as the buffer it came in,
 * without a copy. Other lines go in `raw_text`, and when they are not valid UTF-8 also in
 * `raw_base64`; an oversize line is recorded as its head and, at its end, its length.
 */
export function createRawRecordEncoder(options: RawRecordOptions): RawRecordEncoder {
  const textRedactor = options.redact ? createLineRedactor() : undefined;
  const bytesRedactor = options.redact ? createLineRedactor() : undefined;
  const text = (record: string): string => (options.redact ? redact(record) : record);

  /** The record(s) of a line that is not copied into the chunk's buffer, as text. */
  const textRecord = (event: TextLine | OversizePiece, time: number): string => {
    const recvTs = event.recvAt.epoch;
    if (event.kind === "text") {
      const shown = textRedactor ? textRedactor.line(event.text) : event.text;
      return `${prefix(time, LEVELS.warn, recvTs)}${eolField(event.eol)},"reason":"${event.reason}"${base64Field(event.line, bytesRedactor)},"raw_text":${JSON.stringify(shown)}}\n`;
    }
    let records = "";
    if (event.first) {
      const headText = event.line.subarray(0, RAW_HEAD_BYTES).toString("utf8");
      const head = JSON.stringify(options.redact ? redactCut(headText) : headText);
      records += text(
        `${prefix(time, LEVELS.warn, recvTs)},"oversize":true,"truncated":true,"raw_head":${head}}\n`,
      );
    }
    if (event.final) {
      records += text(
        `${prefix(time, LEVELS.warn, recvTs, "raw_event_end")},"oversize":true,"bytes":${event.totalBytes}}\n`,
      );
    }
    return records;
  };

  const encodeAll = (events: readonly AgentEvent[]): Buffer[] => {
    const parts: Buffer[] = [];
    if (events.length === 0) return parts;
    const time = options.now();
    // The head of a JSON line's record (`…,"raw":`), as text and bytes: the same for every
    // line of a chunk (one receive time, nearly always one line ending).
    let headTs = Number.NaN;
    let headEol = "";
    let head = "";
    let headBytes = EMPTY;
    const headFor = (event: JsonEvent): void => {
      if (event.recvAt.epoch === headTs && event.eol === headEol) return;
      headTs = event.recvAt.epoch;
      headEol = event.eol;
      head = `${prefix(time, LEVELS.debug, headTs)}${eolField(headEol)},"raw":`;
      headBytes = Buffer.from(head, "latin1");
    };
    // The buffer the short lines' records are copied into: `joined[start, at)` is not in
    // `parts` yet. Sized for the chunk's short lines; a record that does not fit starts another.
    let room = 0;
    for (const event of events) {
      if (event.kind !== "json") continue;
      const length = event.raw.length - event.eol.length;
      if (length <= JOINED_LINE_BYTES) room += length + HEAD_ROOM;
    }
    let joined = EMPTY;
    let start = 0;
    let at = 0;
    const takeJoined = (): void => {
      if (at > start) parts.push(joined.subarray(start, at));
      start = at;
    };
    for (const event of events) {
      if (event.kind !== "json") {
        takeJoined();
        parts.push(Buffer.from(textRecord(event, time), "utf8"));
        continue;
      }
      headFor(event);
      // The line's length without its terminator (`event.line` is a view made on demand).
      const { raw } = event;
      const length = raw.length - event.eol.length;
      const found = options.redact ? jsonValueMayContainSecret(event.data) : 0;
      if (found !== 0) {
        const redacted = redactedJson(event, found === TOO_DEEP);
        if (redacted !== undefined) {
          takeJoined();
          parts.push(Buffer.from(`${head}${redacted}}\n`, "utf8"));
          continue;
        }
      }
      if (length > JOINED_LINE_BYTES) {
        takeJoined();
        parts.push(headBytes, event.line, RECORD_END);
        continue;
      }
      const bytes = headBytes.length + length + 2;
      if (at + bytes > joined.length) {
        takeJoined();
        joined = Buffer.allocUnsafe(Math.max(room, bytes));
        start = 0;
        at = 0;
      }
      room -= length + HEAD_ROOM;
      joined.set(headBytes, at);
      at += headBytes.length;
      // The line with its terminator (at most 2 bytes, which the record's end then covers).
      joined.set(raw, at);
      at += length;
      joined[at++] = 0x7d; // }
      joined[at++] = 0x0a; // \n
    }
    takeJoined();
    return parts;
  };
  return { encode: (event) => encodeAll([event]), encodeAll };
}

/** Whose stderr a log records: the agent's, or (an MCP proxy's log) the server's. */
export type StderrSource = "agent" | "server";

/**
 * The records of a chunk of agent stderr (R-SUP4): JSON lines (cursor-agent mirrors its events
 * there) at debug as `stderr_event`, other lines at warn as `agent_stderr`; both with
 * `raw_text`, and `raw_base64` when a line is not valid UTF-8. An MCP server's stderr is its
 * own log, read by people when something went wrong: every line at info as `server_stderr`.
 */
export function createStderrRecordEncoder(
  options: RawRecordOptions,
  source: StderrSource = "agent",
): StderrRecordEncoder {
  const textRedactor = options.redact ? createLineRedactor() : undefined;
  const bytesRedactor = options.redact ? createLineRedactor() : undefined;
  const record = (event: AgentEvent, shown: string, base64: string): string => {
    const json = event.kind === "json";
    const level = source === "server" ? LEVELS.info : json ? LEVELS.debug : LEVELS.warn;
    const message = source === "server" ? "server_stderr" : json ? "stderr_event" : "agent_stderr";
    return `${prefix(options.now(), level, event.recvAt.epoch, message)},"stream":"stderr"${base64},"raw_text":${JSON.stringify(shown)}}\n`;
  };
  // A line longer than a piece is logged a record per piece. Redacted, a record ends before
  // the piece's last word, which is held for the next record (a key is never cut in two); a
  // record that ends where a secret begins (`password: `, `Bearer `, `sk-…` cut inside a word
  // longer than the held part) has it replaced, and so does the next record's first word.
  let held: Buffer | undefined;
  let secretCut = false;
  const piece = (event: OversizePiece): string => {
    let bytes = held === undefined ? event.line : Buffer.concat([held, event.line]);
    held = undefined;
    if (!event.final) {
      const from = lastWordStart(bytes) ?? utf8Start(bytes, bytes.length - HELD_BYTES);
      held = Buffer.from(bytes.subarray(from));
      bytes = bytes.subarray(0, from);
      // All of it held (a piece of one word): its record is the next one's.
      if (bytes.length === 0) return "";
    }
    let cut = false;
    const redactPiece = (redactor: LineRedactor, text: string): string => {
      let shown = redactor.line(text);
      if (secretCut) shown = maskLeadingSecret(shown);
      else if (event.offset > 0) shown = maskKnownLead(shown);
      if (event.final) return shown;
      const masked = maskCutSecret(shown, HELD_BYTES);
      if (masked === undefined) return shown;
      cut = true;
      return masked;
    };
    const shown = redactPiece(textRedactor!, bytes.toString("utf8"));
    const base64 = isUtf8(bytes)
      ? ""
      : `,"raw_base64":"${Buffer.from(redactPiece(bytesRedactor!, bytes.toString("latin1")), "latin1").toString("base64")}"`;
    secretCut = cut;
    return record(event, shown, base64);
  };
  return {
    encode(event) {
      if (event.kind === "oversize" && textRedactor) return piece(event);
      const decoded = event.kind === "oversize" ? event.line.toString("utf8") : event.text;
      const shown = textRedactor ? textRedactor.line(decoded) : decoded;
      return record(event, shown, base64Field(event.line, bytesRedactor));
    },
  };
}

/** How much of a piece of a long stderr line may be held for the next record, bytes. */
const HELD_BYTES = 4096;

/**
 * Where the held part of a piece begins: its last word, and the words before it that say a
 * secret follows (`DB_PASSWORD:`, `"apiKey":`, `PASSWORD =`, `["--token",`, `Authorization:
 * Bearer`), so that a secret's name and its value are in one record. Words end at spaces and
 * tabs, which never cut a UTF-8 character. Undefined when the last word alone is longer than
 * {@link HELD_BYTES}.
 */
function lastWordStart(bytes: Buffer): number | undefined {
  const floor = Math.max(0, bytes.length - HELD_BYTES);
  const wordStart = (end: number): number | undefined => {
    for (let index = end - 1; index >= floor; index -= 1) {
      const byte = bytes[index]!;
      if (byte === 0x20 || byte === 0x09) return index + 1;
    }
    return floor === 0 ? 0 : undefined;
  };
  let start = wordStart(bytes.length);
  while (start !== undefined && start > floor) {
    // The word before, past the blanks before `start`.
    let end = start;
    while (end > floor && (bytes[end - 1] === 0x20 || bytes[end - 1] === 0x09)) end -= 1;
    const before = end > floor ? wordStart(end) : undefined;
    if (before === undefined || !introducesSecret(bytes.toString("latin1", before, end))) break;
    start = before;
  }
  return start;
}

/** A word after which a secret may follow: a secret's name, a separator, `Bearer`. */
function introducesSecret(word: string): boolean {
  const bare = word.replace(/^[[{("']+|[\]})"',:=]+$/g, "");
  return bare === "" || /^(?:bearer|basic|authorization)$/i.test(bare) || isSecretName(bare);
}

/** The first index at or after `index` that does not cut a UTF-8 character. */
function utf8Start(bytes: Buffer, index: number): number {
  let at = Math.max(0, index);
  while (at < bytes.length && (bytes[at]! & 0xc0) === 0x80) at += 1;
  return at;
}

/** Writes the records of agent stderr (see {@link createStderrRecordEncoder}). */
export interface StderrRecordEncoder {
  /** The record for one line of agent stderr, as text (records of a chunk are joined). */
  encode(event: AgentEvent): string;
}

/** One line of a session log, as read back. */
export type LogEntry =
  /** A raw agent line: `raw` holds its bytes as logged (after redaction, if any). */
  | { kind: "raw"; recvTs: number; raw: Buffer; eol: string }
  /** A line of agent output that was not a JSON object. */
  | { kind: "text"; recvTs: number; text: string; reason: string; bytes?: Buffer; eol: string }
  /** The start (head) or end (byte count) of a line above the parse cap. */
  | { kind: "oversize"; recvTs: number; head?: string; bytes?: number }
  /** Any other record: decisions, stderr, session start and end. */
  | { kind: "record"; record: Record<string, unknown> }
  /**
   * A line that is not a JSON record. `truncated`: it is the last line and has no newline, a
   * write cut short by a crash (SIGKILL during a large write).
   */
  | { kind: "damaged"; line: string; truncated: boolean };

/** Decode one record of a log file: `line` is its bytes, `record` the same line parsed. */
export function decodeLogRecord(line: Buffer, record: Record<string, unknown>): LogEntry {
  const recvTs = typeof record.recv_ts === "number" ? record.recv_ts : 0;
  const eol = typeof record.eol === "string" ? record.eol : "\n";
  if (record.msg === "raw_event" && "raw" in record) {
    // The raw line was embedded verbatim: take its bytes, not a re-serialisation. A record
    // not laid out as the writer lays it out (rewritten by another tool) gives its value.
    const marker = line.indexOf(RAW_MARKER);
    const raw =
      marker !== -1 && line[line.length - 1] === 0x7d
        ? line.subarray(marker + RAW_MARKER.length, line.length - 1)
        : Buffer.from(JSON.stringify(record.raw) ?? "null", "utf8");
    return { kind: "raw", recvTs, raw, eol };
  }
  if (record.msg === "raw_event" && typeof record.raw_text === "string") {
    const entry: LogEntry = {
      kind: "text",
      recvTs,
      text: record.raw_text,
      reason: String(record.reason ?? ""),
      eol,
    };
    if (typeof record.raw_base64 === "string")
      entry.bytes = Buffer.from(record.raw_base64, "base64");
    return entry;
  }
  if (record.oversize === true) {
    return record.msg === "raw_event_end"
      ? { kind: "oversize", recvTs, bytes: Number(record.bytes) }
      : { kind: "oversize", recvTs, head: String(record.raw_head ?? "") };
  }
  return { kind: "record", record };
}

/**
 * The agent line a `raw` or `text` entry holds, parsed again as it was when it arrived (with
 * its line ending, received at `recvTs`); undefined for every other entry.
 */
export function logEntryEvent(entry: LogEntry): AgentEvent | undefined {
  if (entry.kind !== "raw" && entry.kind !== "text") return undefined;
  const line = entry.kind === "raw" ? entry.raw : (entry.bytes ?? Buffer.from(entry.text, "utf8"));
  return parseLine(Buffer.concat([line, Buffer.from(entry.eol, "latin1")]), {
    mono: entry.recvTs,
    epoch: entry.recvTs,
  });
}
