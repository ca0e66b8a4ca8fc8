// The package's defaults alone, importable as `@cursor-wrap/supervisor/defaults` without the rest of the
// package: the CLI's flag table prints them in `--help`, which must not load the process code.

/** Default time between SIGTERM and SIGKILL when killing the agent's tree, ms. */
export const DEFAULT_KILL_GRACE_MS = 3_000;

/** Default time the agent's output may stay open after it exited, ms (R-SUP6b). */
export const DEFAULT_DRAIN_GRACE_MS = 2_000;
