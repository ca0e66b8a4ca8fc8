import { isAscii, isUtf8 } from "node:buffer";
import type { AgentEvent, Instant, JsonEvent, LineEnding, TextLine } from "./types.js";

export { eventTypeOf } from "./event-type.js";

/** The current time as an {@link Instant}. */
export function instant(): Instant {
  return { mono: performance.now(), epoch: Date.now() };
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

// Bytes a JSON text can start with (after white space): anything else is bare text such as
// `T: ...`, recognised without paying for a failed JSON.parse.
const JSON_START = new Uint8Array(256);
for (const character of '{["-0123456789tfn') JSON_START[character.charCodeAt(0)] = 1;

function isJsonWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === NEWLINE || byte === CARRIAGE_RETURN;
}

/**
 * Classify one framed line: parse it once and build its event. `raw` holds the exact bytes
 * (terminator included), `line` the same bytes without the terminator. `ascii`, when the
 * caller knows `line` is plain ASCII, is its text already decoded (the framer decodes a chunk
 * once and slices it, instead of decoding each line).
 */
export function classifyLine(
  raw: Buffer,
  line: Buffer,
  eol: LineEnding,
  recvAt: Instant,
  ascii?: string,
): JsonEvent | TextLine {
  let first = 0;
  while (first < line.length && isJsonWhitespace(line[first]!)) first += 1;
  if (first === line.length || JSON_START[line[first]!] === 0) {
    return textLine(raw, line, eol, recvAt, "not-json");
  }
  // A JSON text is UTF-8 by definition; invalid bytes could not be logged verbatim either.
  // Plain ASCII (most lines) decodes as latin1: a copy, and a faster string for JSON.parse.
  let text: string;
  if (ascii !== undefined) text = ascii;
  else if (isAscii(line)) text = line.toString("latin1");
  else if (isUtf8(line)) text = line.toString("utf8");
  else return textLine(raw, line, eol, recvAt, "invalid-utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: "text", raw, line, eol, recvAt, reason: "not-json", text };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { kind: "text", raw, line, eol, recvAt, reason: "not-object", text };
  }
  const data = value as Record<string, unknown>;
  return {
    kind: "json",
    raw,
    line,
    eol,
    recvAt,
    text,
    type: typeof data.type === "string" ? data.type : undefined,
    subtype: typeof data.subtype === "string" ? data.subtype : undefined,
    data,
  };
}

function textLine(
  raw: Buffer,
  line: Buffer,
  eol: LineEnding,
  recvAt: Instant,
  reason: TextLine["reason"],
): TextLine {
  return { kind: "text", raw, line, eol, recvAt, reason, text: line.toString("utf8") };
}

/** Split a buffer holding one line into its content and its terminator. */
export function splitTerminator(raw: Buffer): { line: Buffer; eol: LineEnding } {
  const length = raw.length;
  if (length > 0 && raw[length - 1] === NEWLINE) {
    return length > 1 && raw[length - 2] === CARRIAGE_RETURN
      ? { line: raw.subarray(0, length - 2), eol: "\r\n" }
      : { line: raw.subarray(0, length - 1), eol: "\n" };
  }
  if (length > 0 && raw[length - 1] === CARRIAGE_RETURN) {
    return { line: raw.subarray(0, length - 1), eol: "\r" };
  }
  return { line: raw, eol: "" };
}

/**
 * Parse one line of cursor-agent output. Never throws: a line that is not a JSON object
 * becomes a {@link TextLine}. A trailing `\n`, `\r\n` or `\r` is taken as the terminator.
 * Parsing is one `JSON.parse`, no validation (see `schemas` for that).
 */
export function parseLine(line: Buffer | string, recvAt: Instant = instant()): AgentEvent {
  const raw = typeof line === "string" ? Buffer.from(line, "utf8") : line;
  const split = splitTerminator(raw);
  return classifyLine(raw, split.line, split.eol, recvAt);
}
