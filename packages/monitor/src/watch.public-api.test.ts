// `watch()` as an SDK adapter uses it: imported by the package's name (its published entry, not
// this source tree), around a stream that goes silent, exactly as the README's example does.

import { watch } from "@cursor-wrap/monitor";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance", "Date"] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** An SDK-like run: a stream that yields two messages and then hangs, and a `cancel()`. */
function hangingRun() {
  const calls = { cancel: 0, returned: false };
  const stream: AsyncIterable<string> = {
    [Symbol.asyncIterator]() {
      const messages = ["system", "assistant"];
      return {
        next: () =>
          messages.length > 0
            ? Promise.resolve({ done: false, value: messages.shift() as string })
            : new Promise<IteratorResult<string>>(() => {}),
        return: () => {
          calls.returned = true;
          return Promise.resolve({ done: true, value: undefined });
        },
      };
    },
  };
  const cancel = (): void => {
    calls.cancel += 1;
  };
  return { stream, calls, cancel };
}

describe("watch() from @cursor-wrap/monitor", () => {
  it("reports one stall per silence and ends at once on abort, cancelling the run", async () => {
    const run = hangingRun();
    const abort = new AbortController();
    const stalls: Array<{ silentMs: number; received: number }> = [];
    const handled: string[] = [];
    const loop = (async () => {
      try {
        for await (const message of watch(run.stream, {
          idleMs: 5 * 60_000,
          signal: abort.signal,
          onStall: (stall) => stalls.push(stall),
          cancel: run.cancel,
        }))
          handled.push(message);
        return undefined;
      } catch (error) {
        return error;
      }
    })();

    await vi.advanceTimersByTimeAsync(5 * 60_000);
    expect(handled).toEqual(["system", "assistant"]);
    expect(stalls).toEqual([{ silentMs: 5 * 60_000, received: 2 }]);
    // Still silent: no second report for the same silence.
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(stalls).toHaveLength(1);

    abort.abort();
    const error = await loop;
    expect(error).toMatchObject({ name: "AbortError" });
    expect(run.calls).toEqual({ cancel: 1, returned: true });
    // Nothing is left armed once the loop has ended.
    expect(vi.getTimerCount()).toBe(0);
  });
});
