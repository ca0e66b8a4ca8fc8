import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { terminalSafe, terminalSafeJson } from "./terminal-safe.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
/** Anything a terminal would act on, rather than print, or would print as nothing. */
const ACTIVE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb\u{e0000}-\u{e007f}]/u;

describe("terminalSafe", () => {
  it.each([
    // [what the agent printed, what reaches the terminal]
    ["\u001b]0;pwned\u0007", "\\x1b]0;pwned\\x07"],
    ["\u001b[2J\u001b[H", "\\x1b[2J\\x1b[H"],
    ["\u001b]52;c;ZXZpbA==\u0007", "\\x1b]52;c;ZXZpbA==\\x07"],
    [
      "\u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\",
      "\\x1b]8;;https://evil.example\\x1b\\click\\x1b]8;;\\x1b\\",
    ],
    ["rm -rf /tmp/x\rls", "rm -rf /tmp/x\\rls"],
    ["safe\bX", "safe\\bX"],
    ["\u009b31m", "\\x9b31m"],
    ["invoice\u202egnp.exe", "invoice\\u202egnp.exe"],
    ["a\u2066b\u2069", "a\\u2066b\\u2069"],
    ["line one\r\nline two\n\tindented", "line one\nline two\n\tindented"],
    ["plain text, ünïcödé, emoji 🚀", "plain text, ünïcödé, emoji 🚀"],
    // Invisible: nothing would show where text hides (tags spell "Hi" unseen).
    ["a\u200bb\u2060c\ufeffd", "a\\u200bb\\u2060c\\ufeffd"],
    ["ok\u{e0048}\u{e0069}", "ok\\u{e0048}\\u{e0069}"],
    // Joiners stay: emoji sequences and scripts are made of them.
    ["👩\u200d💻 می\u200cخواهم", "👩\u200d💻 می\u200cخواهم"],
  ])("shows %j as %j", (input, expected) => {
    expect(terminalSafe(input)).toBe(expected);
  });

  it("returns text with nothing to escape as it was", () => {
    const text = "nothing to see here\n";
    expect(terminalSafe(text)).toBe(text);
  });

  it("leaves nothing a terminal would act on, whatever the input (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        expect(terminalSafe(text)).not.toMatch(ACTIVE);
      }),
      { numRuns: RUNS },
    );
  });

  it("writes JSON a terminal cannot act on, with the same value (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: "binary" }), (value, text) => {
        const json = JSON.stringify({ value, text });
        const safe = terminalSafeJson(json);
        expect(safe).not.toMatch(ACTIVE);
        expect(JSON.parse(safe)).toEqual(JSON.parse(json));
      }),
      { numRuns: RUNS },
    );
    expect(terminalSafeJson(JSON.stringify("a\u009b2J\u202e\u{e0041}"))).toBe(
      '"a\\u009b2J\\u202e\\udb40\\udc41"',
    );
  });
});
