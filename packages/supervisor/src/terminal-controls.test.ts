import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createControlStripper } from "./terminal-controls.js";

describe("createControlStripper", () => {
  it("removes colour, cursor and title sequences and keeps the text and line endings", () => {
    const stripper = createControlStripper();
    const text =
      '\u001b[?25l\u001b[32m{"type":"user"}\u001b[0m\r\n\u001b]0;agent\u0007{"type":"result"}\r\n';
    expect(stripper.push(text)).toBe('{"type":"user"}\r\n{"type":"result"}\r\n');
  });

  it("holds back a sequence cut at the end of a chunk", () => {
    const stripper = createControlStripper();
    expect(stripper.push('{"a":1}\u001b[3')).toBe('{"a":1}');
    expect(stripper.push("1m\n")).toBe("\n");
    expect(stripper.push("x\u001b")).toBe("x");
    expect(stripper.end()).toBe("\u001b");
  });

  it("gives the same text for any split of the same output (property)", () => {
    const piece = fc.constantFrom(
      "\u001b[31m",
      "\u001b[0m",
      "\u001b]0;t\u0007",
      "\u001b[?2004h",
      "abc",
      "{}",
      "\r\n",
      "é",
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 20 }), fc.nat(), (pieces, cut) => {
        const text = pieces.join("");
        const at = cut % (text.length + 1);
        const whole = createControlStripper();
        const split = createControlStripper();
        const expected = whole.push(text) + whole.end();
        const actual = split.push(text.slice(0, at)) + split.push(text.slice(at)) + split.end();
        expect(actual).toBe(expected);
        expect(expected).not.toContain("\u001b");
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 100) },
    );
  });
});
