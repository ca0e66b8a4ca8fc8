import type { JsonRpcId } from "@cursor-wrap/jsonrpc";
import { describe, expect, it } from "vitest";
import { createAnsweredIds } from "./link-state.js";

const numberId = (value: number): JsonRpcId => ({ value, text: String(value), key: `n:${value}` });
const stringId = (value: string): JsonRpcId => ({
  value,
  text: JSON.stringify(value),
  key: `s:${value}`,
});

describe("createAnsweredIds", () => {
  it("remembers an answered id once", () => {
    const ids = createAnsweredIds();
    ids.answered(numberId(7));
    expect(ids.takeAnswered(numberId(7))).toBe(true);
    expect(ids.takeAnswered(numberId(7))).toBe(false);
  });

  it("tells a number id from the same digits as a string, and from null", () => {
    const ids = createAnsweredIds();
    ids.answered(numberId(5));
    expect(ids.takeAnswered(stringId("5"))).toBe(false);
    expect(ids.takeAnswered({ value: null, text: "null", key: "null" })).toBe(false);
    expect(ids.takeAnswered(numberId(5))).toBe(true);
    ids.answered(stringId("n:5"));
    expect(ids.takeAnswered(numberId(5))).toBe(false);
    expect(ids.takeAnswered(stringId("n:5"))).toBe(true);
  });

  it("keys an id that is not a safe integer by its exact text", () => {
    const ids = createAnsweredIds();
    // The value JSON.parse gives 9007199254740993: rounded; the text keeps the digits.
    const big: JsonRpcId = {
      value: 2 ** 53,
      text: "9007199254740993",
      key: "n:9007199254740993",
    };
    const rounded: JsonRpcId = {
      value: 2 ** 53,
      text: "9007199254740992",
      key: "n:9007199254740992",
    };
    ids.answered(big);
    expect(ids.takeAnswered(rounded)).toBe(false);
    expect(ids.takeAnswered(big)).toBe(true);
    ids.answered({ value: 1.5, text: "1.5", key: "n:1.5" });
    expect(ids.takeAnswered({ value: 1.5, text: "1.5", key: "n:1.5" })).toBe(true);
  });

  it("remembers the last generation at least and two at most", () => {
    const ids = createAnsweredIds(4);
    for (let id = 0; id < 12; id += 1) ids.answered(numberId(id));
    // Generations [8..11] and [4..7] are kept; [0..3] were dropped whole.
    const kept = [];
    for (let id = 0; id < 12; id += 1) if (ids.takeAnswered(numberId(id))) kept.push(id);
    expect(kept).toEqual([4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it("answers an id again in the newer generation only: taken once", () => {
    const ids = createAnsweredIds(2);
    ids.answered(numberId(1));
    ids.answered(numberId(2));
    ids.answered(numberId(3)); // 1 and 2 are now the older generation
    ids.answered(numberId(1));
    expect(ids.takeAnswered(numberId(1))).toBe(true);
    expect(ids.takeAnswered(numberId(1))).toBe(false);
  });
});
