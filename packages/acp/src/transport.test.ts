import { PassThrough } from "node:stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createMessageReader, createMessageWriter, type Incoming, parseLine } from "./transport.js";

const messages = fc.array(
  fc.oneof(
    fc.record({
      jsonrpc: fc.constant("2.0"),
      id: fc.oneof(fc.integer(), fc.string()),
      method: fc.string(),
      params: fc.object(),
    }),
    fc.record({ jsonrpc: fc.constant("2.0"), method: fc.string(), params: fc.object() }),
    fc.record({
      jsonrpc: fc.constant("2.0"),
      id: fc.oneof(fc.integer(), fc.string()),
      result: fc.jsonValue(),
    }),
  ),
  { maxLength: 20 },
);

/** Cut bytes into pieces at the given points. */
function cut(bytes: Buffer, points: number[]): Buffer[] {
  const sorted = [...new Set(points.map((point) => point % (bytes.length + 1)))].sort(
    (a, b) => a - b,
  );
  const pieces: Buffer[] = [];
  let start = 0;
  for (const point of sorted) {
    pieces.push(bytes.subarray(start, point));
    start = point;
  }
  pieces.push(bytes.subarray(start));
  return pieces;
}

describe("createMessageReader", () => {
  it("property: any chunking gives the same messages, and their bytes are the input", () => {
    fc.assert(
      fc.property(
        messages,
        fc.array(fc.nat()),
        fc.constantFrom("\n", "\r\n"),
        (values, points, ending) => {
          const input = Buffer.from(
            values.map((value) => `${JSON.stringify(value)}${ending}`).join(""),
          );
          const reader = createMessageReader({ maxLineBytes: 1 << 20 });
          const out: Incoming[] = [];
          for (const piece of cut(input, points)) out.push(...reader.push(piece));
          out.push(...reader.end());
          expect(Buffer.concat(out.map((item) => item.raw)).equals(input)).toBe(true);
          expect(out.map((item) => item.kind)).toEqual(
            values.map((value) =>
              "method" in value ? ("id" in value ? "request" : "notification") : "response",
            ),
          );
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 300) },
    );
  });

  it('keeps ids exact: 1 and "1" are different requests', () => {
    const reader = createMessageReader({ maxLineBytes: 1024 });
    const [number, text] = reader.push(
      Buffer.from(
        '{"jsonrpc":"2.0","id":1,"method":"a"}\n{"jsonrpc":"2.0","id":"1","method":"a"}\n',
      ),
    );
    expect(number).toMatchObject({ kind: "request", id: { value: 1, key: 1 } });
    expect(text).toMatchObject({ kind: "request", id: { value: "1", key: "s:1" } });
  });

  it("keeps the digits of an id above 2^53, and writes them back exactly", () => {
    const reader = createMessageReader({ maxLineBytes: 1024 });
    const [request] = reader.push(
      Buffer.from('{"jsonrpc":"2.0","id":9007199254740993,"method":"session/prompt"}\n'),
    );
    if (request?.kind !== "request") throw new Error("expected a request");
    expect(request.id).toMatchObject({ text: "9007199254740993", key: "n:9007199254740993" });
    const stream = new PassThrough();
    createMessageWriter(stream).send({ id: request.id, result: { stopReason: "cancelled" } });
    expect(stream.read().toString()).toBe(
      '{"jsonrpc":"2.0","id":9007199254740993,"result":{"stopReason":"cancelled"}}\n',
    );
  });

  it("with the guard, drops a message that follows a line cut short, until the rest of it", () => {
    const reader = createMessageReader({ maxLineBytes: 1024, guard: true });
    const items = reader.push(
      Buffer.from(
        [
          '{"jsonrpc":"2.0","method":"session/update","params":{"text":"a',
          '{"jsonrpc":"2.0","id":7,"method":"fs/write_text_file","params":{}}',
          'b"}}',
          '{"jsonrpc":"2.0","method":"session/update","params":{}}',
          "",
        ].join("\n"),
      ),
    );
    expect(items.map((item) => (item.kind === "invalid" ? item.reason : item.kind))).toEqual([
      "truncated",
      "smuggled",
      "not-json",
      "notification",
    ]);
    const unguarded = createMessageReader({ maxLineBytes: 1024 });
    const [, trusted] = unguarded.push(
      Buffer.from(
        '{"jsonrpc":"2.0","method":"x","params":{"text":"a\n{"jsonrpc":"2.0","method":"y"}\n',
      ),
    );
    expect(trusted).toMatchObject({ kind: "notification", method: "y" });
  });

  it("passes a line above the cap through in pieces, unparsed", () => {
    const reader = createMessageReader({ maxLineBytes: 16 });
    const line = Buffer.from(
      `{"jsonrpc":"2.0","method":"x","params":{"text":"${"a".repeat(100)}"}}\n`,
    );
    const pieces = [...reader.push(line.subarray(0, 50)), ...reader.push(line.subarray(50))];
    expect(pieces.every((piece) => piece.kind === "oversize")).toBe(true);
    expect(Buffer.concat(pieces.map((piece) => piece.raw)).equals(line)).toBe(true);
  });

  it("tells a broken line from a message", () => {
    const reader = createMessageReader({ maxLineBytes: 1024 });
    const [banner, batch, bad] = reader.push(Buffer.from('hello\n[{"jsonrpc":"2.0"}]\n\xff\n'));
    expect(banner).toMatchObject({ kind: "invalid", reason: "not-json", head: "hello" });
    expect(batch).toMatchObject({ kind: "invalid", reason: "batch" });
    expect(bad).toMatchObject({ kind: "invalid" });
  });
});

describe("parseLine", () => {
  it("gives a response its result, or its error", () => {
    const read = (text: string) => parseLine(Buffer.from(text), Buffer.from(`${text}\n`), false);
    expect(read('{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}')).toMatchObject({
      kind: "response",
      result: { stopReason: "end_turn" },
      error: undefined,
    });
    expect(
      read('{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"gone","data":{"a":1}}}'),
    ).toMatchObject({
      kind: "response",
      error: { code: -32603, message: "gone", data: { a: 1 } },
    });
  });
});

describe("createMessageWriter", () => {
  it("writes a line of its own only between lines passing through", () => {
    const stream = new PassThrough();
    let written = "";
    stream.on("data", (chunk: Buffer) => {
      written += chunk.toString();
    });
    const writer = createMessageWriter(stream);
    writer.forward(Buffer.from('{"jsonrpc":"2.0","method":"long","params":{"a":'), false);
    writer.send({ method: "mine", params: {} });
    writer.forward(Buffer.from("1}}\n"), true);
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        expect(written).toBe(
          '{"jsonrpc":"2.0","method":"long","params":{"a":1}}\n{"jsonrpc":"2.0","method":"mine","params":{}}\n',
        );
        resolve();
      }),
    );
  });
});

describe("createMessageWriter, at the end of a stream", () => {
  it("never appends a line of its own to a last line that had no newline", () => {
    const stream = new PassThrough();
    const writer = createMessageWriter(stream);
    writer.forward(Buffer.from('{"jsonrpc":"2.0","method":"last"}'), false);
    writer.send({ method: "mine", params: {} });
    expect(stream.read().toString()).toBe('{"jsonrpc":"2.0","method":"last"}');
  });
});
