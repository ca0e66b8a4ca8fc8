// The one line framer of the project: the agent's stream (`createLineFramer`) and every JSON-RPC
// peer (`createMessageReader` in @cursor-wrap/jsonrpc) read lines through it, each with its own
// handler. It splits on `\n` only and never changes a byte: each line comes out with its own
// terminator, so forwarding what comes out reproduces the input exactly. A line longer than the
// cap is not held in memory: it comes out in pieces as it arrives.

/** A piece of a line above the cap, as it passes. */
export interface LinePiece {
  /** This piece's exact bytes (ending in the line's `\n` on the final piece of a whole line). */
  raw: Buffer;
  /** `raw` ends with the line's `\n`. */
  terminated: boolean;
  /** Bytes of the line before this piece. */
  offset: number;
  /** The line's first piece: at least {@link LINE_HEAD_BYTES} bytes when that much arrived. */
  first: boolean;
  /** The line's last piece: its `\n`, or the end of input. */
  final: boolean;
}

/** What a reader's user does with each line: the classifier. */
export interface LineHandler<T> {
  /**
   * A line within the cap: its exact bytes, `\n` included unless the input ended first.
   * `inChunk`: `raw` is a view of the chunk being pushed (not joined from earlier ones), so its
   * place in that chunk is `raw.byteOffset - chunk.byteOffset`. Reading a Buffer's `buffer` to
   * find that out is a call into V8's runtime, a measurable cost per line.
   */
  line(raw: Buffer, terminated: boolean, inChunk: boolean): T;
  /** A piece of a line above the cap. */
  piece(piece: LinePiece): T;
}

/** Options for {@link createLineReader}. */
export interface LineReaderOptions {
  /** Longest line (bytes, `\n` excluded) handed to `line`; longer ones come out as pieces. */
  maxLineBytes: number;
  /**
   * Copy the bytes of an unfinished line instead of keeping views into the chunks: a peer that
   * may take long to finish a line then does not hold whole chunks in memory. Off for the
   * agent's stream, where lines finish within a chunk or two and a copy is a cost per line.
   */
  copyPartial?: boolean;
}

/** Frames one byte stream. */
export interface LineReader<T> {
  /** Frame a chunk: what `handler` made of each line (or piece) it completed, in order. */
  push(chunk: Buffer): T[];
  /** End of input: the last line if it had no `\n`, or the last piece of an oversize one. */
  end(): T[];
}

/** Bytes at least in the first piece of an oversize line, when that much has arrived. */
export const LINE_HEAD_BYTES = 4096;

const NEWLINE = 0x0a;
const EMPTY = Buffer.alloc(0);

/**
 * Create a line reader that hands each line (or piece of a line above the cap) to `handler`.
 * @throws {RangeError} when `maxLineBytes` is not a whole number of bytes
 */
export function createLineReader<T>(
  handler: LineHandler<T>,
  options: LineReaderOptions,
): LineReader<T> {
  const cap = options.maxLineBytes;
  if (!Number.isSafeInteger(cap) || cap < 0) {
    throw new RangeError(`maxLineBytes must be a whole number of bytes >= 0, got ${cap}`);
  }
  const copyPartial = options.copyPartial === true;
  // Bytes of the current, unfinished line.
  let pending: Buffer[] = [];
  let pendingLength = 0;
  // Set while streaming an oversize line through: bytes of it already handed out.
  let oversizeOffset: number | undefined;

  const piece = (raw: Buffer, terminated: boolean, final: boolean): T => {
    const offset = oversizeOffset ?? 0;
    oversizeOffset = final ? undefined : offset + raw.length;
    return handler.piece({ raw, terminated, offset, first: offset === 0, final });
  };

  /**
   * A line just went over the cap: hand its bytes so far out as pieces, as they are (no copy
   * beyond the head), so the reader never holds more than the cap of one line.
   */
  const spillPending = (tail: Buffer, terminated: boolean, out: T[]): void => {
    const pieces = pending;
    pieces.push(tail);
    pending = [];
    pendingLength = 0;
    // The first piece carries at least LINE_HEAD_BYTES (a small copy) when that much has
    // arrived: whoever logs a line by its head sees the same head however it was chunked.
    let headCount = 1;
    let headBytes = pieces[0]!.length;
    while (headBytes < LINE_HEAD_BYTES && headCount < pieces.length)
      headBytes += pieces[headCount++]!.length;
    if (headCount > 1)
      pieces.splice(0, headCount, Buffer.concat(pieces.slice(0, headCount), headBytes));
    const last = pieces.length - 1;
    for (let index = 0; index <= last; index += 1) {
      out.push(piece(pieces[index]!, index === last && terminated, index === last && terminated));
    }
  };

  const takePending = (tail: Buffer): Buffer => {
    if (pending.length === 0) return tail;
    pending.push(tail);
    const joined = Buffer.concat(pending, pendingLength + tail.length);
    pending = [];
    pendingLength = 0;
    return joined;
  };

  return {
    push(chunk) {
      const out: T[] = [];
      let start = 0;
      while (start < chunk.length) {
        const newline = chunk.indexOf(NEWLINE, start);
        if (newline === -1) {
          const rest = chunk.subarray(start);
          if (oversizeOffset !== undefined) {
            out.push(piece(rest, false, false));
          } else if (pendingLength + rest.length > cap) {
            spillPending(rest, false, out);
          } else {
            pending.push(copyPartial ? Buffer.from(rest) : rest);
            pendingLength += rest.length;
          }
          break;
        }
        const segment = chunk.subarray(start, newline + 1);
        start = newline + 1;
        if (oversizeOffset !== undefined) {
          out.push(piece(segment, true, true));
        } else if (pendingLength + segment.length - 1 > cap) {
          spillPending(segment, true, out);
        } else {
          const inChunk = pending.length === 0;
          out.push(handler.line(takePending(segment), true, inChunk));
        }
      }
      return out;
    },

    end() {
      if (oversizeOffset !== undefined) return [piece(EMPTY, false, true)];
      if (pendingLength === 0) return [];
      // Pending bytes never exceed the cap: a longer line has already been spilled as pieces.
      const raw = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingLength);
      pending = [];
      pendingLength = 0;
      return [handler.line(raw, false, false)];
    },
  };
}
