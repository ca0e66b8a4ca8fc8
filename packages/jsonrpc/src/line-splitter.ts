// Splits a byte stream into lines without changing a byte: each line comes out with its own
// terminator, so forwarding what comes out reproduces the input exactly. A line longer than the
// cap is not held in memory: it comes out in pieces as it arrives, with its head and tail kept.

/** Bytes of an oversize line's start and end kept for logging and for finding its id. */
const KEPT_BYTES = 4_096;

/** What the splitter produces, in input order. */
export type Framed =
  | {
      kind: "line";
      /** The line without its `\n` (a `\r` before it stays: JSON ignores it). */
      line: Buffer;
      /** The exact bytes to forward: the line and its terminator. */
      raw: Buffer;
      /** The stream ended without a `\n` after this line. */
      unterminated?: boolean;
    }
  | {
      kind: "oversize";
      /** This piece's exact bytes, to forward as they come. */
      raw: Buffer;
      first: boolean;
      final: boolean;
      /** The line's first bytes (up to {@link KEPT_BYTES}). */
      head: Buffer;
      /** On the final piece: the line's last bytes (up to {@link KEPT_BYTES}). */
      tail?: Buffer;
      /** Bytes of the line so far (all of it on the final piece). */
      bytes: number;
    };

/** A splitter for one stream. */
export interface LineSplitter {
  push(chunk: Buffer): Framed[];
  /** The stream ended: the last line, if it had no terminator. */
  end(): Framed[];
}

/** Create a splitter; lines longer than `maxLineBytes` come out as oversize pieces. */
export function createLineSplitter(options: { maxLineBytes: number }): LineSplitter {
  const max = options.maxLineBytes;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let oversize: { head: Buffer; tail: Buffer; bytes: number } | undefined;

  const keepTail = (tail: Buffer, piece: Buffer): Buffer =>
    piece.length >= KEPT_BYTES
      ? Buffer.from(piece.subarray(piece.length - KEPT_BYTES))
      : Buffer.concat([tail, piece]).subarray(-KEPT_BYTES);

  return {
    push(chunk) {
      const out: Framed[] = [];
      let start = 0;
      while (start < chunk.length) {
        const newline = chunk.indexOf(10, start);
        const end = newline === -1 ? chunk.length : newline + 1;
        const piece = chunk.subarray(start, end);
        start = end;
        if (oversize) {
          // The rest of a line already too long: pass it on as it comes.
          oversize.bytes += piece.length;
          oversize.tail = keepTail(oversize.tail, piece);
          const final = newline !== -1;
          out.push({
            kind: "oversize",
            raw: piece,
            first: false,
            final,
            head: oversize.head,
            ...(final ? { tail: oversize.tail } : {}),
            bytes: oversize.bytes,
          });
          if (final) oversize = undefined;
          continue;
        }
        if (newline === -1) {
          if (pendingBytes + piece.length <= max) {
            // Copied: the chunk's memory is not held for a line that may take long to finish.
            pending.push(Buffer.from(piece));
            pendingBytes += piece.length;
            continue;
          }
          // Too long already, and not finished: from now on it streams through.
          const raw = pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
          pending = [];
          pendingBytes = 0;
          const head = Buffer.from(raw.subarray(0, KEPT_BYTES));
          oversize = { head, tail: keepTail(Buffer.alloc(0), raw), bytes: raw.length };
          out.push({ kind: "oversize", raw, first: true, final: false, head, bytes: raw.length });
          continue;
        }
        const raw = pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
        pending = [];
        pendingBytes = 0;
        if (raw.length - 1 > max) {
          out.push({
            kind: "oversize",
            raw,
            first: true,
            final: true,
            head: Buffer.from(raw.subarray(0, KEPT_BYTES)),
            tail: Buffer.from(raw.subarray(-KEPT_BYTES)),
            bytes: raw.length,
          });
          continue;
        }
        out.push({ kind: "line", line: raw.subarray(0, raw.length - 1), raw });
      }
      return out;
    },
    end() {
      if (oversize) {
        const last: Framed = {
          kind: "oversize",
          raw: Buffer.alloc(0),
          first: false,
          final: true,
          head: oversize.head,
          tail: oversize.tail,
          bytes: oversize.bytes,
        };
        oversize = undefined;
        return [last];
      }
      if (pending.length === 0) return [];
      const raw = Buffer.concat(pending);
      pending = [];
      pendingBytes = 0;
      return [{ kind: "line", line: raw, raw, unterminated: true }];
    },
  };
}
