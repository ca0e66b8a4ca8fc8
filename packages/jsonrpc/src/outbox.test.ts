import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createOutbox } from "./outbox.js";

/** A pipe whose reader takes nothing until `release()`. */
function stuckPipe(highWaterMark = 16) {
  const written: string[] = [];
  let release: (() => void) | undefined;
  const stream = new Writable({
    highWaterMark,
    write(chunk: Buffer, _encoding, callback) {
      written.push(chunk.toString());
      release = callback;
    },
  });
  return {
    stream,
    written,
    release() {
      // The reader takes everything as fast as it comes from now on.
      const next = release;
      release = undefined;
      stream._write = (chunk: Buffer, _encoding, callback) => {
        written.push(chunk.toString());
        callback();
      };
      next?.();
    },
  };
}

/** The end of the current turn of the event loop, when a coalescing outbox writes. */
const endOfTurn = (): Promise<void> => new Promise((resolve) => queueMicrotask(resolve));

describe("createOutbox", () => {
  it("queues whole lines while the pipe is full, and each can be withdrawn until written", () => {
    const pipe = stuckPipe();
    let blocked = 0;
    const outbox = createOutbox({
      stream: pipe.stream,
      maxQueuedBytes: 64,
      onBlocked: () => blocked++,
    });
    outbox.forward(Buffer.from(`${"a".repeat(20)}\n`));
    expect(outbox.blocked).toBe(true);
    const second = outbox.forward(Buffer.from("second\n"));
    const third = outbox.forward(Buffer.from("third\n"));
    expect(outbox.queuedBytes).toBe(13);
    expect(second.withdraw()).toBe(true);
    expect(second.state).toBe("withdrawn");
    expect(outbox.hasRoom(40)).toBe(true);
    expect(outbox.hasRoom(60)).toBe(false);
    pipe.release();
    expect(pipe.written.join("")).toBe(`${"a".repeat(20)}\nthird\n`);
    expect(third.state).toBe("written");
    expect(third.withdraw()).toBe(false);
    expect(blocked).toBe(1);
  });

  it("keeps lines of its own out of a long line passing through in pieces", () => {
    const written: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        written.push(chunk.toString());
        callback();
      },
    });
    const outbox = createOutbox({ stream, maxQueuedBytes: 1_024 });
    outbox.forwardPiece(Buffer.from("{long"), false);
    outbox.insert("own\n");
    outbox.forwardPiece(Buffer.from("er}\n"), true);
    expect(written.join("")).toBe("{longer}\nown\n");
  });

  it("writes the lines of one turn of the event loop with one write, in order", async () => {
    const written: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        written.push(chunk.toString());
        callback();
      },
    });
    const outbox = createOutbox({ stream, maxQueuedBytes: 1_024, coalesce: true });
    const first = outbox.forward(Buffer.from("one\n"));
    const second = outbox.insert("two\n");
    outbox.forward(Buffer.from("three\n"));
    outbox.forward(Buffer.from("four\n"));
    // Until the turn ends, a line can still be taken back.
    expect(written).toEqual([]);
    expect(second.withdraw()).toBe(true);
    await endOfTurn();
    expect(written).toEqual(["one\nthree\nfour\n"]);
    expect(first.state).toBe("written");
    expect(first.withdraw()).toBe(false);
    outbox.forward(Buffer.from("five\n"));
    outbox.end();
    await endOfTurn();
    expect(written).toEqual(["one\nthree\nfour\n", "five\n"]);
    expect(stream.writableEnded).toBe(true);
  });

  it("writes a turn's lines no further than a line-by-line writer would into a full pipe", async () => {
    const pipe = stuckPipe(16);
    const outbox = createOutbox({ stream: pipe.stream, maxQueuedBytes: 1_024, coalesce: true });
    const lines = ["aaaaaaaaaa\n", "bbbbbbbbbb\n", "cc\n", "dd\n"];
    const tickets = lines.map((line) => outbox.forward(Buffer.from(line)));
    await endOfTurn();
    // The first two reach the high-water mark: written; the rest wait, and can be withdrawn.
    expect(tickets.map((ticket) => ticket.state)).toEqual([
      "written",
      "written",
      "queued",
      "queued",
    ]);
    expect(outbox.blocked).toBe(true);
    expect(outbox.queuedBytes).toBe(6);
    expect(tickets[2]!.withdraw()).toBe(true);
    pipe.release();
    await endOfTurn();
    expect(pipe.written.join("")).toBe("aaaaaaaaaa\nbbbbbbbbbb\ndd\n");
  });
});
