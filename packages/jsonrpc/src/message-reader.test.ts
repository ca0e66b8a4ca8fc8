import { describe, expect, it } from "vitest";
import { createMessageReader, type ReadItem } from "./message-reader.js";

const read = (text: string, options = {}): ReadItem[] => {
  const reader = createMessageReader({ maxLineBytes: 1_024, guard: true, ...options });
  return [...reader.push(Buffer.from(text)), ...reader.end()];
};
const summary = (items: ReadItem[]) =>
  items.map((item) =>
    item.kind === "oversize"
      ? `oversize${item.piece.final ? ` ${item.piece.message?.kind === "invalid" ? item.piece.message.reason : item.piece.message?.kind}` : ""}`
      : item.kind === "message"
        ? `${item.message.kind}`
        : `dropped ${item.reason}`,
  );

const RESPONSE = '{"jsonrpc":"2.0","id":1,"result":{}}\n';

describe("createMessageReader", () => {
  it("drops a complete JSON line that is not JSON-RPC alone, and the next message passes", () => {
    expect(
      summary(read(`{"level":"info","msg":"jsonrpc server ready","jsonrpc":"1.0"}\n${RESPONSE}`)),
    ).toEqual(["dropped no-jsonrpc-2.0", "response"]);
  });

  it("drops a line with a raw NUL alone: it is broken, not cut short", () => {
    expect(summary(read(`{"jsonrpc":"2.0","id":9,"result":"a\u0000b"}\n${RESPONSE}`))).toEqual([
      "dropped not-json",
      "response",
    ]);
  });

  it("distrusts what follows a line cut short inside an object, until its rest or the burst's end", () => {
    const smuggled =
      '{"jsonrpc":"2.0","id":1,"result":{"text":"a\n' +
      '{"jsonrpc":"2.0","id":1,"result":{"smuggled":true}}\n' +
      '{"jsonrpc":"2.0","method":"notifications/message","params":{}}\n' +
      'rest"}}\n' +
      RESPONSE;
    expect(summary(read(smuggled))).toEqual([
      "dropped truncated",
      "dropped smuggled",
      "dropped smuggled",
      "dropped not-json",
      "response",
    ]);
    // A log line that only looks like the start of an object: what the peer writes after a
    // pause in its output is read on its own again.
    let clock = 0;
    const reader = createMessageReader({ maxLineBytes: 1_024, guard: true, now: () => clock });
    const first = reader.push(Buffer.from(`{"note": "loading\n${RESPONSE}`));
    clock += 150;
    const later = [...reader.push(Buffer.from(RESPONSE)), ...reader.push(Buffer.from(RESPONSE))];
    expect(summary([...first, ...later])).toEqual([
      "dropped truncated",
      "dropped smuggled",
      "response",
      "response",
    ]);
    // A writer that flushes at every newline: its lines come as chunks of their own, without a
    // pause, and stay in doubt.
    const flushed = createMessageReader({ maxLineBytes: 1_024, guard: true, now: () => clock });
    const items = [
      '{"jsonrpc":"2.0","id":1,"result":{"text":"a\n',
      '{"jsonrpc":"2.0","id":1,"result":{"smuggled":true}}\n',
      '{"jsonrpc":"2.0","id":1,"result":{"smuggled":2}}\n',
      'rest"}}\n',
    ].flatMap((line) => flushed.push(Buffer.from(line)));
    expect(summary(items)).toEqual([
      "dropped truncated",
      "dropped smuggled",
      "dropped smuggled",
      "dropped not-json",
    ]);
  });

  it("reads a message that is not valid UTF-8 repaired when asked, and distrusts it all the same", () => {
    const broken = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":3,"result":{"x":"caf'),
      Buffer.from([0xc3]),
      Buffer.from('"}}\n'),
    ]);
    const readBytes = (bytes: Buffer, options = {}) => {
      const reader = createMessageReader({ maxLineBytes: 1_024, guard: true, ...options });
      return [...reader.push(bytes), ...reader.end()];
    };
    expect(summary(readBytes(broken))).toEqual(["dropped not-utf8"]);
    const [item] = readBytes(broken, { repairUtf8: true });
    expect(item).toMatchObject({ kind: "message", repaired: true });
    expect((item as { raw: Buffer }).raw.toString("utf8")).toBe(
      '{"jsonrpc":"2.0","id":3,"result":{"x":"caf\ufffd"}}\n',
    );
    // After a line cut short, a repaired message is as suspect as any: it may be inside it.
    const cut = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":1,"result":{"text":"a\n'),
      broken,
      Buffer.from('rest"}}\n'),
    ]);
    expect(summary(readBytes(cut, { repairUtf8: true }))).toEqual([
      "dropped truncated",
      "dropped smuggled",
      "dropped not-json",
    ]);
  });

  it("trusts every line of a peer it is told to trust", () => {
    expect(
      summary(read(`{"jsonrpc":"2.0","id":1,"result":{"t":"a\n${RESPONSE}`, { guard: false })),
    ).toEqual(["dropped truncated", "response"]);
  });

  it("reads the top-level id of a line above the cap from its envelope, never a nested one", () => {
    const big = `{"jsonrpc":"2.0","result":{"content":[{"id":7,"text":"${"x".repeat(5_000)}"}]},"id":12345678901234567890}\n`;
    const reader = createMessageReader({ maxLineBytes: 1_024, guard: true });
    const items = [
      ...reader.push(Buffer.from(big.slice(0, 2_000))),
      ...reader.push(Buffer.from(big.slice(2_000))),
    ];
    const last = items.at(-1)!;
    if (last.kind !== "oversize") throw new Error("expected an oversize line");
    expect(last.piece.message).toEqual({
      kind: "response",
      id: {
        value: Number("12345678901234567890"),
        text: "12345678901234567890",
        key: "n:12345678901234567890",
      },
      isError: false,
    });
    const first = items[0]!;
    if (first.kind !== "oversize") throw new Error("expected an oversize line");
    // At the head the id is not known yet; the head is a valid beginning of an object.
    expect(first.piece.envelope).toMatchObject({ valid: true, root: "object", jsonrpc2: true });
    expect(first.piece.envelope.id).toBeUndefined();
  });

  it("says when a line above the cap is not JSON", () => {
    const items = read(`Loading${" .".repeat(2_000)}\n${RESPONSE}`);
    expect(summary(items)).toEqual(["oversize not-json", "response"]);
    const first = items[0]!;
    expect(first.kind === "oversize" && first.piece.envelope.valid).toBe(false);
  });

  it("gives a last line without a newline, classified", () => {
    const items = read(RESPONSE.trimEnd());
    expect(items).toMatchObject([{ kind: "message", unterminated: true }]);
  });
});
