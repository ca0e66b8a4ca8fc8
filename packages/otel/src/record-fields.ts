// Reading fields of a session log record: data from outside, every reader checks the type.

/** A record of the session log, as parsed. */
export type LogRecord = Readonly<Record<string, unknown>>;

/** A string field, or undefined. */
export function text(record: LogRecord | undefined, name: string): string | undefined {
  const value = record?.[name];
  return typeof value === "string" ? value : undefined;
}

/** A finite number field, or undefined. */
export function count(record: LogRecord | undefined, name: string): number | undefined {
  const value = record?.[name];
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** An object field (not an array), or undefined. */
export function object(record: LogRecord | undefined, name: string): LogRecord | undefined {
  const value = record?.[name];
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as LogRecord)
    : undefined;
}

/** The record's time: `ts` (when the decision was made), else pino's `time`, epoch ms. */
export function timeOf(record: LogRecord): number | undefined {
  return count(record, "ts") ?? count(record, "time");
}

/** Cursor's usage counts (camelCase as the agent writes them, or snake_case). */
export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** The usage of a `turn_end` record's `usage`, if it has any count. */
export function usageOf(usage: LogRecord | undefined): Usage | undefined {
  if (!usage) return undefined;
  const input = count(usage, "inputTokens") ?? count(usage, "input_tokens");
  const output = count(usage, "outputTokens") ?? count(usage, "output_tokens");
  const cacheRead = count(usage, "cacheReadTokens") ?? count(usage, "cache_read_tokens");
  const cacheWrite = count(usage, "cacheWriteTokens") ?? count(usage, "cache_write_tokens");
  if ([input, output, cacheRead, cacheWrite].every((value) => value === undefined))
    return undefined;
  return {
    input: input ?? 0,
    output: output ?? 0,
    cacheRead: cacheRead ?? 0,
    cacheWrite: cacheWrite ?? 0,
  };
}
