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
});
