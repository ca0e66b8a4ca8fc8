/**
 * Render a duration in ms for people: `250ms`, `59.9s`, `5m 3s`, `10m`, `1h 2m`. Negative durations
 * keep their sign.
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  const sign = ms < 0 ? "-" : "";
  const abs = Math.abs(ms);
  if (abs < 1_000) return `${sign}${Math.round(abs)}ms`;
  if (abs < 60_000) return `${sign}${(Math.round(abs / 100) / 10).toFixed(1)}s`;
  if (abs < 3_600_000) {
    const seconds = Math.floor((abs % 60_000) / 1_000);
    return `${sign}${Math.floor(abs / 60_000)}m${seconds ? ` ${seconds}s` : ""}`;
  }
  const minutes = Math.floor((abs % 3_600_000) / 60_000);
  return `${sign}${Math.floor(abs / 3_600_000)}h${minutes ? ` ${minutes}m` : ""}`;
}
