import { describe, expect, it } from "vitest";
import { parseResetTime } from "./reset-time.js";

const NOW = Date.UTC(2026, 8, 14, 3, 0, 0);

describe("parseResetTime", () => {
  it("takes Cursor's cycle date (month/day/year) as the end of that day", () => {
    expect(
      parseResetTime(
        "Your usage limits will reset when your monthly cycle ends on 11/17/2025.*",
        NOW,
      ),
    ).toEqual({ resetAt: new Date(2025, 10, 18).getTime(), resetText: "11/17/2025" });
    // Wrapped over two lines, as cursor-agent prints it.
    expect(
      parseResetTime(
        "Your usage limits will\nreset when your monthly cycle ends on 10/2/2026.*",
        NOW,
      )?.resetAt,
    ).toBe(new Date(2026, 9, 3).getTime());
  });

  it.each([
    ["Resets in 2h39m52s.", 2 * 3_600_000 + 39 * 60_000 + 52_000, "in 2h39m52s"],
    [
      "try again in 4 days 20 hours 9 minutes",
      4 * 86_400_000 + 20 * 3_600_000 + 9 * 60_000,
      "in 4 days 20 hours 9 minutes",
    ],
    ["Please try again in 30 seconds.", 30_000, "in 30 seconds"],
    ["retry after 45s", 45_000, "after 45s"],
    ["Retry-After: 120", 120_000, "in 120s"],
    ["try again in 1.5 minutes", 90_000, "in 1.5 minutes"],
  ])("%s", (text, ms, resetText) => {
    expect(parseResetTime(text, NOW)).toEqual({ resetAt: NOW + ms, resetText });
  });

  it("finds nothing where nothing is said", () => {
    for (const text of [
      "Error: You've hit your usage limit",
      "please try again in a moment",
      "reset the counter",
      "on 13/45/2025 reset",
    ]) {
      expect(parseResetTime(text, NOW), text).toBeUndefined();
    }
  });
});
