import { lstatSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { describeError, kindOf } from "./file-errors.js";

describe("describeError", () => {
  it("gives a known code with its meaning, an unknown one alone, a codeless error its message", () => {
    expect(describeError(Object.assign(new Error("x"), { code: "ENOENT" }))).toBe(
      "ENOENT (no such file or directory)",
    );
    expect(describeError(Object.assign(new Error("x"), { code: "EWHATEVER" }))).toBe("EWHATEVER");
    expect(describeError(new Error("plain"))).toBe("plain");
  });
});

describe("kindOf", () => {
  it("names a directory and leaves a regular file unnamed", () => {
    const dir = mkdtempSync(join(tmpdir(), "wording-kind-"));
    try {
      writeFileSync(join(dir, "f"), "");
      expect(kindOf(lstatSync(join(dir, "f")))).toBeUndefined();
      expect(kindOf(lstatSync(dir))).toBe("a directory");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
