import { describe, expect, it } from "vitest";
import { classify, errorResponse, idKey } from "./jsonrpc.js";

const line = (value: unknown) => Buffer.from(JSON.stringify(value));

describe("classify", () => {
  it("tells requests, notifications and responses apart, ids by type and value", () => {
    expect(
      classify(
        line({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "x", _meta: { progressToken: "p" } },
        }),
      ),
    ).toEqual({
      kind: "request",
      id: 1,
      key: "n:1",
      method: "tools/call",
      tool: "x",
      progressKey: "s:p",
    });
    expect(classify(line({ jsonrpc: "2.0", id: "1", method: "ping" }))).toMatchObject({
      kind: "request",
      key: "s:1",
    });
    expect(classify(line({ jsonrpc: "2.0", method: "notifications/initialized" }))).toMatchObject({
      kind: "notification",
    });
    expect(classify(line({ jsonrpc: "2.0", id: 1, result: {} }))).toEqual({
      kind: "response",
      id: 1,
      key: "n:1",
    });
    expect(
      classify(line({ jsonrpc: "2.0", id: 2, error: { code: -32601, message: "x" } })),
    ).toMatchObject({ errorCode: -32601 });
    expect(idKey(1)).not.toBe(idKey("1"));
  });

  it.each([
    ["Server listening on stdio", "not-json"],
    ['[{"jsonrpc":"2.0","id":1,"method":"ping"}]', "batch"],
    ["42", "not-an-object"],
    ['{"id":1,"method":"ping"}', "no-jsonrpc-2.0"],
    ['{"jsonrpc":"2.0","id":1}', "neither-request-nor-response"],
    ['{"jsonrpc":"2.0","id":{},"method":"ping"}', "neither-request-nor-response"],
  ])("calls %s invalid (%s)", (text, reason) => {
    expect(classify(Buffer.from(text))).toEqual({ kind: "invalid", reason });
  });

  it("calls bytes that are not UTF-8 invalid", () => {
    expect(classify(Buffer.from([0x7b, 0xff, 0x7d]))).toEqual({
      kind: "invalid",
      reason: "not-utf8",
    });
  });
});

describe("errorResponse", () => {
  it("is one JSON-RPC error line", () => {
    expect(JSON.parse(errorResponse("a", -32001, "late", { tool: "t" }))).toEqual({
      jsonrpc: "2.0",
      id: "a",
      error: { code: -32001, message: "late", data: { tool: "t" } },
    });
  });
});
