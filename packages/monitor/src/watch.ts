/** Information passed to {@link WatchOptions.onStall}. */
export interface StallInfo {
  /** How long the source has been silent, ms. */
  silentMs: number;
  /** Items received so far. */
  received: number;
}

/** Options for {@link watch}. Durations in milliseconds. */
export interface WatchOptions {
  /** Silence after which `onStall` is called (once per silence). */
  idleMs: number;
  /** Aborting ends the iteration at once, even while the source is silent. */
  signal?: AbortSignal;
  /** Called once per silence longer than `idleMs`; the iteration keeps waiting. */
  onStall?: (stall: StallInfo) => void;
  /**
   * Best-effort cancellation of the underlying work, called once on abort (e.g. `run.cancel()`).
   * It may throw (unsupported) or never settle: the loop has already ended either way.
   */
  cancel?: () => unknown;
  /** How long `cancel()` may take before `onCancelTimeout` is called. Default 10000. */
  cancelTimeoutMs?: number;
  /** Called when `cancel()` has not settled after `cancelTimeoutMs`. */
  onCancelTimeout?: () => void;
}

const ignore = (): void => {};

/**
 * Iterate any async iterable with an abort signal and a stall watchdog (R-MON8).
 *
 * A plain `for await` cannot be interrupted while the source is silent: the abort flag is only
 * looked at when the next item arrives. `watch()` races every `next()` against the signal, so
 * aborting ends the loop immediately (with the signal's reason as the error), calls `cancel()`
 * and the source's `return()` without waiting on them, and leaves no timer behind.
 */
export async function* watch<T>(
  source: AsyncIterable<T>,
  options: WatchOptions,
): AsyncGenerator<T> {
  const { idleMs, signal, onStall, cancel, onCancelTimeout } = options;
  const cancelTimeoutMs = options.cancelTimeoutMs ?? 10_000;
  signal?.throwIfAborted();
  const iterator = source[Symbol.asyncIterator]();

  let rejectAbort: (reason: unknown) => void = ignore;
  const aborted = new Promise<never>((_, reject) => {
    rejectAbort = reject;
  });
  aborted.catch(ignore);
  const onAbort = (): void => rejectAbort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });

  let received = 0;
  let finished = false;
  let stallTimer: ReturnType<typeof setTimeout> | undefined;
  try {
    for (;;) {
      const waitingSince = performance.now();
      if (onStall) {
        stallTimer = setTimeout(() => {
          stallTimer = undefined;
          onStall({ silentMs: performance.now() - waitingSince, received });
        }, idleMs);
      }
      const next = iterator.next();
      next.catch(ignore);
      let result: IteratorResult<T>;
      try {
        result = await Promise.race([next, aborted]);
      } finally {
        if (stallTimer !== undefined) clearTimeout(stallTimer);
        stallTimer = undefined;
      }
      if (result.done) {
        finished = true;
        return;
      }
      received += 1;
      yield result.value;
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    if (!finished) {
      // Early exit (abort, consumer break or error): release the source without waiting on it,
      // since a source stuck in next() may never answer return().
      Promise.resolve()
        .then(() => iterator.return?.())
        .catch(ignore);
      if (signal?.aborted && cancel) cancelInBackground(cancel, cancelTimeoutMs, onCancelTimeout);
    }
  }
}

function cancelInBackground(
  cancel: () => unknown,
  timeoutMs: number,
  onTimeout: (() => void) | undefined,
): void {
  let settled = false;
  const timer = setTimeout(() => {
    if (!settled) onTimeout?.();
  }, timeoutMs);
  timer.unref?.();
  const settle = (): void => {
    settled = true;
    clearTimeout(timer);
  };
  try {
    Promise.resolve(cancel()).then(settle, settle);
  } catch {
    settle();
  }
}
