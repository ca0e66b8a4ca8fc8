import { afterEach, describe, expect, it, vi } from "vitest";
import { stderrCountdown } from "./countdown.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("stderrCountdown", () => {
  it("redraws one line every second with the time left, and erases it at the end", async () => {
    vi.useFakeTimers();
    const written: string[] = [];
    const display = stderrCountdown(
      { write: (text: string) => written.push(text) },
      {
        now: () => Date.now(),
      },
    );
    display.start("usage limit: waiting 2m 0s until it resets (\u001b[31m11/17\u001b[0m)", 120_000);
    await vi.advanceTimersByTimeAsync(2_000);
    display.stop();
    expect(written).toEqual([
      "\r\u001b[2K⏳ usage limit: waiting 2m 0s until it resets (\\x1b[31m11/17\\x1b[0m) · resuming in 2m (Ctrl+C to stop)",
      "\r\u001b[2K⏳ usage limit: waiting 2m 0s until it resets (\\x1b[31m11/17\\x1b[0m) · resuming in 1m 59s (Ctrl+C to stop)",
      "\r\u001b[2K⏳ usage limit: waiting 2m 0s until it resets (\\x1b[31m11/17\\x1b[0m) · resuming in 1m 58s (Ctrl+C to stop)",
      "\r\u001b[2K",
    ]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
