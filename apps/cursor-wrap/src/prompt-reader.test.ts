import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createPromptReader } from "./prompt-reader.js";

describe("createPromptReader (piped input)", () => {
  it("gives one prompt per line, skipping blank lines, then EOF", async () => {
    const input = new PassThrough();
    const reader = createPromptReader(input, new PassThrough());
    input.end("first\r\n\n   \n  second  \nthird");
    expect(await reader.next()).toEqual({ kind: "prompt", text: "first" });
    expect(await reader.next()).toEqual({ kind: "prompt", text: "second" });
    expect(await reader.next()).toEqual({ kind: "prompt", text: "third" });
    expect(await reader.next()).toEqual({ kind: "eof" });
  });

  it("waits for a line that has not arrived yet", async () => {
    const input = new PassThrough();
    const reader = createPromptReader(input, new PassThrough());
    const next = reader.next();
    input.write("late");
    input.write(" line\n");
    expect(await next).toEqual({ kind: "prompt", text: "late line" });
    input.end();
    expect(await reader.next()).toEqual({ kind: "eof" });
  });
});

/** A stand-in for a terminal: readline edits lines on it as it does on a real one. */
function fakeTerminal(): PassThrough & { isTTY: true; setRawMode(mode: boolean): unknown } {
  return Object.assign(new PassThrough(), {
    isTTY: true as const,
    setRawMode(this: PassThrough, _mode: boolean) {
      return this;
    },
  });
}

describe("createPromptReader (terminal)", () => {
  it("gives a line sent with Enter as a prompt", async () => {
    const input = fakeTerminal();
    const reader = createPromptReader(input, new PassThrough());
    const next = reader.next();
    input.write("fix the test\r");
    expect(await next).toEqual({ kind: "prompt", text: "fix the test" });
    reader.close();
  });

  it("discards a line typed but not sent when the terminal goes away: a hangup, no prompt", async () => {
    const input = fakeTerminal();
    const reader = createPromptReader(input, new PassThrough());
    const next = reader.next();
    input.write("rm -rf half typed");
    input.end();
    expect(await next).toEqual({ kind: "hangup" });
    expect(await reader.next()).toEqual({ kind: "eof" });
  });
});
