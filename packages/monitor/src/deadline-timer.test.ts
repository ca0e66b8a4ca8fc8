import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createDeadlineTimer, MAX_TIMER_DELAY_MS } from "./deadline-timer.js";
import { createMonitor } from "./monitor.js";

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

const clock = () => Date.now();

describe("createDeadlineTimer", () => {
  it("fires once at the deadline, not before, and re-arms at the next one", () => {
    const deadlines = [100, 250];
    const fired: number[] = [];
    const timer = createDeadlineTimer({
      nextDeadline: () => deadlines[0],
      onDeadline: (now) => {
        fired.push(now);
        deadlines.shift();
      },
      now: clock,
    });
    timer.rearm();
    expect(timer.armedFor).toBe(100);
    vi.advanceTimersByTime(99);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([100]);
    expect(timer.armedFor).toBe(250);
    vi.advanceTimersByTime(1_000);
    expect(fired).toEqual([100, 250]);
    expect(timer.armedFor).toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("keeps one timer: a later deadline does not move it, an earlier one does", () => {
    let deadline = 1_000;
    const fired: number[] = [];
    const timer = createDeadlineTimer({
      nextDeadline: () => deadline,
      onDeadline: (now) => fired.push(now),
      now: clock,
    });
    timer.rearm();
    deadline = 2_000;
    timer.rearm();
    expect(timer.armedFor).toBe(1_000);
    expect(vi.getTimerCount()).toBe(1);
    deadline = 500;
    timer.rearm();
    expect(timer.armedFor).toBe(500);
    expect(vi.getTimerCount()).toBe(1);
    deadline = 3_000;
    timer.rearm({ exact: true });
    expect(timer.armedFor).toBe(3_000);
    vi.advanceTimersByTime(2_999);
    expect(fired).toEqual([]);
    deadline = Number.POSITIVE_INFINITY;
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([3_000]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("wakes up only at the deadline when nothing happens in between (no polling)", () => {
    const onDeadline = vi.fn();
    const timer = createDeadlineTimer({ nextDeadline: () => 600_000, onDeadline, now: clock });
    timer.rearm();
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(599_999);
    expect(onDeadline).not.toHaveBeenCalled();
    timer.stop();
  });

  it("reaches deadlines beyond setTimeout's limit in steps, without firing early", () => {
    const sixtyDays = 60 * 86_400_000;
    const fired: number[] = [];
    let deadline: number | undefined = sixtyDays;
    const timer = createDeadlineTimer({
      nextDeadline: () => deadline,
      onDeadline: (now) => {
        fired.push(now);
        deadline = undefined;
      },
      now: clock,
    });
    timer.rearm();
    vi.advanceTimersByTime(MAX_TIMER_DELAY_MS);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(sixtyDays - MAX_TIMER_DELAY_MS - 1);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([sixtyDays]);
  });

  it("pauses, resumes and stops", () => {
    const onDeadline = vi.fn();
    const timer = createDeadlineTimer({ nextDeadline: () => 100, onDeadline, now: clock });
    timer.rearm();
    timer.pause();
    timer.rearm();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(200);
    expect(onDeadline).not.toHaveBeenCalled();
    timer.resume();
    vi.advanceTimersByTime(0);
    expect(onDeadline).toHaveBeenCalledTimes(1);
    timer.stop();
    timer.resume();
    timer.rearm();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("drives the monitor: a silent agent hangs exactly at the idle timeout", () => {
    const monitor = createMonitor({ idleTimeoutMs: 60_000, now: clock });
    const verdicts: Array<{ at: number; verdict: string }> = [];
    const warnings: number[] = [];
    const timer = createDeadlineTimer({
      nextDeadline: () => monitor.nextDeadline(),
      onDeadline: (now) => {
        const check = monitor.check(now);
        if (check.warning) warnings.push(now);
        if (check.verdict === "hang") {
          verdicts.push({ at: now, verdict: check.verdict });
          timer.stop();
        }
      },
      now: clock,
    });
    timer.rearm();
    vi.advanceTimersByTime(10_000);
    monitor.observe({ type: "activity" });
    timer.rearm();
    vi.advanceTimersByTime(100_000);
    expect(warnings).toEqual([40_000]);
    expect(verdicts).toEqual([{ at: 70_000, verdict: "hang" }]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
