// The usage counts of a logged record; the other fields are read with
// `@cursor-wrap/logger/record-fields`.

import { count, type LogRecord } from "@cursor-wrap/logger/record-fields";

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
