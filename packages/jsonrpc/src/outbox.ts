// Writing whole lines to one side without ever stopping the reading of the other: while the
// side's pipe is full, lines wait in a queue measured in bytes, where each can still be taken
// back (withdrawn) until it is handed to the pipe. Lines of one's own never land inside a long
// line that is passing through in pieces. With `coalesce`, the lines handed over in one turn of
// the event loop go in one write: a proxy forwards every message of a chunk of input, and one
// write(2) per message was most of its time under load.

import type { Writable } from "node:stream";

/** A line handed to the outbox. */
export interface Ticket {
  /**
   * `queued`: waiting for the end of this turn of the event loop or for room in the pipe;
   * `written`: handed to it; `withdrawn`: taken back.
   */
  readonly state: "queued" | "written" | "withdrawn";
  /** Take the line back if it has not been written yet; true when it was. */
  withdraw(): boolean;
}

/** Options for {@link createOutbox}. */
export interface OutboxOptions {
  stream: Writable;
  /** The queue's bound, bytes: {@link Outbox.hasRoom} says whether a line still fits. */
  maxQueuedBytes: number;
  /** The pipe is full (the other end is not reading). */
  onBlocked?: () => void;
  /** The queue went empty after a blocked spell. */
  onDrained?: () => void;
  /**
   * Write the lines handed over in one turn of the event loop together, at its end (each can
   * be withdrawn until then), with as few writes as the stream's buffer allows: for a proxy
   * that forwards every message of a chunk of input. Default false: each line is written
   * when it is handed over.
   */
  coalesce?: boolean;
}

/** The writing side of one peer. */
export interface Outbox {
  /** A whole line passing through (it ends with `\n`), in order. */
  forward(bytes: Uint8Array): Ticket;
  /** A piece of a long line passing through; `final` when it ends the line. */
  forwardPiece(bytes: Uint8Array, final: boolean): void;
  /** A line of one's own: after the long line passing through, if one is. */
  insert(line: string | Uint8Array): Ticket;
  /** Whether `bytes` more fit in the queue (an empty queue always takes one line). */
  hasRoom(bytes: number): boolean;
  /** Bytes waiting in the queue. */
  readonly queuedBytes: number;
  /** The pipe is full: lines are queued. */
  readonly blocked: boolean;
  /** In the middle of a long line passing through. */
  readonly midLine: boolean;
  /** End the stream once everything queued is written. */
  end(): void;
  /** Drop everything queued (the other side is gone). */
  clear(): void;
}

interface Entry {
  bytes: Uint8Array;
  ticket: TicketImpl | undefined;
}

class TicketImpl implements Ticket {
  state: Ticket["state"] = "queued";
  constructor(private readonly take: (ticket: TicketImpl) => boolean) {}
  withdraw(): boolean {
    if (this.state !== "queued") return false;
    return this.take(this);
  }
}

const WRITTEN: Ticket = { state: "written", withdraw: () => false };

