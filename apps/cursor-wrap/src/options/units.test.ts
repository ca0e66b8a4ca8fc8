import { describe, expect, it } from "vitest";
import { parseDuration, parseSize, parseToolTimeouts } from "./units.js";

describe("parseDuration", () => {
  it.each([
    ["500ms", 500],
    ["30s", 30_000],
    ["1.5s", 1_500],
    ["5m", 300_000],
    ["1h", 3_600_000],
    ["7d", 604_800_000],
    ["0", 0],
    [" 2 S ", 2_000],
  ])("reads %s as %d ms", (text, ms) => {
    expect(parseDuration(text, "--idle-timeout")).toBe(ms);
  });

  it.each(["60", "5 minutes", "-1s", "", "1e3ms", "s"])("refuses %j", (text) => {
    expect(() => parseDuration(text, "--idle-timeout")).toThrow(/--idle-timeout takes a duration/);
  });
});

describe("parseSize", () => {
  it.each([
    ["16MiB", 16 * 1024 * 1024],
    ["1MB", 1_000_000],
    ["64KiB", 65_536],
    ["65536", 65_536],
    ["2g", 2_000_000_000],
  ])("reads %s as %d bytes", (text, bytes) => {
    expect(parseSize(text, "--parse-cap")).toBe(bytes);
  });

  it("refuses what is not a size", () => {
    expect(() => parseSize("lots", "--parse-cap")).toThrow(/--parse-cap takes a size/);
  });
});

describe("parseToolTimeouts", () => {
  it("reads kind=duration pairs", () => {
    expect(parseToolTimeouts("mcp=10m, task=30m,shell=90s", "--tool-timeout")).toEqual({
      mcp: 600_000,
      task: 1_800_000,
      shell: 90_000,
    });
  });

  it("refuses pairs without a kind or with a bad duration", () => {
    expect(() => parseToolTimeouts("=10m", "--tool-timeout")).toThrow(/kind=duration/);
    expect(() => parseToolTimeouts("mcp", "--tool-timeout")).toThrow(/kind=duration/);
    expect(() => parseToolTimeouts("mcp=ten", "--tool-timeout")).toThrow(
      /--tool-timeout mcp takes a duration/,
    );
  });
});
