import { RunUsageError } from "./errors.js";

/**
 * Items handed from a producer to one async iterator, in order: the producer pushes and ends;
 * the reader awaits. Nothing is dropped; the reader sees everything pushed before `end()`.
 * Breaking out of the loop (`return()`) calls `onReturn`, and what it returns is awaited.
 */
export interface EventQueue<Item> extends AsyncIterable<Item> {
  push(item: Item): void;
  /** No more items: a waiting reader finishes. Idempotent. */
  end(): void;
}

/** A queue whose reader's early exit (`break`, `return`) calls `onReturn` and awaits it. */
export function createEventQueue<Item>(onReturn: () => Promise<void>): EventQueue<Item> {
  const items: Item[] = [];
  let ended = false;
  let iterating = false;
  let wake: (() => void) | undefined;
  const signal = (): void => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  return {
    push(item) {
      if (ended) return;
      items.push(item);
      signal();
    },
    end() {
      ended = true;
      signal();
    },
    [Symbol.asyncIterator](): AsyncIterator<Item> {
      // One reader: a second would split the events between the two.
      if (iterating) throw new RunUsageError("the events of a run can be read only once");
      iterating = true;
      let done = false;
      return {
        async next(): Promise<IteratorResult<Item>> {
          for (;;) {
            if (done) return { done: true, value: undefined };
            const item = items.shift();
            if (item !== undefined) return { done: false, value: item };
            if (ended) {
              done = true;
              return { done: true, value: undefined };
            }
            await new Promise<void>((resolve) => {
              wake = resolve;
            });
          }
        },
        async return(): Promise<IteratorResult<Item>> {
          done = true;
          ended = true;
          items.length = 0;
          await onReturn();
          return { done: true, value: undefined };
        },
      };
    },
  };
}
