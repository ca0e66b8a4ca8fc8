import { describe, expect, it } from "vitest";
import { CursorWrapError } from "./cursor-wrap-error.js";

class ExampleError extends CursorWrapError {
  constructor(
    readonly path: string,
    cause?: unknown,
  ) {
    super("EXAMPLE", `cannot use ${path}`, { cause });
  }
}

describe("CursorWrapError", () => {
  it("carries a code, a message, a name and the cause", () => {
    const cause = new Error("EACCES");
    const error = new ExampleError("/logs", cause);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      code: "EXAMPLE",
      message: "cannot use /logs",
      name: "ExampleError",
      path: "/logs",
    });
    expect(error.cause).toBe(cause);
  });

  it("is recognised by its brand, not by instanceof", () => {
    const foreign = Object.assign(new Error("x"), {
      code: "EXAMPLE",
      [Symbol.for("cursor-wrap.error")]: true,
    });
    expect(CursorWrapError.isInstance(foreign)).toBe(true);
    expect(CursorWrapError.isInstance(new Error("plain"))).toBe(false);
    expect(CursorWrapError.isInstance(null)).toBe(false);
    expect(CursorWrapError.hasCode(new ExampleError("a"), "EXAMPLE")).toBe(true);
    expect(CursorWrapError.hasCode(new ExampleError("a"), "OTHER")).toBe(false);
  });
});
