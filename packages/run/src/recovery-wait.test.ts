import { afterEach, describe, expect, it, vi } from "vitest";
import { waitBetweenAttempts } from "./recovery-wait.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("waitBetweenAttempts", () => {
  it("waits the whole delay on a fake clock", async () => {
    vi.useFakeTimers();
    const waited = waitBetweenAttempts(90_000, new AbortController().signal, () => Date.now());
    let done = false;
    void waited.then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(89_999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await waited).toEqual({ waitedMs: 90_000, cancelled: false });
  });

  it("waits longer than one timer can hold, in steps", async () => {
    vi.useFakeTimers();
    const thirtyDays = 30 * 86_400_000;
    const waited = waitBetweenAttempts(thirtyDays, new AbortController().signal, () => Date.now());
    await vi.advanceTimersByTimeAsync(thirtyDays);
    expect(await waited).toEqual({ waitedMs: thirtyDays, cancelled: false });
  });

  it("ends at once when aborted (Ctrl+C), saying how long it waited", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const waited = waitBetweenAttempts(3_600_000, controller.signal, () => Date.now());
    await vi.advanceTimersByTimeAsync(12_000);
    controller.abort({ kind: "shutdown", signal: "SIGINT" });
    expect(await waited).toEqual({ waitedMs: 12_000, cancelled: true });
    expect(vi.getTimerCount()).toBe(0);
    const already = new AbortController();
    already.abort();
    expect(await waitBetweenAttempts(1_000, already.signal)).toEqual({
      waitedMs: 0,
      cancelled: true,
    });
  });
});
