import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createJsonScanner, pathKey, scanJson } from "./json-scanner.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const bytes = (text: string): Buffer => Buffer.from(text, "utf8");

const parses = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/** Text that is often almost JSON: JSON with a few characters changed, cut or inserted. */
const nearlyJson = fc
  .tuple(
    fc.jsonValue().map((value) => JSON.stringify(value, null, 1)),
    fc.array(
      fc.tuple(
        fc.nat(),
        fc.constantFrom(
          "",
          " ",
          "\n",
          '"',
          "\\",
          ",",
          "}",
          "]",
          "{",
          "[",
          ":",
          "0",
          "-",
          "e",
          "\u0000",
          "é",
          "\u2028",
          "1.",
          "tru",
        ),
      ),
      { maxLength: 3 },
    ),
  )
  .map(([text, edits]) => {
    let edited = text;
    for (const [at, insert] of edits) {
      const index = at % (edited.length + 1);
      edited = `${edited.slice(0, index)}${insert}${edited.slice(index + (insert === "" ? 1 : 0))}`;
    }
    return edited;
  });

describe("scanJson", () => {
  it("property: accepts exactly what JSON.parse accepts", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          nearlyJson,
          fc.string(),
          fc.jsonValue().map((value) => JSON.stringify(value)),
        ),
        (text) => {
          const result = scanJson(bytes(text));
          expect(result.status === "complete").toBe(parses(text));
        },
      ),
      { numRuns: RUNS * 3 },
    );
  });

  it("property: any beginning of JSON is complete or truncated, never invalid, however it is chunked", () => {
    fc.assert(
      fc.property(
        fc.jsonValue().map((value) => JSON.stringify(value, null, 2)),
        fc.nat(),
        fc.array(fc.nat(), { maxLength: 8 }),
        (text, cut, cuts) => {
          const all = bytes(text);
          const prefix = all.subarray(0, cut % (all.length + 1));
          const scanner = createJsonScanner();
          let last = 0;
          for (const point of [...new Set(cuts.map((c) => c % (prefix.length + 1)))].sort(
            (a, b) => a - b,
          )) {
            scanner.push(prefix.subarray(last, point));
            last = point;
          }
          scanner.push(prefix.subarray(last));
          expect(scanner.result().status).not.toBe("invalid");
          if (prefix.length === all.length) expect(scanner.result().status).toBe("complete");
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("property: captures the exact text of top-level and nested members, chunked anyhow", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 5 }),
        fc.jsonValue(),
        fc.array(fc.nat(), { maxLength: 8 }),
        (rest, id, cuts) => {
          const value = { ...rest, id, params: { name: "tool", _meta: { progressToken: id } } };
          const all = bytes(JSON.stringify(value));
          const scanner = createJsonScanner({
            capture: [["id"], ["params", "_meta", "progressToken"]],
            maxCaptureBytes: 1_000_000,
          });
          let last = 0;
          for (const point of [...new Set(cuts.map((c) => c % (all.length + 1)))].sort(
            (a, b) => a - b,
          )) {
            scanner.push(all.subarray(last, point));
            last = point;
          }
          scanner.push(all.subarray(last));
          const result = scanner.result();
          expect(result.status).toBe("complete");
          expect(JSON.parse(result.captures.get(pathKey(["id"]))!)).toEqual(
            JSON.parse(JSON.stringify(id)),
          );
          expect(
            JSON.parse(result.captures.get(pathKey(["params", "_meta", "progressToken"]))!),
          ).toEqual(JSON.parse(JSON.stringify(id)));
          expect(result.keys).toEqual(Object.keys(value));
          // Where each lies: its bytes are its text, however the line was chunked.
          for (const path of [["id"], ["params", "_meta", "progressToken"]]) {
            const [from, to] = result.spans.get(pathKey(path))!;
            expect(Buffer.from(all.subarray(from, to)).toString("utf8")).toBe(
              result.captures.get(pathKey(path)),
            );
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("keeps the digits of numbers no double holds, and only the top-level id", () => {
    const line = bytes(
      '{"jsonrpc":"2.0","result":{"id":7,"nested":[{"id":8}]},"id":123456789012345678901234567890}',
    );
    const result = scanJson(line, { capture: [["id"]] });
    expect(result.captures.get(pathKey(["id"]))).toBe("123456789012345678901234567890");
  });

  it("tells a line cut short from one that is broken", () => {
    expect(scanJson(bytes('{"jsonrpc":"2.0","id":1,"result":{"text":"a'))).toMatchObject({
      status: "truncated",
      root: "object",
    });
    expect(scanJson(bytes('{"jsonrpc":"2.0","id":1,"result":"a\u0000b"}'))).toMatchObject({
      status: "invalid",
      errorAt: 35,
    });
    expect(scanJson(bytes('{"level":"info"} trailing'))).toMatchObject({ status: "invalid" });
    expect(scanJson(bytes(""))).toMatchObject({ status: "truncated", root: undefined });
    expect(scanJson(Buffer.from([0x22, 0xc3, 0x28, 0x22])).status).toBe("invalid");
  });
});
