import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { realCaptures } from "@cursor-wrap/fixtures";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createLineFramer, createLineFramerStream } from "./line-framer.js";
import { parseLine } from "./parse-line.js";
import type { AgentEvent, Instant } from "./types.js";

const AT: Instant = { mono: 0, epoch: 0 };

function frameAll(chunks: Buffer[], parseCap?: number): AgentEvent[] {
  const framer = createLineFramer(parseCap === undefined ? {} : { parseCap });
  return [...chunks.flatMap((chunk) => framer.push(chunk, AT)), ...framer.end(AT)];
}

/** What a consumer can observe of an event, without the receive time. */
function shape(event: AgentEvent) {
  return {
    kind: event.kind,
    line: event.line.toString("latin1"),
    eol: event.eol,
    type: event.kind === "json" ? event.type : undefined,
    reason: event.kind === "text" ? event.reason : undefined,
    text: event.kind === "oversize" ? undefined : event.text,
    data: event.kind === "json" ? event.data : undefined,
  };
}

function splitAt(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let previous = 0;
  for (const point of [...points, bytes.length]) {
    chunks.push(bytes.subarray(previous, point));
    previous = point;
  }
  return chunks;
}

const ADVERSARIAL: Buffer[] = [
  Buffer.from('{"type":"system","subtype":"init","session_id":"s"}\n'),
  Buffer.from('{"type":"assistant","message":{"content":[{"type":"text","text":"crlf"}]}}\r\n'),
  Buffer.from("T: Named models unavailable\n"),
  Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]), // `{"\xff\xfe"}` is not UTF-8
  Buffer.from("[1,2,3]\n"),
  Buffer.from('"just a string"\n'),
  Buffer.from('{"type":"brand_new_event","x":1}\n'),
  Buffer.from("{not json\n"),
  Buffer.from("\n"),
  Buffer.from("\r\n"),
  Buffer.from('{"call_id":"a\\nb","type":"tool_call"}\n'),
  Buffer.from("é ü 日本\n"),
];

