import type { MonitorOptions } from "./types.js";

/** Default thresholds, in milliseconds. */
export const DEFAULT_THRESHOLDS = {
  idleTimeoutMs: 60_000,
  toolGraceMs: 30_000,
  exitGraceMs: 10_000,
} as const;

/**
 * Allowances for tool kinds that usually declare no timeout and legitimately run long:
 * MCP servers (10 min), subagent tasks (30 min) and waits on background shells (10 min).
 */
export const DEFAULT_TOOL_TIMEOUTS: Readonly<Record<string, number>> = Object.freeze({
  mcp: 600_000,
  task: 1_800_000,
  await: 600_000,
});

/** Defaults of the quiet-but-working rule (R-MON11). */
export const DEFAULT_LIVENESS = {
  maxQuietMs: 1_800_000,
  maxDrainMs: 300_000,
  minCpuFraction: 0.05,
  minIoBytesPerSecond: 256,
} as const;

/** How long the agent may wait, silent, on background work by default, ms. */
export const DEFAULT_BACKGROUND_WAIT_MS = 600_000;

/** The quiet-but-working thresholds, checked and with their defaults filled in. */
export interface LivenessThresholds {
  maxQuietMs: number;
  maxDrainMs: number;
  minCpuFraction: number;
  minIoBytesPerSecond: number;
}

/** {@link MonitorOptions} checked, with every default filled in: what the rules read. */
export interface Thresholds {
  idleTimeoutMs: number;
  toolGraceMs: number;
  exitGraceMs: number;
  /** Off when undefined. */
  maxTurnMs: number | undefined;
  warnFraction: number;
  /** Per kind, over {@link DEFAULT_TOOL_TIMEOUTS}. */
  toolTimeouts: ReadonlyMap<string, number>;
  firstOutputMs: number;
  backgroundWaitMs: number;
  /** Off when undefined. */
  liveness: LivenessThresholds | undefined;
}

/** A duration >= 0, ms; `Infinity` means no limit. */
function nonNegative(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || Number.isNaN(value) || value < 0) {
    throw new RangeError(
      `${name} must be a number of milliseconds >= 0 (or Infinity), got ${value}`,
    );
  }
  return value;
}

/**
 * Check a monitor's options as `createMonitor` does, without making one: a `RangeError` names
 * the first bad one (a caller that starts a process checks them before it does).
 */
export function checkMonitorOptions(options: MonitorOptions): void {
  resolveThresholds(options);
}

/** Check the options (a `RangeError` names the first bad one) and fill in the defaults. */
export function resolveThresholds(options: MonitorOptions): Thresholds {
  const idleTimeoutMs = nonNegative(
    "idleTimeoutMs",
    options.idleTimeoutMs,
    DEFAULT_THRESHOLDS.idleTimeoutMs,
  );
  const toolGraceMs = nonNegative(
    "toolGraceMs",
    options.toolGraceMs,
    DEFAULT_THRESHOLDS.toolGraceMs,
  );
  const exitGraceMs = nonNegative(
    "exitGraceMs",
    options.exitGraceMs,
    DEFAULT_THRESHOLDS.exitGraceMs,
  );
  const maxTurnMs =
    options.maxTurnMs === undefined ? undefined : nonNegative("maxTurnMs", options.maxTurnMs, 0);
  const warnFraction = options.warnFraction ?? 0.5;
  if (!(warnFraction >= 0 && warnFraction < 1)) {
    throw new RangeError(`warnFraction must be in [0, 1), got ${warnFraction}`);
  }
  // Kinds come from the agent's output: a Map, so `constructor` or `__proto__` is just a kind.
  const toolTimeouts = new Map<string, number>(Object.entries(DEFAULT_TOOL_TIMEOUTS));
  for (const [kind, ms] of Object.entries(options.toolTimeouts ?? {})) {
    toolTimeouts.set(kind, nonNegative(`toolTimeouts.${kind}`, ms, 0));
  }
  return {
    idleTimeoutMs,
    toolGraceMs,
    exitGraceMs,
    maxTurnMs,
    warnFraction,
    toolTimeouts,
    firstOutputMs: nonNegative("firstOutputMs", options.firstOutputMs, idleTimeoutMs),
    backgroundWaitMs: nonNegative(
      "backgroundWaitMs",
      options.backgroundWaitMs,
      DEFAULT_BACKGROUND_WAIT_MS,
    ),
    liveness: options.liveness ? resolveLiveness(options.liveness) : undefined,
  };
}

function resolveLiveness(options: NonNullable<MonitorOptions["liveness"]>): LivenessThresholds {
  return {
    maxQuietMs: nonNegative("liveness.maxQuietMs", options.maxQuietMs, DEFAULT_LIVENESS.maxQuietMs),
    maxDrainMs: nonNegative("liveness.maxDrainMs", options.maxDrainMs, DEFAULT_LIVENESS.maxDrainMs),
    minCpuFraction: nonNegative(
      "liveness.minCpuFraction",
      options.minCpuFraction,
      DEFAULT_LIVENESS.minCpuFraction,
    ),
    minIoBytesPerSecond: nonNegative(
      "liveness.minIoBytesPerSecond",
      options.minIoBytesPerSecond,
      DEFAULT_LIVENESS.minIoBytesPerSecond,
    ),
  };
}

/**
 * How long a tool call may run, from its start, before it counts as expired: the timeout it
 * declared, else its kind's allowance, else `idleTimeoutMs`; plus `toolGraceMs`. A declared
 * timeout is the agent's word: only a finite, non-negative one counts.
 */
export function toolAllowance(
  kind: string,
  declared: number | undefined,
  thresholds: Thresholds,
): number {
  return (
    (declared !== undefined && Number.isFinite(declared) && declared >= 0
      ? declared
      : (thresholds.toolTimeouts.get(kind) ?? thresholds.idleTimeoutMs)) + thresholds.toolGraceMs
  );
}
