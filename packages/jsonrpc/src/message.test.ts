import { describe, expect, it } from "vitest";
import { classifyLine, errorResponse, idKey, loggedId, messageLine } from "./message.js";

const line = (value: unknown) => Buffer.from(JSON.stringify(value));

describe("classifyLine", () => {
  it("tells requests, notifications and responses apart, ids by type and value", () => {
    expect(
      classifyLine(line({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x" } })),
    ).toEqual({
      kind: "request",
      id: { value: 1, text: "1", key: 1 },
      method: "tools/call",
      params: { name: "x" },
    });
    expect(classifyLine(line({ jsonrpc: "2.0", id: "1", method: "ping" }))).toMatchObject({
      kind: "request",
      id: { key: "s:1", text: '"1"' },
    });
    expect(classifyLine(line({ jsonrpc: "2.0", method: "notifications/initialized" }))).toEqual({
      kind: "notification",
      method: "notifications/initialized",
      params: undefined,
    });
    expect(classifyLine(line({ jsonrpc: "2.0", id: 1, result: {} }))).toEqual({
      kind: "response",
      id: { value: 1, text: "1", key: 1 },
      isError: false,
      result: {},
    });
    expect(
      classifyLine(line({ jsonrpc: "2.0", id: 2, error: { code: -32601, message: "x" } })),
    ).toEqual({
      kind: "response",
      id: { value: 2, text: "2", key: 2 },
      errorCode: -32601,
      isError: true,
      error: { code: -32601, message: "x" },
    });
    expect(
      classifyLine(line({ jsonrpc: "2.0", id: 3, error: { message: 7, data: { why: "no" } } })),
    ).toMatchObject({ isError: true, error: { code: 0, message: "", data: { why: "no" } } });
    expect(idKey(1)).not.toBe(idKey("1"));
  });

  it("keeps the exact digits of an id above 2^53, and takes the top-level id only", () => {
    const text =
      '{"jsonrpc":"2.0","result":{"content":[{"id":9007199254740993}]},"id":9007199254740993}';
    const message = classifyLine(Buffer.from(text));
    if (message.kind !== "response") throw new Error("expected a response");
    expect(message).toMatchObject({
      kind: "response",
      id: { text: "9007199254740993", key: "n:9007199254740993" },
    });
    const other = classifyLine(Buffer.from('{"jsonrpc":"2.0","id":9007199254740992,"result":1}'));
    expect(other).toMatchObject({ id: { key: "n:9007199254740992" } });
    // Both round to the same double; their keys and answers stay apart.
    expect(JSON.parse(errorResponse(message.id, -32001, "late")).id).toBe(9007199254740992);
    expect(errorResponse(message.id, -32001, "late")).toContain('"id":9007199254740993,');
  });

  it.each([
    ["Server listening on stdio", "not-json"],
    ["42", "not-an-object"],
    ['{"id":1,"method":"ping"}', "no-jsonrpc-2.0"],
    ['{"level":"info","msg":"jsonrpc ready","jsonrpc":"1.0"}', "no-jsonrpc-2.0"],
    ['{"jsonrpc":"2.0","id":1}', "neither-request-nor-response"],
    ['{"jsonrpc":"2.0","id":{},"method":"ping"}', "neither-request-nor-response"],
    ['{"jsonrpc":"2.0","id":1,"result":{"text":"cut', "truncated"],
    ['{"jsonrpc":"2.0","id":1,"result":"a\u0000b"}', "not-json"],
    ["", "not-json"],
  ])("calls %j invalid (%s)", (text, reason) => {
    expect(classifyLine(Buffer.from(text))).toEqual({ kind: "invalid", reason });
  });

  it("writes a whole-number id's digits as String does, over the safe range", () => {
    const ids = [0, -0, 7, -7, 42, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), 1e15, 123456789012345];
    for (const value of [...ids, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]) {
      const id = classifyLine(Buffer.from(`{"jsonrpc":"2.0","id":${value},"method":"m"}`));
      // The key of a safe integer is the number (the line says 0 for -0).
      const key = Number(String(value));
      expect(id).toMatchObject({ kind: "request", id: { text: String(value), key } });
    }
    // 1.0 is the whole number 1: the same id.
    expect(classifyLine(Buffer.from('{"jsonrpc":"2.0","id":1.0,"method":"m"}'))).toMatchObject({
      id: { value: 1, text: "1", key: 1 },
    });
  });

  it("calls bytes that are not UTF-8 invalid", () => {
    expect(classifyLine(Buffer.from([0x7b, 0xff, 0x7d]))).toEqual({
      kind: "invalid",
      reason: "not-utf8",
    });
  });

  it("lists the request ids of a batch, exactly", () => {
    expect(
      classifyLine(
        Buffer.from(
          '[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":12345678901234567890,"method":"b"}]',
        ),
      ),
    ).toEqual({
      kind: "batch",
      requestIds: [
        { value: 1, text: "1", key: 1 },
        {
          value: Number("12345678901234567890"),
          text: "12345678901234567890",
          key: "n:12345678901234567890",
        },
      ],
      notifications: 1,
    });
    expect(classifyLine(Buffer.from("[1,2]"))).toEqual({
      kind: "batch",
      requestIds: [],
      notifications: 0,
    });
  });
});

describe("errorResponse", () => {
  it("is one JSON-RPC error line", () => {
    expect(
      JSON.parse(
        errorResponse({ value: "a", text: '"a"', key: "s:a" }, -32001, "late", { tool: "t" }),
      ),
    ).toEqual({
      jsonrpc: "2.0",
      id: "a",
      error: { code: -32001, message: "late", data: { tool: "t" } },
    });
  });
});

describe("messageLine", () => {
  it("writes a message of one's own, its id exactly as the peer wrote it", () => {
    const message = classifyLine(
      Buffer.from('{"jsonrpc":"2.0","id":9007199254740993,"method":"x"}'),
    );
    if (message.kind !== "request") throw new Error("expected a request");
    expect(messageLine({ id: message.id, result: { stopReason: "cancelled" } })).toBe(
      '{"jsonrpc":"2.0","id":9007199254740993,"result":{"stopReason":"cancelled"}}\n',
    );
    expect(messageLine({ method: "session/cancel", params: { sessionId: "s" } })).toBe(
      '{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}\n',
    );
    expect(messageLine({ id: null, error: { code: -32700, message: "parse error" } })).toBe(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}\n',
    );
    expect(messageLine({})).toBe('{"jsonrpc":"2.0"}\n');
  });

  it("logs an id as its value, or as its digits when the value cannot hold them", () => {
    const big = classifyLine(Buffer.from('{"jsonrpc":"2.0","id":12345678901234567890,"result":1}'));
    const small = classifyLine(Buffer.from('{"jsonrpc":"2.0","id":"a","result":1}'));
    if (big.kind !== "response" || small.kind !== "response") throw new Error("expected responses");
    expect(loggedId(big.id)).toBe("12345678901234567890");
    expect(loggedId(small.id)).toBe("a");
  });
});
