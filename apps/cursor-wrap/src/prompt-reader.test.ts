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
