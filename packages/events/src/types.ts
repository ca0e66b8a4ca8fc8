/** When a line was received: monotonic ms for intervals, epoch ms for records. */
export interface Instant {
  /** Monotonic clock, ms (`performance.now()`): use for durations. */
  mono: number;
  /** Wall clock, ms since the epoch (`Date.now()`): use for log records only. */
  epoch: number;
}

/** The terminator that ended a line in the input; `""` for a last line without one. */
export type LineEnding = "\n" | "\r\n" | "\r" | "";

/** A parsed JSON object. */
export type JsonObject = { [key: string]: unknown };

interface LineBase {
  /** The exact input bytes of this line, terminator included. Writing `raw` reproduces the input. */
  raw: Buffer;
  /** The line without its terminator (and without one trailing `\r`). */
  line: Buffer;
  eol: LineEnding;
  recvAt: Instant;
}

/** A line that parsed as a JSON object: one of cursor-agent's events (known type or not). */
export interface JsonEvent extends LineBase {
  kind: "json";
  /** The `type` field when it is a string (`"tool_call"`, `"assistant"`, …). */
  type: string | undefined;
  /** The `subtype` field when it is a string (`"started"`, `"delta"`, …). */
  subtype: string | undefined;
  /** The parsed object, exactly as `JSON.parse` returned it. */
  data: JsonObject;
  /** The line decoded as text (what was parsed). */
  text: string;
}

/** Why a line is not an event. */
export type TextReason = "not-json" | "not-object" | "invalid-utf8";

/**
 * A line that is not a JSON object: bare text such as `T: ...`, JSON that is not an object,
 * or bytes that are not UTF-8. Forwarded and logged like any other line.
 */
export interface TextLine extends LineBase {
  kind: "text";
  reason: TextReason;
  /** The line decoded as UTF-8 (invalid sequences replaced by U+FFFD). */
  text: string;
}

/**
 * A piece of a line longer than the parse cap. Such lines are streamed through in pieces and
 * never parsed, so memory stays bounded however long the line is. `raw` of all pieces of one
 * line, concatenated, is the line's exact bytes; the terminator is in the final piece.
 */
export interface OversizePiece extends LineBase {
  kind: "oversize";
  /** Byte offset of this piece within its line. */
  offset: number;
  /** True for the first piece of the line. */
  first: boolean;
  /** True for the last piece (which carries the terminator, if any). */
  final: boolean;
  /** Bytes of the line seen so far, this piece included (the line's length on the final piece). */
  totalBytes: number;
}

/** Everything the framer produces: each line (or piece of an oversize line) in input order. */
export type AgentEvent = JsonEvent | TextLine | OversizePiece;

/**
 * The parts of an event the extractors read: any {@link AgentEvent}, or (without Node, in a
 * browser) an object made from parsed JSON by `eventOf(data)`.
 */
export type EventLike =
  | {
      kind: "json";
      type: string | undefined;
      subtype: string | undefined;
      data: JsonObject;
    }
  | { kind: "text" }
  /** A piece of a line above the parse cap: its first piece holds the line's head. */
  | { kind: "oversize"; first?: boolean; line?: Uint8Array };
