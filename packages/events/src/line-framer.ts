import { Transform, type TransformCallback } from "node:stream";
import { DEFAULT_PARSE_CAP } from "./defaults.js";
import { classifyLine, instant, splitTerminator } from "./parse-line.js";
import type { AgentEvent, Instant, LineEnding, OversizePiece } from "./types.js";

export { DEFAULT_PARSE_CAP };

/** Options for {@link createLineFramer}. */
export interface LineFramerOptions {
  /** Longest line (bytes, terminator excluded) that is parsed. Default 16 MiB. */
  parseCap?: number;
}

/** Turns chunks of a byte stream into events, one per line, in order (R-EV1). */
export interface LineFramer {
  /**
   * Frame a chunk. Returns the events completed by it (possibly none). All events of one chunk
   * share `recvAt`, which defaults to now.
   */
  push(chunk: Buffer, recvAt?: Instant): AgentEvent[];
  /** End of input: returns the last line if it had no terminator. */
  end(recvAt?: Instant): AgentEvent[];
}

const NEWLINE = 0x0a;
/** Bytes at least in the first piece of an oversize line. */
const HEAD_BYTES = 4096;

/**
 * Create a line framer: split on `\n` only, strip one trailing `\r`, keep each line's exact
 * bytes, deliver a last line without `\n` at the end, and stream lines above the parse cap
 * through in pieces (never holding more than the cap in memory) instead of parsing them.
 */
export function createLineFramer(options: LineFramerOptions = {}): LineFramer {
  const parseCap = options.parseCap ?? DEFAULT_PARSE_CAP;
  if (!Number.isSafeInteger(parseCap) || parseCap < 0) {
    throw new RangeError(`parseCap must be a whole number of bytes >= 0, got ${parseCap}`);
  }
  // Bytes of the current, unfinished line (views into earlier chunks).
  let pending: Buffer[] = [];
  let pendingLength = 0;
  // Set while streaming an oversize line through: bytes of it already emitted.
  let oversizeOffset: number | undefined;

  const piece = (raw: Buffer, eol: LineEnding, final: boolean, recvAt: Instant): OversizePiece => {
    const offset = oversizeOffset ?? 0;
    const line = raw.subarray(0, raw.length - eol.length);
    const totalBytes = offset + line.length;
    oversizeOffset = final ? undefined : totalBytes;
    return {
      kind: "oversize",
      raw,
      line,
      eol,
      recvAt,
      offset,
      first: offset === 0,
      final,
      totalBytes,
    };
  };

  /**
   * A line just went over the cap: hand its bytes so far out as oversize pieces, as they are
   * (no copy), so the framer never holds more than the cap of one line.
   */
  const spillPending = (
    tail: Buffer,
    eol: LineEnding,
    final: boolean,
    recvAt: Instant,
    events: AgentEvent[],
  ): void => {
    const pieces = [...pending, tail];
    pending = [];
    pendingLength = 0;
    // The first piece carries at least HEAD_BYTES (a small copy) when that much has arrived,
    // as it has with any cap of that size or more: whoever logs a line by its head sees the
    // same head however the line was chunked.
    let headCount = 1;
    let headBytes = pieces[0]!.length;
    while (headBytes < HEAD_BYTES && headCount < pieces.length)
      headBytes += pieces[headCount++]!.length;
    if (headCount > 1)
      pieces.splice(0, headCount, Buffer.concat(pieces.slice(0, headCount), headBytes));
    for (const [index, bytes] of pieces.entries()) {
      const last = index === pieces.length - 1;
      events.push(piece(bytes, last ? eol : "", last && final, recvAt));
    }
  };

  const takePending = (tail: Buffer): Buffer => {
    const joined = pending.length === 0 ? tail : Buffer.concat([...pending, tail]);
    pending = [];
    pendingLength = 0;
    return joined;
  };

  return {
    push(chunk, recvAt = instant()) {
      const events: AgentEvent[] = [];
      let start = 0;
      while (start < chunk.length) {
        const newline = chunk.indexOf(NEWLINE, start);
        if (newline === -1) {
          const rest = chunk.subarray(start);
          if (oversizeOffset !== undefined) {
            events.push(piece(rest, "", false, recvAt));
          } else if (pendingLength + rest.length > parseCap) {
            spillPending(rest, "", false, recvAt, events);
          } else {
            pending.push(rest);
            pendingLength += rest.length;
          }
          break;
        }
        const segment = chunk.subarray(start, newline + 1);
        start = newline + 1;
        if (oversizeOffset !== undefined) {
          events.push(piece(segment, "\n", true, recvAt));
          continue;
        }
        if (pendingLength + segment.length - 1 > parseCap) {
          spillPending(segment, "\n", true, recvAt, events);
          continue;
        }
        const raw = takePending(segment);
        const { line, eol } = splitTerminator(raw);
        events.push(classifyLine(raw, line, eol, recvAt));
      }
      return events;
    },

    end(recvAt = instant()) {
      if (oversizeOffset !== undefined) return [piece(Buffer.alloc(0), "", true, recvAt)];
      if (pendingLength === 0) return [];
      // Pending bytes never exceed the cap: a longer line has already been spilled as pieces.
      const raw = takePending(Buffer.alloc(0));
      const { line, eol } = splitTerminator(raw);
      return [classifyLine(raw, line, eol, recvAt)];
    },
  };
}

/**
 * A Transform stream over {@link createLineFramer}: Buffer chunks in, {@link AgentEvent}
 * objects out. For piping; the turn loop uses the framer directly.
 */
export function createLineFramerStream(options: LineFramerOptions = {}): Transform {
  const framer = createLineFramer(options);
  return new Transform({
    readableObjectMode: true,
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      for (const event of framer.push(chunk)) this.push(event);
      callback();
    },
    flush(callback: TransformCallback) {
      for (const event of framer.end()) this.push(event);
      callback();
    },
  });
}
