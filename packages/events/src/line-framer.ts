import { isAscii } from "node:buffer";
import { Transform, type TransformCallback } from "node:stream";
import { DEFAULT_PARSE_CAP } from "./defaults.js";
import { createLineReader } from "./line-reader.js";
import { classifyLine, instant, terminatorOf } from "./parse-line.js";
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

/**
 * Create a line framer: split on `\n` only, strip one trailing `\r`, keep each line's exact
 * bytes, deliver a last line without `\n` at the end, and stream lines above the parse cap
 * through in pieces (never holding more than the cap in memory) instead of parsing them. The
 * framing is the shared line reader's; this adds the parse of each line and the receive time.
 */
export function createLineFramer(options: LineFramerOptions = {}): LineFramer {
  const parseCap = options.parseCap ?? DEFAULT_PARSE_CAP;
  if (!Number.isSafeInteger(parseCap) || parseCap < 0) {
    throw new RangeError(`parseCap must be a whole number of bytes >= 0, got ${parseCap}`);
  }
  // The receive time of the chunk being framed: every event of one chunk shares it.
  let recvAt: Instant = { mono: 0, epoch: 0 };
  const chunkText = createChunkText();
  const reader = createLineReader<AgentEvent>(
    {
      line(raw, _terminated, inChunk) {
        const eol = terminatorOf(raw);
        const length = raw.length - eol.length;
        return classifyLine(raw, eol, recvAt, inChunk ? chunkText.ascii(raw, length) : undefined);
      },
      piece(piece): OversizePiece {
        const eol: LineEnding = piece.terminated ? "\n" : "";
        const line = piece.terminated ? piece.raw.subarray(0, piece.raw.length - 1) : piece.raw;
        return {
          kind: "oversize",
          raw: piece.raw,
          line,
          eol,
          recvAt,
          offset: piece.offset,
          first: piece.first,
          final: piece.final,
          totalBytes: piece.offset + line.length,
        };
      },
    },
    { maxLineBytes: parseCap },
  );

  return {
    push(chunk, at = instant()) {
      recvAt = at;
      chunkText.begin(chunk);
      try {
        return reader.push(chunk);
      } finally {
        chunkText.begin(EMPTY);
      }
    },
    end(at = instant()) {
      recvAt = at;
      return reader.end();
    },
  };
}

const EMPTY = Buffer.alloc(0);

/**
 * The chunk being framed, decoded once: an ASCII line that lies in it (nearly every line; one
 * that began in an earlier chunk does not) gets its text as a slice of the chunk's text, which
 * costs less than decoding each line on its own. The chunk is decoded as latin1, one character
 * per byte, so a line's byte offsets are its offsets in the text too; a line holding a byte
 * above 0x7f gets undefined and is decoded on its own, as UTF-8.
 */
function createChunkText() {
  let chunk: Buffer = EMPTY;
  let text: string | undefined;
  // Bytes of the chunk before `asciiUntil` are known to be ASCII: a line within them needs no
  // check of its own. Before `mixedUntil` lies a window found to hold other bytes: its lines
  // are checked one by one (a window from each of them would be scanned again and again).
  let asciiUntil = 0;
  let mixedUntil = 0;
  return {
    begin(next: Buffer): void {
      chunk = next;
      text = undefined;
      asciiUntil = 0;
      mixedUntil = 0;
    },
    /** The text of `raw`'s first `length` bytes, if it is ASCII; `raw` is a view of the chunk. */
    ascii(raw: Buffer, length: number): string | undefined {
      const start = raw.byteOffset - chunk.byteOffset;
      const end = start + raw.length;
      if (end > asciiUntil) {
        // One check for the next dozen lines or so (nearly all ASCII), else this line alone.
        const window = Math.min(chunk.length, start + ASCII_WINDOW);
        if (start >= mixedUntil && window > end && isAscii(chunk.subarray(start, window))) {
          asciiUntil = window;
        } else {
          if (start >= mixedUntil && window > end) mixedUntil = window;
          if (!isAscii(raw)) return undefined;
        }
      }
      text ??= chunk.toString("latin1");
      return text.slice(start, start + length);
    },
  };
}

/** Bytes checked for ASCII at once from a line's start: about a dozen lines of a real stream. */
const ASCII_WINDOW = 2_048;

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
