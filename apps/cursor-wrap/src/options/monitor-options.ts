// The monitor's options from the run's flag table: each threshold row names the monitor option
// it feeds (`monitor: "idleTimeoutMs"`), and this is the only code that reads those names. A
// run, `acp` and `replay` build the monitor's options here; the session log records them as
// one object, and `replay` reads that object back here.

import type { MonitorOptions } from "@cursor-wrap/monitor";
import { type FlagDefinition, type MonitorRow, type OptionsOf, rowsOf } from "./flag-table.js";
import { FLAGS } from "./flags.js";

/** The keys of the rows that feed a monitor option. */
type MonitorKey = MonitorRow<(typeof FLAGS)[number]>["key"];

/** The rows of the run's table that feed a monitor option: the run's, `acp`'s and `replay`'s. */
export const MONITOR_FLAGS = rowsOf(
  FLAGS,
  FLAGS.flatMap((row): MonitorKey[] => (row.monitor === undefined ? [] : [row.key as MonitorKey])),
);

/** The monitor's thresholds, as the flags set them. */
export type MonitorThresholds = OptionsOf<typeof MONITOR_FLAGS>;

const pathOf = (row: FlagDefinition): string[] => (row.monitor ?? "").split(".");

/**
 * The monitor's options as the flags set them (a live turn, `acp` and `replay` alike). A value
 * left undefined (`--max-turn-duration off`) is left out: the monitor's own default applies.
 */
export function monitorOptions(thresholds: MonitorThresholds): MonitorOptions {
  const options: Record<string, unknown> = {};
  for (const row of MONITOR_FLAGS) {
    const value = thresholds[row.key];
    if (value === undefined) continue;
    const [first, second] = pathOf(row);
    if (second === undefined) options[first!] = value;
    else options[first!] = { ...(options[first!] as object | undefined), [second]: value };
  }
  // Quiet but working (R-MON11): `--max-quiet 0` leaves silence alone to decide.
  const liveness = options.liveness as MonitorOptions["liveness"];
  if (liveness?.maxQuietMs === 0) delete options.liveness;
  return options as MonitorOptions;
}

/**
 * The flags' values that gave `options` (what {@link monitorOptions} made, read back from a
 * session log): each row's value at its path, where there is one. A log writes `null` for an
 * `Infinity` (JSON has none): `off`.
 */
export function monitorThresholdsOf(options: unknown): Partial<MonitorThresholds> {
  if (typeof options !== "object" || options === null) return {};
  const recorded = options as Record<string, unknown>;
  const thresholds: Record<string, unknown> = {};
  for (const row of MONITOR_FLAGS) {
    const [first, second] = pathOf(row);
    const holder = second === undefined ? recorded : recorded[first!];
    if (typeof holder !== "object" || holder === null) continue;
    const value = offAsInfinity((holder as Record<string, unknown>)[second ?? first!]);
    if (value !== undefined) thresholds[row.key] = value;
  }
  // Recorded without liveness: `--max-quiet 0`, silence alone decided.
  if (!("liveness" in recorded)) thresholds.maxQuietMs = 0;
  return thresholds as Partial<MonitorThresholds>;
}

/** A recorded duration (or map of durations), `null` read as `Infinity`; anything else: none. */
function offAsInfinity(value: unknown): unknown {
  if (value === null) return Number.POSITIVE_INFINITY;
  if (typeof value === "number") return value;
  if (typeof value !== "object" || Array.isArray(value)) return undefined;
  const entries = Object.entries(value as Record<string, unknown>).flatMap(([key, item]) => {
    const ms = offAsInfinity(item);
    return typeof ms === "number" ? [[key, ms] as const] : [];
  });
  return Object.fromEntries(entries);
}
