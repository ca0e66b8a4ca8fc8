import { describe, expect, it } from "vitest";
import { formatBytes } from "./format-bytes.js";

describe("formatBytes", () => {
  it.each([
    [0, "0 B"],
    [999.4, "999 B"],
    [1_000, "1.0 kB"],
    [3_250, "3.3 kB"],
    [1_500_000, "1.5 MB"],
  ])("%d → %s", (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});
