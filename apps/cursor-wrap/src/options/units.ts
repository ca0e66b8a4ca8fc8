import { UsageError } from "../usage-error.js";

const DURATION_UNITS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};
const SIZE_UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  k: 1_000,
  kb: 1_000,
  kib: 1_024,
  m: 1_000_000,
  mb: 1_000_000,
  mib: 1_048_576,
  g: 1_000_000_000,
  gb: 1_000_000_000,
  gib: 1_073_741_824,
};

/**
 * Parse a duration: a number with a unit, `500ms`, `30s`, `1.5m`, `1h`, `7d`, or `0`. A bare
 * number is refused: `--idle-timeout 60` would be read as 60 ms by some and 60 s by others.
 */
export function parseDuration(text: string, flag: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/i.exec(text);
  const value = match ? Number(match[1]) : Number.NaN;
  if (!match || (match[2] === undefined && value !== 0)) {
    throw new UsageError(
      `${flag} takes a duration such as 500ms, 30s, 5m or 1h, not ${JSON.stringify(text)}`,
    );
  }
  return Math.round(value * (DURATION_UNITS[(match[2] ?? "ms").toLowerCase()] ?? 1));
}

/** Parse a byte size: `16MiB`, `1MB`, `512KiB`, or a number of bytes. */
export function parseSize(text: string, flag: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([kmg]?i?b?)\s*$/i.exec(text);
  const unit = match ? SIZE_UNITS[(match[2] ?? "").toLowerCase()] : undefined;
  if (!match || unit === undefined) {
    throw new UsageError(
      `${flag} takes a size such as 16MiB, 1MB or 65536, not ${JSON.stringify(text)}`,
    );
  }
  return Math.round(Number(match[1]) * unit);
}

/** Parse `kind=duration,…`, e.g. `mcp=10m,task=30m` (`mcp=off`: no limit for that kind). */
export function parseToolTimeouts(text: string, flag: string): Record<string, number> {
  const timeouts: Record<string, number> = {};
  for (const part of text
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean)) {
    const equals = part.indexOf("=");
    const kind = part.slice(0, equals).trim();
    if (equals <= 0 || !kind)
      throw new UsageError(`${flag} takes kind=duration pairs such as mcp=10m,task=30m`);
    const value = part.slice(equals + 1);
    timeouts[kind] = /^\s*(off|none)\s*$/i.test(value)
      ? Number.POSITIVE_INFINITY
      : parseDuration(value, `${flag} ${kind}`);
  }
  return timeouts;
}

/**
 * Show a duration in the unit it would be written in: the largest unit that divides it
 * exactly at least twice (`60s`, `10m`, `7d`, `500ms`), so defaults read as they are typed.
 */
export function showDuration(ms: number): string {
  for (const [unit, size] of [
    ["d", 86_400_000],
    ["h", 3_600_000],
    ["m", 60_000],
    ["s", 1_000],
  ] as const) {
    if (ms % size === 0 && ms / size >= 2) return `${ms / size}${unit}`;
  }
  return ms % 1_000 === 0 && ms > 0 ? `${ms / 1_000}s` : `${ms}ms`;
}

/** Show a byte size the way it would be written: `16MiB`, `64KiB`, or bytes. */
export function showSize(bytes: number): string {
  if (bytes % 1_048_576 === 0 && bytes > 0) return `${bytes / 1_048_576}MiB`;
  if (bytes % 1_024 === 0 && bytes > 0) return `${bytes / 1_024}KiB`;
  return String(bytes);
}
