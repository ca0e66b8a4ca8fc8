// The package's defaults alone, importable as `@cursor-wrap/monitor/defaults` without the rest of the
// package: the CLI's flag table prints them in `--help`, which must not load the monitor.

export {
  DEFAULT_BACKGROUND_WAIT_MS,
  DEFAULT_LIVENESS,
  DEFAULT_THRESHOLDS,
  DEFAULT_TOOL_TIMEOUTS,
} from "./thresholds.js";

/** The longest delay `setTimeout` takes (2^31 − 1 ms, about 24.8 days); longer ones fire at once. */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;
