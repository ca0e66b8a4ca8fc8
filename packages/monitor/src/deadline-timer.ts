import { MAX_TIMER_DELAY_MS } from "./defaults.js";

export { MAX_TIMER_DELAY_MS };

/** Options for {@link createDeadlineTimer}. Times are monotonic milliseconds. */
export interface DeadlineTimerOptions {
  /**
   * When something can next change (e.g. `() => monitor.nextDeadline()`), or undefined when
   * nothing can. Asked on every {@link DeadlineTimer.rearm}.
   */
  nextDeadline: () => number | undefined;
  /**
   * The deadline has arrived: look (e.g. `monitor.check(now)`) and act. The timer re-arms
   * itself afterwards unless this called `stop()` or `pause()`.
   */
  onDeadline: (now: number) => void;
  /** Monotonic clock, ms. Default `performance.now()`. */
  now?: () => number;
}

/** One timer, armed at the next deadline: the "no polling" rule of the house, in one place. */
export interface DeadlineTimer {
  /**
   * Arm the timer at `nextDeadline()`. Cheap to call after every event: by default the timer
   * is moved only when the deadline came earlier (a later deadline is picked up when the timer
   * fires, so a stream of events causes no timer churn). `exact: true` moves it to the
   * deadline either way, so a long wait (a tool call declaring ten minutes) sleeps until then.
   */
  rearm(options?: { exact?: boolean }): void;
  /** Disarm until {@link resume} (e.g. while output is held up by a slow reader). */
  pause(): void;
  /** Undo {@link pause} and re-arm. */
  resume(): void;
  /** Disarm for good: later `rearm()` and `resume()` calls do nothing. */
  stop(): void;
  /** The deadline the timer is armed for, if it is armed. */
  readonly armedFor: number | undefined;
}

/**
 * Keep one timer armed at the earliest deadline of a state machine such as the hang monitor,
 * and call back when it arrives. Deadlines further away than `setTimeout` can wait are reached
 * in steps, so any duration works (a 60-day idle timeout neither fires at once nor spins).
 */
export function createDeadlineTimer(options: DeadlineTimerOptions): DeadlineTimer {
  const now = options.now ?? (() => performance.now());
  let timer: ReturnType<typeof setTimeout> | undefined;
  let armedFor: number | undefined;
  let paused = false;
  let stopped = false;

  const disarm = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    armedFor = undefined;
  };

  const arm = (deadline: number): void => {
    disarm();
    armedFor = deadline;
    const delay = Math.min(MAX_TIMER_DELAY_MS, Math.max(0, Math.ceil(deadline - now())));
    timer = setTimeout(fire, delay);
  };

  function fire(): void {
    timer = undefined;
    const deadline = armedFor;
    armedFor = undefined;
    const current = now();
    if (deadline !== undefined && current < deadline) {
      // A step of a wait longer than setTimeout allows: keep waiting.
      arm(deadline);
      return;
    }
    options.onDeadline(current);
    rearm({ exact: true });
  }

  function rearm(rearmOptions: { exact?: boolean } = {}): void {
    if (paused || stopped) return;
    const deadline = options.nextDeadline();
    // No deadline, or one that can never arrive: nothing to wait for.
    if (deadline === undefined || !Number.isFinite(deadline)) {
      disarm();
      return;
    }
    if (timer !== undefined && armedFor !== undefined) {
      if (rearmOptions.exact ? deadline === armedFor : deadline >= armedFor) return;
    }
    arm(deadline);
  }

  return {
    rearm,
    pause() {
      paused = true;
      disarm();
    },
    resume() {
      paused = false;
      rearm({ exact: true });
    },
    stop() {
      stopped = true;
      disarm();
    },
    get armedFor() {
      return armedFor;
    },
  };
}
