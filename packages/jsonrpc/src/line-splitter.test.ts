import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createLineSplitter, type Framed } from "./line-splitter.js";
import { classifyLine as classify } from "./message.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

function split(chunks: Buffer[], maxLineBytes = 1_024): Framed[] {
  const splitter = createLineSplitter({ maxLineBytes });
  return [...chunks.flatMap((chunk) => splitter.push(chunk)), ...splitter.end()];
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

const message = fc.oneof(
  fc.record({
    jsonrpc: fc.constant("2.0"),
    id: fc.oneof(fc.integer(), fc.string()),
    method: fc.string(),
  }),
  fc.record({ jsonrpc: fc.constant("2.0"), id: fc.integer(), result: fc.jsonValue() }),
  fc.record({
    jsonrpc: fc.constant("2.0"),
    method: fc.string(),
    params: fc.dictionary(fc.string(), fc.jsonValue()),
  }),
);
const line = fc.oneof(
  { weight: 6, arbitrary: message.map((value) => `${JSON.stringify(value)}\n`) },
  { weight: 1, arbitrary: fc.string().map((text) => `${text.replace(/\n/g, " ")}\r\n`) },
  {
    weight: 1,
    arbitrary: fc.constant(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, result: "x".repeat(3_000) })}\n`,
    ),
  },
);

describe("createLineSplitter", () => {
  it("property: any chunking of the same bytes gives the same messages, and the same bytes", () => {
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        (lines, cuts) => {
          const bytes = Buffer.from(lines.join(""));
          const whole = split([bytes]);
          const pieces = split(chunked(bytes, cuts));
          // The same bytes come out, in order.
          expect(Buffer.concat(pieces.map((item) => item.raw)).equals(bytes)).toBe(true);
          // The same messages: complete lines classify the same, oversize ones are the same lines.
          const messages = (framed: Framed[]) =>
            framed.filter((item) => item.kind === "line").map((item) => classify(item.line));
          expect(messages(pieces)).toEqual(messages(whole));
          const oversize = (framed: Framed[]) =>
            framed.flatMap((item) => (item.kind === "oversize" && item.final ? [item.bytes] : []));
          expect(oversize(pieces)).toEqual(oversize(whole));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("streams a line above the cap in pieces, keeping its head and tail", () => {
    const long = `{"jsonrpc":"2.0","id":7,"result":"${"y".repeat(5_000)}"}\n`;
    const framed = split([Buffer.from(long.slice(0, 2_000)), Buffer.from(long.slice(2_000))]);
    expect(framed.map((item) => [item.kind, item.kind === "oversize" && item.final])).toEqual([
      ["oversize", false],
      ["oversize", true],
    ]);
    const last = framed.at(-1)!;
    if (last.kind !== "oversize") throw new Error("unreachable");
    expect(last.head.toString().startsWith('{"jsonrpc":"2.0","id":7')).toBe(true);
    expect(last.tail!.toString().endsWith('"}\n')).toBe(true);
    expect(last.bytes).toBe(long.length);
  });

  it("gives a last line without a terminator at the end, marked", () => {
    expect(split([Buffer.from('{"a":1}\n{"b"')])).toMatchObject([
      { kind: "line", raw: Buffer.from('{"a":1}\n') },
      { kind: "line", raw: Buffer.from('{"b"'), unterminated: true },
    ]);
  });
});
