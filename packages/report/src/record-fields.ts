// How a report writes what it read from the log: times, and lines kept short. The fields
// themselves are read with `@cursor-wrap/logger/record-fields`.

/** Epoch ms as ISO 8601. */
export function iso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

/** A line for people kept short: at most `max` characters, cut with an ellipsis. */
export function clip(line: string, max: number): string {
  return line.length <= max ? line : `${line.slice(0, Math.max(0, max - 1))}…`;
}