describe("createLineFramer", () => {
  it("keeps every byte: the raw bytes of all events concatenate to the input", () => {
    for (const capture of realCaptures()) {
      const events = frameAll([capture.bytes]);
      expect(Buffer.concat(events.map((event) => event.raw)).equals(capture.bytes)).toBe(true);
      expect(events.every((event) => event.kind === "json")).toBe(true);
    }
  });

  it("gives the same lines and events for any split of the same bytes (property)", () => {
    const captureLines = realCaptures().flatMap((capture) =>
      capture.bytes
        .toString("utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => Buffer.from(`${line}\n`)),
    );
    const line = fc.oneof(
      fc.constantFrom(...ADVERSARIAL, ...captureLines),
      fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes)),
    );
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.constantFrom(undefined, 8, 64),
        (lines, cuts, parseCap) => {
          const bytes = Buffer.concat(lines);
          const whole = frameAll([bytes], parseCap);
          const split = frameAll(splitAt(bytes, cuts), parseCap);
          // Oversize lines come out in pieces whose boundaries follow the chunks; everything
          // else must be identical event for event.
          const merge = (events: AgentEvent[]) => {
            const merged: ReturnType<typeof shape>[] = [];
            for (const event of events) {
              if (event.kind === "oversize" && !event.first) {
                const last = merged.at(-1)!;
                last.line += event.line.toString("latin1");
                last.eol = event.eol;
              } else merged.push(shape(event));
            }
            return merged;
          };
          expect(merge(split)).toEqual(merge(whole));
          expect(Buffer.concat(split.map((event) => event.raw)).equals(bytes)).toBe(true);
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 300) },
    );
  });

  it("decodes a line as parseLine does, whether it lies in one chunk or began in an earlier one", () => {
    const lines = [
      '{"type":"assistant","text":"plain"}\n',
      '{"type":"assistant","text":"café … ✓"}\r\n',
      '{"type":"thinking","text":"after a non-ASCII line"}\n',
      "T: not json é\n",
      '{"type":"user","text":"last, unterminated"}',
    ];
    const bytes = Buffer.from(lines.join(""));
    for (const cut of [0, 5, 40, 41, 70, bytes.length - 3]) {
      const events = frameAll([bytes.subarray(0, cut), bytes.subarray(cut)]);
      expect(events.map((event) => shape(event))).toEqual(
        lines.map((line) => shape(parseLine(Buffer.from(line), AT))),
      );
    }
  });

  it("splits on \\n only and strips one trailing \\r", () => {
    const events = frameAll([Buffer.from("a\rb\r\n\r\r\nc\n")]);
    expect(events.map((event) => [event.line.toString(), event.eol])).toEqual([
      ["a\rb", "\r\n"],
      ["\r", "\r\n"],
      ["c", "\n"],
    ]);
  });

  it("joins a CRLF split between chunks", () => {
    const events = frameAll([Buffer.from('{"type":"user"}\r'), Buffer.from("\n")]);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: "json", type: "user", eol: "\r\n" });
  });

  it("delivers a last line without a newline at the end of input", () => {
    const framer = createLineFramer();
    expect(framer.push(Buffer.from('{"type":"result"}\n{"type":"assis'), AT)).toHaveLength(1);
    expect(framer.push(Buffer.from('tant"}'), AT)).toHaveLength(0);
    const [last] = framer.end(AT);
    expect(last).toMatchObject({ kind: "json", type: "assistant", eol: "" });
    expect(last?.raw.toString()).toBe('{"type":"assistant"}');
    expect(framer.end(AT)).toEqual([]);
  });

  it("stamps every event of a chunk with the chunk's receive time", () => {
    const framer = createLineFramer();
    const at: Instant = { mono: 12.5, epoch: 1_770_000_000_000 };
    const events = framer.push(Buffer.from("a\nb\n"), at);
    expect(events.map((event) => event.recvAt)).toEqual([at, at]);
  });

  it("streams a line above the parse cap through in pieces, unparsed", () => {
    const framer = createLineFramer({ parseCap: 16 });
    const pieces = [
      ...framer.push(Buffer.from('{"type":"x","pad":"'), AT),
      ...framer.push(Buffer.from('0123456789"}\n{"type":"ok"}\n'), AT),
    ];
    expect(pieces.map((event) => [event.kind, event.raw.toString()])).toEqual([
      ["oversize", '{"type":"x","pad":"'],
      ["oversize", '0123456789"}\n'],
      ["json", '{"type":"ok"}\n'],
    ]);
    expect(pieces[0]).toMatchObject({ first: true, final: false, offset: 0, totalBytes: 19 });
    expect(pieces[1]).toMatchObject({
      first: false,
      final: true,
      offset: 19,
      totalBytes: 31,
      eol: "\n",
    });
  });

  it("gives an oversize line the same first 4 KiB however it was chunked", () => {
    const line = Buffer.from(`{"type":"tool_call","pad":"${"y".repeat(10_000)}"}\n`);
    for (const size of [3, 100, 5000, line.length]) {
      const framer = createLineFramer({ parseCap: 4100 });
      const events: AgentEvent[] = [];
      for (let at = 0; at < line.length; at += size) {
        events.push(...framer.push(line.subarray(at, at + size), AT));
      }
      const [first] = events;
      expect(first).toMatchObject({ kind: "oversize", first: true });
      expect(first!.raw.length).toBeGreaterThanOrEqual(4096);
      expect(line.subarray(0, 4096).equals(first!.raw.subarray(0, 4096))).toBe(true);
      expect(Buffer.concat(events.map((event) => event.raw)).equals(line)).toBe(true);
    }
  });

  it("ends an oversize line that has no newline at the end of input", () => {
    const framer = createLineFramer({ parseCap: 4 });
    expect(framer.push(Buffer.from("abcdefgh"), AT)).toMatchObject([
      { kind: "oversize", first: true },
    ]);
    expect(framer.end(AT)).toMatchObject([
      { kind: "oversize", final: true, totalBytes: 8, eol: "" },
    ]);
  });

  it("forwards a 64 MiB line exactly while holding at most the parse cap", () => {
    const chunkSize = 64 * 1024;
    const size = 64 * 1024 * 1024;
    const framer = createLineFramer();
    const inputHash = createHash("sha256");
    const outputHash = createHash("sha256");
    let pieces = 0;
    let largestPiece = 0;
    let finalPiece: AgentEvent | undefined;
    const chunk = Buffer.alloc(chunkSize, "x");
    const send = (bytes: Buffer) => {
      inputHash.update(bytes);
      for (const event of framer.push(bytes, AT)) {
        expect(event.kind).toBe("oversize");
        outputHash.update(event.raw);
        pieces += 1;
        largestPiece = Math.max(largestPiece, event.raw.length);
        if (event.kind === "oversize" && event.final) finalPiece = event;
      }
    };
    send(Buffer.from('{"type":"tool_call","huge":"'));
    for (let sent = 0; sent < size; sent += chunkSize) send(chunk);
    send(Buffer.from('"}\n'));
    expect(framer.end(AT)).toEqual([]);
    expect(outputHash.digest("hex")).toBe(inputHash.digest("hex"));
    expect(finalPiece).toMatchObject({ final: true, totalBytes: size + 30 });
    // Pieces are the chunks as they came (never the pending bytes joined into one buffer).
    expect(largestPiece).toBeLessThanOrEqual(chunkSize + 4096);
    expect(pieces).toBeGreaterThan(size / chunkSize / 2);
  });

  it("rejects a parse cap that is not a byte count", () => {
    expect(() => createLineFramer({ parseCap: -1 })).toThrow(RangeError);
    expect(() => createLineFramer({ parseCap: 1.5 })).toThrow(RangeError);
  });
});

describe("createLineFramerStream", () => {
  it("turns a byte stream into events", async () => {
    const source = Readable.from([
      Buffer.from('{"type":"user"}\nT: hi\n{"type":"res'),
      Buffer.from('ult"}'),
    ]);
    const events: AgentEvent[] = [];
    for await (const event of source.pipe(createLineFramerStream())) events.push(event);
    expect(events.map((event) => (event.kind === "json" ? event.type : event.kind))).toEqual([
      "user",
      "text",
      "result",
    ]);
  });
});
