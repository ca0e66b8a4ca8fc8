import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { watch } from "./watch.js";

/** A source that yields the given items, then never answers again. */
function silentAfter<T>(items: T[]) {
  const state = { returned: false };
  const iterable: AsyncIterable<T> = {
    [Symbol.asyncIterator]() {
      let index = 0;
      return {
        next: () =>
          index < items.length
            ? Promise.resolve({ done: false, value: items[index++] as T })
            : new Promise<IteratorResult<T>>(() => {}),
        return: () => {
          state.returned = true;
          return Promise.resolve({ done: true, value: undefined });
        },
      };
    },
  };
  return { iterable, state };
}

/** Drain a watched iterable; resolves with the items and the error that ended it, if any. */
async function drain<T>(iterable: AsyncIterable<T>) {
  const items: T[] = [];
  try {
    for await (const item of iterable) items.push(item);
    return { items, error: undefined };
  } catch (error) {
    return { items, error };
  }
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance", "Date"] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("watch", () => {
  it("passes items through and ends when the source ends", async () => {
    async function* three() {
      yield 1;
      yield 2;
      yield 3;
    }
    const { items, error } = await drain(watch(three(), { idleMs: 1_000, onStall: () => {} }));
    expect(items).toEqual([1, 2, 3]);
    expect(error).toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("ends at once on abort while the source is silent, without any clock advance", async () => {
    const { iterable, state } = silentAfter(["first"]);
    const controller = new AbortController();
    const done = drain(watch(iterable, { idleMs: 300_000, signal: controller.signal }));
    await vi.advanceTimersByTimeAsync(50);
    controller.abort();
    // No timer may be needed to end the loop: it ends on the abort itself (well under 100 ms).
    const { items, error } = await done;
    expect(items).toEqual(["first"]);
    expect((error as Error).name).toBe("AbortError");
    await vi.advanceTimersByTimeAsync(0);
    expect(state.returned).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("throws the abort reason when the signal was already aborted", async () => {
    const { iterable } = silentAfter([1]);
    const reason = new Error("stop");
    const { error } = await drain(
      watch(iterable, { idleMs: 10, signal: AbortSignal.abort(reason) }),
    );
    expect(error).toBe(reason);
  });

  it("calls a supported cancel() on abort and exits", async () => {
    const { iterable } = silentAfter([]);
    const controller = new AbortController();
    const cancel = vi.fn(() => Promise.resolve());
    const onCancelTimeout = vi.fn();
    const done = drain(
      watch(iterable, { idleMs: 1_000, signal: controller.signal, cancel, onCancelTimeout }),
    );
    controller.abort();
    expect((await done).error).toBeInstanceOf(Error);
    await vi.advanceTimersByTimeAsync(0);
    expect(cancel).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(onCancelTimeout).not.toHaveBeenCalled();
  });

  it("still exits when cancel() is unsupported and throws", async () => {
    const { iterable } = silentAfter([]);
    const controller = new AbortController();
    const cancel = vi.fn(() => {
      throw new Error("cancel is not supported");
    });
    const done = drain(watch(iterable, { idleMs: 1_000, signal: controller.signal, cancel }));
    controller.abort();
    expect(((await done).error as Error).name).toBe("AbortError");
    expect(cancel).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("gives up on a cancel() that never settles after the hard timeout, with a warning", async () => {
    const { iterable } = silentAfter([]);
    const controller = new AbortController();
    const onCancelTimeout = vi.fn();
    const done = drain(
      watch(iterable, {
        idleMs: 1_000,
        signal: controller.signal,
        cancel: () => new Promise(() => {}),
        onCancelTimeout,
      }),
    );
    controller.abort();
    expect(((await done).error as Error).name).toBe("AbortError"); // the loop did not wait
    await vi.advanceTimersByTimeAsync(9_999);
    expect(onCancelTimeout).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(onCancelTimeout).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("reports a stall once per silence and keeps waiting", async () => {
    let push: (value: number) => void = () => {};
    const source: AsyncIterable<number> = {
      [Symbol.asyncIterator]: () => ({
        next: () =>
          new Promise<IteratorResult<number>>((resolve) => {
            push = (value) => resolve({ done: false, value });
          }),
      }),
    };
    const controller = new AbortController();
    const onStall = vi.fn();
    const items: number[] = [];
    const done = (async () => {
      try {
        for await (const item of watch(source, {
          idleMs: 300_000,
          signal: controller.signal,
          onStall,
        })) {
          items.push(item);
        }
      } catch {}
    })();
    await vi.advanceTimersByTimeAsync(299_999);
    expect(onStall).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(onStall).toHaveBeenCalledTimes(1);
    expect(onStall).toHaveBeenLastCalledWith({ silentMs: 300_000, received: 0 });
    await vi.advanceTimersByTimeAsync(900_000);
    expect(onStall).toHaveBeenCalledTimes(1); // once per silence, however long
    push(7);
    await vi.advanceTimersByTimeAsync(300_000);
    expect(items).toEqual([7]);
    expect(onStall).toHaveBeenCalledTimes(2);
    expect(onStall).toHaveBeenLastCalledWith({ silentMs: 300_000, received: 1 });
    controller.abort();
    await done;
    expect(vi.getTimerCount()).toBe(0);
  });

  it("releases the source and its timer when the consumer breaks early", async () => {
    const { iterable, state } = silentAfter([1, 2, 3]);
    for await (const item of watch(iterable, { idleMs: 1_000, onStall: () => {} })) {
      if (item === 2) break;
    }
    await vi.advanceTimersByTimeAsync(0);
    expect(state.returned).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("propagates an error from the source", async () => {
    const failing: AsyncIterable<number> = {
      [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error("boom")) }),
    };
    const { error } = await drain(watch(failing, { idleMs: 1_000, onStall: () => {} }));
    expect((error as Error).message).toBe("boom");
    expect(vi.getTimerCount()).toBe(0);
  });
});
