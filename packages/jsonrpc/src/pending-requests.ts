// The requests a peer is waiting on, each with a deadline, and one timer at the earliest of
// them (`createDeadlineTimer`, the house's "no polling" rule). A deadline can be moved on (a
// sign of life), never past a request's total cap; the clock can be paused while the waiting
// is not the answering side's fault (the asking side stopped reading), and resumes where it was.

import { createDeadlineTimer, type DeadlineTimer } from "@cursor-wrap/monitor";
import { createKeyTable } from "./key-table.js";
import type { IdKey } from "./message.js";

/** One request being waited on. */
export interface PendingRequest<Meta> {
  /** The id's map key (see `JsonRpcId.key`). */
  readonly key: IdKey;
  /** What the caller keeps with it (method, tool, the id to answer with, …). */
  readonly meta: Meta;
  /** When it started, on the table's clock, ms. */
  readonly startedAt: number;
  /** When it expires, on the table's clock, ms. */
  deadline: number;
  /** The latest it may ever expire: moving the deadline stops here, ms. */
  readonly cap: number;
  /** The time allowed from the start or from the last sign of life, ms. */
  readonly timeoutMs: number;
}

/** Why a request expired. */
export type ExpiryCause =
  /** No answer (nor sign of life) within its timeout. */
  | "timeout"
  /** Its total cap was reached, signs of life or not. */
  | "cap";

/** Options for {@link createPendingRequests}. */
export interface PendingRequestsOptions<Meta> {
  /** A request expired: answer it. It is already out of the table. */
  onExpired(request: PendingRequest<Meta>, cause: ExpiryCause, at: number): void;
  /** Monotonic clock, ms. Default `performance.now()`. */
  now?: () => number;
  /** How many expired keys are remembered, to recognise their late answers. Default 10 000. */
  rememberExpired?: number;
}

/** The table. */
export interface PendingRequests<Meta> {
  /**
   * Start waiting on a request: it expires `timeoutMs` from now (`Infinity`: never), and never
   * later than `capMs` from now (default: no cap). A request with the same key replaces the
   * earlier one (which is returned).
   */
  add(key: IdKey, meta: Meta, timing: { timeoutMs: number; capMs?: number }): PendingRequest<Meta>;
  get(key: IdKey): PendingRequest<Meta> | undefined;
  /** Every request being waited on, oldest first (a snapshot: the table may change meanwhile). */
  values(): PendingRequest<Meta>[];
  /** The answer came: stop waiting (returns the request, if it was waited on). */
  settle(key: IdKey): PendingRequest<Meta> | undefined;
  /** A sign of life: its timeout starts again from now (within its cap). */
  extend(key: IdKey): void;
  /** Whether `key` expired earlier (once: a later call says no), to drop its late answer. */
  takeExpired(key: IdKey): boolean;
  /** Stop the clock (nothing expires while stopped), e.g. while the asking side does not read. */
  pause(): void;
  /** Start it again: time while paused does not count against any deadline. */
  resume(): void;
  readonly paused: boolean;
  /** The table's clock, ms: real time less the time spent paused. */
  now(): number;
  /** Every request, oldest first, removed from the table (the answering side is gone). */
  drain(): PendingRequest<Meta>[];
  readonly size: number;
  /** Stop for good: no more expiries. */
  stop(): void;
}

/** A request as the table keeps it: with the order it was added in. */
interface Entry<Meta> extends PendingRequest<Meta> {
  readonly order: number;
}

/** Requests waiting above which the timer coalesces deadlines (see `earliest`). */
const MANY = 1024;
/** How long after the earliest deadline the timer fires when many wait, ms. */
const COALESCE_MS = 25;

/** Create a {@link PendingRequests} table. */
export function createPendingRequests<Meta>(
  options: PendingRequestsOptions<Meta>,
): PendingRequests<Meta> {
  const realNow = options.now ?? (() => performance.now());
  const remember = options.rememberExpired ?? 10_000;
  // Not a `Map`: one whose entries come and go keeps them past scavenges once its table is in
  // the old generation (key-table.ts), and every request with it.
  const requests = createKeyTable<IdKey, Entry<Meta>>();
  const expired = new Set<IdKey>();
  // The order requests were added in, for expiring those due at once oldest first.
  let added = 0;
  let pausedAt: number | undefined;
  let pausedTotal = 0;

  const clock = (): number => (pausedAt ?? realNow()) - pausedTotal;

  const earliest = (): number | undefined => {
    let first: number | undefined;
    requests.forEach((request) => {
      if (first === undefined || request.deadline < first) first = request.deadline;
    });
    // Finding the earliest is a scan of every request, and so is a firing: with many waiting
    // (requests sent a millisecond apart expire a millisecond apart), the timer fires a little
    // after the earliest deadline and expires all due by then, so the scans stay a few per
    // second however many wait. A deadline is a least time: never early.
    if (first !== undefined && requests.size > MANY) first += COALESCE_MS;
    return first;
  };

  const timer: DeadlineTimer = createDeadlineTimer({
    nextDeadline: earliest,
    now: clock,
    onDeadline(at) {
      const due: Entry<Meta>[] = [];
      requests.forEach((request) => {
        if (request.deadline <= at) due.push(request);
      });
      if (due.length > 1) due.sort((a, b) => a.order - b.order);
      for (const request of due) {
        // Settled or replaced by an earlier one's expiry (its handler answered for it).
        if (requests.get(request.key) !== request) continue;
        requests.take(request.key);
        expired.add(request.key);
        if (expired.size > remember) expired.delete(expired.values().next().value!);
        options.onExpired(request, request.deadline >= request.cap ? "cap" : "timeout", at);
      }
    },
  });

  const rearmFor = (deadline: number): void => {
    // Deadlines mostly come in time order: the timer moves only for an earlier one (finding
    // the earliest is a scan, so not on every request).
    const armed = timer.armedFor;
    if (armed === undefined || deadline < armed) timer.rearm({ exact: true });
  };

  return {
    add(key, meta, timing) {
      const startedAt = clock();
      const cap = startedAt + (timing.capMs ?? Number.POSITIVE_INFINITY);
      const request: Entry<Meta> = {
        key,
        meta,
        startedAt,
        timeoutMs: timing.timeoutMs,
        cap,
        deadline: Math.min(startedAt + timing.timeoutMs, cap),
        order: added++,
      };
      requests.set(key, request);
      expired.delete(key);
      rearmFor(request.deadline);
      return request;
    },
    get: (key) => requests.get(key),
    values: () => requests.values(),
    settle: (key) => requests.take(key),
    extend(key) {
      const request = requests.get(key);
      if (!request) return;
      // Later only: the timer picks a later deadline up when it fires.
      request.deadline = Math.min(clock() + request.timeoutMs, request.cap);
    },
    takeExpired(key) {
      return expired.delete(key);
    },
    pause() {
      if (pausedAt !== undefined) return;
      pausedAt = realNow();
      timer.pause();
    },
    resume() {
      if (pausedAt === undefined) return;
      pausedTotal += realNow() - pausedAt;
      pausedAt = undefined;
      timer.resume();
    },
    get paused() {
      return pausedAt !== undefined;
    },
    now: clock,
    drain() {
      const all = requests.values();
      requests.clear();
      timer.rearm();
      return all;
    },
    get size() {
      return requests.size;
    },
    stop() {
      timer.stop();
    },
  };
}
