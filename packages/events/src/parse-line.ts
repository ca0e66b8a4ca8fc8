import { isAscii, isUtf8 } from "node:buffer";
import type { AgentEvent, Instant, JsonEvent, JsonObject, LineEnding, TextLine } from "./types.js";

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
 * A JSON line's event. `line` is a view made when asked for: the hot path (forward, log, watch)
 * never reads it, and a Buffer view per line is a measurable share of a run.
 */
class JsonLine implements JsonEvent {
  readonly kind = "json";
  constructor(
    public raw: Buffer,
    public eol: LineEnding,
    public recvAt: Instant,
    public text: string,
    public type: string | undefined,
    public subtype: string | undefined,
    public data: JsonObject,
  ) {}

  get line(): Buffer {
    return this.raw.subarray(0, this.raw.length - this.eol.length);
  }
}

/** The terminator `raw` ends with: `\n`, `\r\n` or `\r` (taken as one), or none. */
export function terminatorOf(raw: Buffer): LineEnding {
  const length = raw.length;
  if (length === 0) return "";
  const last = raw[length - 1];
  if (last === NEWLINE) return length > 1 && raw[length - 2] === CARRIAGE_RETURN ? "\r\n" : "\n";
  return last === CARRIAGE_RETURN ? "\r" : "";
}

/**
 * Classify one framed line: parse it once and build its event. `raw` holds the exact bytes,
 * ending in `eol`. `ascii`, when the caller knows the line is plain ASCII, is its text (without
 * the terminator) already decoded (the framer decodes a chunk once and slices it, instead of
 * decoding each line).
 */
export function classifyLine(
  raw: Buffer,
  eol: LineEnding,
  recvAt: Instant,
  ascii?: string,
): JsonEvent | TextLine {
  const length = raw.length - eol.length;
  let first = 0;
  while (first < length && isJsonWhitespace(raw[first]!)) first += 1;
  if (first === length || JSON_START[raw[first]!] === 0) {
    return textLine(raw, eol, recvAt, "not-json");
  }
  // A JSON text is UTF-8 by definition; invalid bytes could not be logged verbatim either.
  // Plain ASCII (most lines) decodes as latin1: a copy, and a faster string for JSON.parse.
  // The terminator is ASCII, so checking `raw` whole answers for the line.
  let text: string;
  if (ascii !== undefined) text = ascii;
  else if (isAscii(raw)) text = raw.toString("latin1", 0, length);
  else if (isUtf8(raw)) text = raw.toString("utf8", 0, length);
  else return textLine(raw, eol, recvAt, "invalid-utf8");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return textLine(raw, eol, recvAt, "not-json", text);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return textLine(raw, eol, recvAt, "not-object", text);
  }
  const data = value as JsonObject;
  return new JsonLine(
    raw,
    eol,
    recvAt,
    text,
    typeof data.type === "string" ? data.type : undefined,
    typeof data.subtype === "string" ? data.subtype : undefined,
    data,
  );
}

function textLine(
  raw: Buffer,
  eol: LineEnding,
  recvAt: Instant,
  reason: TextLine["reason"],
  text?: string,
): TextLine {
  const line = raw.subarray(0, raw.length - eol.length);
  return { kind: "text", raw, line, eol, recvAt, reason, text: text ?? line.toString("utf8") };
}

/**
 * Parse one line of cursor-agent output. Never throws: a line that is not a JSON object
 * becomes a {@link TextLine}. A trailing `\n`, `\r\n` or `\r` is taken as the terminator.
 * Parsing is one `JSON.parse`, no validation (see `schemas` for that).
 */
export function parseLine(line: Buffer | string, recvAt: Instant = instant()): AgentEvent {
  const raw = typeof line === "string" ? Buffer.from(line, "utf8") : line;
  return classifyLine(raw, terminatorOf(raw), recvAt);
}
