import { describe, expect, it } from "vitest";
import { CursorWrapError } from "./cursor-wrap-error.js";

class ExampleError extends CursorWrapError {
  static override readonly marker: string = "cursor-wrap.error.example";
  constructor(
    readonly path: string,
    cause?: unknown,
  ) {
    super("EXAMPLE", `cannot use ${path}`, { cause });
  }
}

class OtherError extends CursorWrapError {
  static override readonly marker: string = "cursor-wrap.error.other";
  constructor() {
    super("OTHER", "other");
  }
}

class SpecialExampleError extends ExampleError {
  static override readonly marker: string = "cursor-wrap.error.example.special";
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

  it("is recognised by its marker, not by instanceof", () => {
    const foreign = Object.assign(new Error("x"), {
      code: "EXAMPLE",
      [Symbol.for("cursor-wrap.error")]: true,
      [Symbol.for("cursor-wrap.error.example")]: true,
    });
    expect(CursorWrapError.isInstance(foreign)).toBe(true);
    expect(ExampleError.isInstance(foreign)).toBe(true);
    expect(CursorWrapError.isInstance(new Error("plain"))).toBe(false);
    expect(CursorWrapError.isInstance(null)).toBe(false);
    expect(CursorWrapError.hasCode(new ExampleError("a"), "EXAMPLE")).toBe(true);
    expect(CursorWrapError.hasCode(new ExampleError("a"), "OTHER")).toBe(false);
  });

  it("tells sibling classes apart, and knows subclasses", () => {
    const example = new ExampleError("a");
    const other = new OtherError();
    const special = new SpecialExampleError("b");
    expect(ExampleError.isInstance(other)).toBe(false);
    expect(OtherError.isInstance(example)).toBe(false);
    expect(ExampleError.isInstance(special)).toBe(true);
    expect(SpecialExampleError.isInstance(example)).toBe(false);
    expect(CursorWrapError.isInstance(other)).toBe(true);
  });

  it("refuses a subclass that declares no marker of its own", () => {
    class Unmarked extends CursorWrapError {}
    expect(() => new Unmarked("X", "x")).toThrow(/must declare a static marker/);
  });
});
