import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createLineReader, LINE_HEAD_BYTES, type LinePiece } from "./line-reader.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

type Out = { kind: "line"; raw: Buffer; terminated: boolean } | ({ kind: "piece" } & LinePiece);

function read(chunks: Buffer[], maxLineBytes = 1_024, copyPartial = false): Out[] {
  const reader = createLineReader<Out>(
    {
      line: (raw, terminated) => ({ kind: "line", raw, terminated }),
      piece: (piece) => ({ kind: "piece", ...piece }),
    },
    { maxLineBytes, copyPartial },
  );
  return [...chunks.flatMap((chunk) => reader.push(chunk)), ...reader.end()];
}

/** Cut `bytes` at the given offsets. */
function chunked(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let last = 0;
  for (const point of [...points, bytes.length]) {
    if (point > last) chunks.push(bytes.subarray(last, point));
    last = point;
  }
  return chunks;
}

/** Whole lines as text, and each oversize line as its total size. */
function lines(out: Out[]): (string | number)[] {
  return out.flatMap((item): (string | number)[] => {
    if (item.kind === "line") return [item.raw.toString("latin1")];
    return item.final ? [item.offset + item.raw.length] : [];
  });
}

const line = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.string({ maxLength: 80 }).map((text) => `${text.replace(/\n/g, " ")}\n`),
  },
  { weight: 1, arbitrary: fc.string().map((text) => `${text.replace(/\n/g, " ")}\r\n`) },
  { weight: 1, arbitrary: fc.nat({ max: 6_000 }).map((length) => `${"x".repeat(length)}\n`) },
);

describe("createLineReader", () => {
  it("property: any chunking gives the same lines and the same bytes, copied or not", () => {
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 20 }),
        fc.option(fc.string({ maxLength: 20 }).map((text) => text.replace(/\n/g, " "))),
        fc.array(fc.nat(), { maxLength: 30 }),
        fc.boolean(),
        (body, last, cuts, copyPartial) => {
          const bytes = Buffer.from(body.join("") + (last ?? ""));
          const whole = read([bytes], 1_024, copyPartial);
          const pieces = read(chunked(bytes, cuts), 1_024, copyPartial);
          expect(Buffer.concat(pieces.map((item) => item.raw)).equals(bytes)).toBe(true);
          expect(lines(pieces)).toEqual(lines(whole));
          // Only the last line may lack its `\n`; every piece of a line follows the one before.
          for (const item of pieces.slice(0, -1)) {
            if (item.kind === "line") expect(item.terminated).toBe(true);
          }
          let offset = 0;
          for (const item of pieces) {
            if (item.kind !== "piece") continue;
            expect(item.first).toBe(item.offset === 0);
            expect(item.offset).toBe(item.first ? 0 : offset);
            offset = item.final ? 0 : item.offset + item.raw.length;
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("hands lines within the cap whole, with their terminator, and `\\r` left in", () => {
    expect(read([Buffer.from("a\r\nb"), Buffer.from("c\n\nd")])).toEqual([
      { kind: "line", raw: Buffer.from("a\r\n"), terminated: true },
      { kind: "line", raw: Buffer.from("bc\n"), terminated: true },
      { kind: "line", raw: Buffer.from("\n"), terminated: true },
      { kind: "line", raw: Buffer.from("d"), terminated: false },
    ]);
  });

  it("streams a line above the cap in pieces, the first with at least the head", () => {
    const long = Buffer.from(`${"y".repeat(9_000)}\n`);
    const tiny = Array.from({ length: 9_001 / 1_000 + 1 }, (_, index) =>
      long.subarray(index * 1_000, (index + 1) * 1_000),
    ).filter((chunk) => chunk.length > 0);
    // The cap is passed with 6,000 bytes in: the first piece takes 4 KiB of them at least.
    const out = read(tiny, 5_000);
    expect(out.every((item) => item.kind === "piece")).toBe(true);
    expect(out[0]!.raw.length).toBeGreaterThanOrEqual(LINE_HEAD_BYTES);
    expect(out.filter((item) => item.kind === "piece" && item.final)).toHaveLength(1);
    const last = out.at(-1)!;
    expect(last).toMatchObject({ kind: "piece", final: true, terminated: true });
    expect(Buffer.concat(out.map((item) => item.raw)).equals(long)).toBe(true);
  });

  it("ends an oversize line cut short by the end of input with an empty final piece", () => {
    const out = read([Buffer.from("z".repeat(50))], 10);
    expect(out.at(-1)).toMatchObject({ kind: "piece", final: true, terminated: false, offset: 50 });
    expect(out.at(-1)!.raw.length).toBe(0);
  });

  it("copies an unfinished line when asked, so the chunk is not held", () => {
    const chunk = Buffer.from("abc");
    const reader = createLineReader(
      { line: (raw) => raw, piece: (piece) => piece.raw },
      { maxLineBytes: 100, copyPartial: true },
    );
    reader.push(chunk);
    chunk.fill(0x21);
    expect(reader.push(Buffer.from("\n"))[0]!.toString()).toBe("abc\n");
  });

  it("rejects a cap that is not a byte count", () => {
    const handler = { line: () => 0, piece: () => 0 };
    expect(() => createLineReader(handler, { maxLineBytes: -1 })).toThrow(RangeError);
    expect(() => createLineReader(handler, { maxLineBytes: 1.5 })).toThrow(RangeError);
  });
});
