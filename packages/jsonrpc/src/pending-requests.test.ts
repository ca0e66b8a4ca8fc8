import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { IdKey } from "./message.js";
import { createPendingRequests, type ExpiryCause } from "./pending-requests.js";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

function table() {
  const expired: Array<[IdKey, ExpiryCause, number]> = [];
  const pending = createPendingRequests<{ method: string }>({
    now: () => Date.now(),
    onExpired: (request, cause, at) => expired.push([request.key, cause, at - request.startedAt]),
  });
  return { pending, expired };
}

describe("createPendingRequests", () => {
  it("expires each request at its own deadline, on one timer, and remembers it", () => {
    const { pending, expired } = table();
    pending.add("n:1", { method: "a" }, { timeoutMs: 300 });
    pending.add("n:2", { method: "b" }, { timeoutMs: 100 });
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(100);
    expect(expired).toEqual([["n:2", "timeout", 100]]);
    vi.advanceTimersByTime(200);
    expect(expired.map(([key]) => key)).toEqual(["n:2", "n:1"]);
    expect(pending.takeExpired("n:1")).toBe(true);
    expect(pending.takeExpired("n:1")).toBe(false);
    expect(pending.size).toBe(0);
  });

  it("with thousands waiting, expires them in few firings, oldest first, none early, little late", () => {
    const firings = new Set<number>();
    const expired: Array<[IdKey, number]> = [];
    const pending = createPendingRequests<{ method: string }>({
      now: () => Date.now(),
      onExpired: (request, _cause, at) => {
        firings.add(at);
        expired.push([request.key, at - request.deadline]);
      },
    });
    // 5,000 requests a millisecond apart, each with 2 s: their deadlines are a millisecond apart.
    for (let index = 0; index < 5_000; index += 1) {
      pending.add(`n:${index}`, { method: "tools/call" }, { timeoutMs: 2_000 });
      vi.advanceTimersByTime(1);
    }
    vi.advanceTimersByTime(2_100);
    expect(expired.map(([key]) => key)).toEqual(
      Array.from({ length: 5_000 }, (_, index) => `n:${index}`),
    );
    for (const [, late] of expired) {
      expect(late).toBeGreaterThanOrEqual(0);
      expect(late).toBeLessThanOrEqual(25);
    }
    // One firing per millisecond would be 5,000; fewer than 1,024 wait at the end.
    expect(firings.size).toBeLessThan(5_000 / 25 + 1_100);
    expect(pending.size).toBe(0);
  });

  it("does not expire a settled request", () => {
    const { pending, expired } = table();
    pending.add("s:x", { method: "a" }, { timeoutMs: 100 });
    expect(pending.settle("s:x")?.meta.method).toBe("a");
    vi.advanceTimersByTime(1_000);
    expect(expired).toEqual([]);
  });

  it("restarts a timeout on a sign of life, but never past the cap", () => {
    const { pending, expired } = table();
    pending.add("n:1", { method: "slow" }, { timeoutMs: 100, capMs: 450 });
    for (let tick = 0; tick < 10; tick += 1) {
      vi.advanceTimersByTime(90);
      pending.extend("n:1");
    }
    expect(expired).toEqual([["n:1", "cap", 450]]);
  });

  it("does not count time while paused against anyone", () => {
    const { pending, expired } = table();
    pending.add("n:1", { method: "a" }, { timeoutMs: 100 });
    vi.advanceTimersByTime(60);
    pending.pause();
    vi.advanceTimersByTime(10_000);
    expect(expired).toEqual([]);
    pending.resume();
    vi.advanceTimersByTime(39);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual([["n:1", "timeout", 100]]);
  });

  it("hands every request over at once when the answering side is gone", () => {
    const { pending, expired } = table();
    pending.add("n:1", { method: "a" }, { timeoutMs: 100 });
    pending.add("n:2", { method: "b" }, { timeoutMs: Number.POSITIVE_INFINITY });
    expect(pending.drain().map((request) => request.key)).toEqual(["n:1", "n:2"]);
    vi.advanceTimersByTime(1_000);
    expect(expired).toEqual([]);
  });

  it("lists what is waited on, oldest first, and a request with no timeout never expires", () => {
    const { pending, expired } = table();
    pending.add("n:1", { method: "session/prompt" }, { timeoutMs: Number.POSITIVE_INFINITY });
    pending.add("n:2", { method: "initialize" }, { timeoutMs: 100 });
    expect(pending.values().map((request) => request.meta.method)).toEqual([
      "session/prompt",
      "initialize",
    ]);
    vi.advanceTimersByTime(10_000_000);
    expect(expired.map(([key]) => key)).toEqual(["n:2"]);
    expect(pending.values().map((request) => request.key)).toEqual(["n:1"]);
  });
});