/** Create an {@link Outbox} over a stream. */
export function createOutbox(options: OutboxOptions): Outbox {
  const { stream } = options;
  const queue: Entry[] = [];
  // Lines of one's own that came while a long line was passing through.
  const held: Entry[] = [];
  let queuedBytes = 0;
  let blocked = false;
  let midLine = false;
  let ending = false;

  const usable = (): boolean => !stream.destroyed && !stream.writableEnded;
  const coalesce = options.coalesce === true;
  // Lines handed over but not written yet: with `coalesce`, those of this turn of the event
  // loop, written together at its end (as few writes as the pipe's buffer allows); until then
  // each can still be withdrawn. Without it, the one line being written.
  let batch: Entry[] = [];
  let batchBytes = 0;

  const flush = (): void => {
    while (!blocked && queue.length > 0) {
      const entry = queue.shift()!;
      queuedBytes -= entry.bytes.length;
      batch.push(entry);
      batchBytes += entry.bytes.length;
    }
    writeBatch();
    if (!blocked && queue.length === 0 && ending && usable()) stream.end();
  };

  /**
   * Write the turn's lines: as many at a time as fit below the stream's high-water mark (and
   * the one that reaches it), as line-by-line writes would have; once the pipe is full, the
   * rest go back to the head of the queue, where they can still be withdrawn.
   */
  function writeBatch(): void {
    const lines = batch;
    batch = [];
    batchBytes = 0;
    let index = 0;
    while (index < lines.length && !blocked) {
      if (!usable()) {
        for (; index < lines.length; index += 1) markWritten(lines[index]!);
        return;
      }
      const room = stream.writableHighWaterMark - stream.writableLength;
      let end = index;
      let bytes = 0;
      do {
        bytes += lines[end]!.bytes.length;
        markWritten(lines[end]!);
        end += 1;
      } while (end < lines.length && bytes < room);
      const written =
        end - index === 1
          ? stream.write(lines[index]!.bytes)
          : stream.write(
              Buffer.concat(
                lines.slice(index, end).map((line) => line.bytes),
                bytes,
              ),
            );
      index = end;
      if (!written) block();
    }
    if (index === lines.length) return;
    const rest = lines.slice(index);
    for (const entry of rest) queuedBytes += entry.bytes.length;
    queue.unshift(...rest);
  }

  function markWritten(entry: Entry): void {
    if (entry.ticket) entry.ticket.state = "written";
  }

  function block(): void {
    blocked = true;
    options.onBlocked?.();
    stream.once("drain", () => {
      blocked = false;
      flush();
      if (!blocked) options.onDrained?.();
    });
  }

  /** Hand a line to the pipe: now, or at the end of this turn of the event loop. */
  function write(entry: Entry): void {
    batch.push(entry);
    batchBytes += entry.bytes.length;
    if (!coalesce) writeBatch();
    else if (batch.length === 1) queueMicrotask(writeBatch);
  }

  const enqueue = (bytes: Uint8Array, withTicket: boolean, into: Entry[] = queue): Ticket => {
    const ticket = withTicket
      ? new TicketImpl((taken) => {
          for (const list of [batch, queue, held]) {
            const index = list.findIndex((entry) => entry.ticket === taken);
            if (index === -1) continue;
            list.splice(index, 1);
            if (list === queue) queuedBytes -= bytes.length;
            else if (list === batch) batchBytes -= bytes.length;
            taken.state = "withdrawn";
            return true;
          }
          return false;
        })
      : undefined;
    const entry: Entry = { bytes, ticket };
    if (into === queue && !blocked && queue.length === 0) {
      write(entry);
      return ticket ?? WRITTEN;
    }
    into.push(entry);
    if (into === queue) queuedBytes += bytes.length;
    return ticket ?? WRITTEN;
  };

  const releaseHeld = (): void => {
    for (const entry of held.splice(0)) {
      if (entry.ticket?.state === "withdrawn") continue;
      if (!blocked && queue.length === 0) write(entry);
      else {
        queue.push(entry);
        queuedBytes += entry.bytes.length;
      }
    }
  };

  const asBytes = (line: string | Uint8Array): Uint8Array =>
    typeof line === "string" ? Buffer.from(line, "utf8") : line;

  return {
    forward(bytes) {
      const ticket = enqueue(bytes, true);
      return ticket;
    },
    forwardPiece(bytes, final) {
      if (bytes.length > 0) enqueue(bytes, false);
      midLine = !final;
      if (final) releaseHeld();
    },
    insert(line) {
      const bytes = asBytes(line);
      return midLine ? enqueue(bytes, true, held) : enqueue(bytes, true);
    },
    hasRoom(bytes) {
      // This turn's lines count: they are not in the pipe yet, and may yet wait in the queue.
      if (queue.length === 0 && batch.length === 0) return true;
      return queuedBytes + batchBytes + bytes <= options.maxQueuedBytes;
    },
    get queuedBytes() {
      return queuedBytes;
    },
    get blocked() {
      return blocked;
    },
    get midLine() {
      return midLine;
    },
    end() {
      ending = true;
      if (midLine) {
        // A long line the stream ended in the middle of: what is held comes after it anyway.
        midLine = false;
        releaseHeld();
      }
      flush();
    },
    clear() {
      for (const entry of [...batch, ...queue, ...held]) {
        if (entry.ticket) entry.ticket.state = "withdrawn";
      }
      batch = [];
      batchBytes = 0;
      queue.length = 0;
      held.length = 0;
      queuedBytes = 0;
    },
  };
}
