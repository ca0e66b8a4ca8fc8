// Writing whole lines to one side without ever stopping the reading of the other: while the
// side's pipe is full, lines wait in a queue measured in bytes, where each can still be taken
// back (withdrawn) until it is handed to the pipe. Lines of one's own never land inside a long
// line that is passing through in pieces.

import type { Writable } from "node:stream";

/** A line handed to the outbox. */
export interface Ticket {
  /** `queued`: waiting for room in the pipe; `written`: handed to it; `withdrawn`: taken back. */
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

  const flush = (): void => {
    while (!blocked && queue.length > 0) {
      const entry = queue.shift()!;
      queuedBytes -= entry.bytes.length;
      write(entry);
    }
    if (!blocked && queue.length === 0 && ending && usable()) stream.end();
  };

  function write(entry: Entry): void {
    if (entry.ticket) entry.ticket.state = "written";
    if (!usable()) return;
    if (!stream.write(entry.bytes)) {
      blocked = true;
      options.onBlocked?.();
      stream.once("drain", () => {
        blocked = false;
        flush();
        if (!blocked) options.onDrained?.();
      });
    }
  }

  const enqueue = (bytes: Uint8Array, withTicket: boolean, into: Entry[] = queue): Ticket => {
    const ticket = withTicket
      ? new TicketImpl((taken) => {
          for (const list of [queue, held]) {
            const index = list.findIndex((entry) => entry.ticket === taken);
            if (index === -1) continue;
            list.splice(index, 1);
            if (list === queue) queuedBytes -= bytes.length;
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
      return queue.length === 0 || queuedBytes + bytes <= options.maxQueuedBytes;
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
      for (const entry of [...queue, ...held]) if (entry.ticket) entry.ticket.state = "withdrawn";
      queue.length = 0;
      held.length = 0;
      queuedBytes = 0;
    },
  };
}
