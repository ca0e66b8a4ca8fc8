// How a line of agent output is stored in the session log (R-LOG2), and read back: the encoder
// and the decoder of the raw records, side by side so they cannot drift apart.

import { type AgentEvent, parseLine } from "@cursor-wrap/events";
import { LEVELS } from "./console-sink.js";
import { mayContainSecret, redact } from "./redact.js";

/** Bytes of an oversize line kept in its record (`raw_head`). */
export const RAW_HEAD_BYTES = 4_096;
const RECORD_END = Buffer.from("}\n");
const RAW_MARKER = Buffer.from(',"raw":');

/** How raw records are written. */
export interface RawRecordOptions {
  /** Wall clock for the record's `time`, epoch ms. */
  now: () => number;
  /** Redact secrets (R-LOG6). */
  redact: boolean;
}

const prefix = (now: number, level: number, recvTs: number, message = "raw_event"): string =>
  `{"level":${level},"time":${now},"msg":"${message}","recv_ts":${recvTs}`;

const eolField = (eol: string): string => (eol === "\n" ? "" : `,"eol":${JSON.stringify(eol)}`);

/**
 * The bytes of the raw record(s) for one event. A JSON line is embedded byte for byte (no copy,
 * not re-serialised) unless it needs redaction; other lines go in `raw_text`, invalid UTF-8 also
 * in `raw_base64`; an oversize line is recorded as its head and, at its end, its length.
 */
export function encodeRawRecords(event: AgentEvent, options: RawRecordOptions): Buffer[] {
  const recvTs = event.recvAt.epoch;
  const text = (record: string): Buffer =>
    Buffer.from(options.redact ? redact(record) : record, "utf8");
  switch (event.kind) {
    case "json": {
      const head = `${prefix(options.now(), LEVELS.debug, recvTs)}${eolField(event.eol)},"raw":`;
      // The line was already decoded to be parsed: search that text, not the bytes again.
      if (options.redact && mayContainSecret(event.text)) {
        return [Buffer.from(redact(`${head}${event.text}}\n`), "utf8")];
      }
      return [Buffer.from(head, "latin1"), event.line, RECORD_END];
    }
    case "text": {
      const base64 =
        event.reason === "invalid-utf8" ? `,"raw_base64":"${event.line.toString("base64")}"` : "";
      return [
        text(
          `${prefix(options.now(), LEVELS.warn, recvTs)}${eolField(event.eol)},"reason":"${event.reason}"${base64},"raw_text":${JSON.stringify(event.text)}}\n`,
        ),
      ];
    }
    case "oversize": {
      const parts: Buffer[] = [];
      if (event.first) {
        const head = JSON.stringify(event.line.subarray(0, RAW_HEAD_BYTES).toString("utf8"));
        parts.push(
          text(
            `${prefix(options.now(), LEVELS.warn, recvTs)},"oversize":true,"truncated":true,"raw_head":${head}}\n`,
          ),
        );
      }
      if (event.final) {
        parts.push(
          text(
            `${prefix(options.now(), LEVELS.warn, recvTs, "raw_event_end")},"oversize":true,"bytes":${event.totalBytes}}\n`,
          ),
        );
      }
      return parts;
    }
  }
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
  /** A line that is not a JSON record (a write cut short by a crash). */
  | { kind: "damaged"; line: string };

/** Decode one record of a log file: `line` is its bytes, `record` the same line parsed. */
export function decodeLogRecord(line: Buffer, record: Record<string, unknown>): LogEntry {
  const recvTs = typeof record.recv_ts === "number" ? record.recv_ts : 0;
  const eol = typeof record.eol === "string" ? record.eol : "\n";
  if (record.msg === "raw_event" && "raw" in record) {
    // The raw line was embedded verbatim: take its bytes, not a re-serialisation.
    const start = line.indexOf(RAW_MARKER) + RAW_MARKER.length;
    return { kind: "raw", recvTs, raw: line.subarray(start, line.length - 1), eol };
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
