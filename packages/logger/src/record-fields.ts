// Reading fields of a record of a session log, as parsed back (`logs show`, a run report, a
// trace, a notification). A log is data from outside (a crash can cut it, an older cursor-wrap
// wrote fewer fields): every reader checks the type and answers undefined. Nothing else loads
// with this entry (`@cursor-wrap/logger/record-fields`).

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

/** An array of strings field (other items dropped), or undefined. */
export function strings(record: LogRecord | undefined, name: string): string[] | undefined {
  const value = record?.[name];
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === "string")
    : undefined;
}

/** The record's time: `ts` (when the decision was made), else pino's `time`, epoch ms. */
export function timeOf(record: LogRecord): number | undefined {
  return count(record, "ts") ?? count(record, "time");
}

/**
 * The model an `agent_spawn` record's agent ran on: its `model` (one cursor-wrap chose, a
 * fallback), else the last `--model`/`-m` among its `args` (the user's own), else undefined
 * (the agent's default).
 */
export function spawnModel(record: LogRecord): string | undefined {
  const chosen = text(record, "model");
  if (chosen !== undefined) return chosen;
  const args = strings(record, "args") ?? [];
  let model: string | undefined;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index]!;
    if (arg === "--") break;
    if (arg === "--model" || arg === "-m") model = args[index + 1] ?? model;
    else if (arg.startsWith("--model=")) model = arg.slice("--model=".length);
    else if (/^-m[^-]/.test(arg)) model = arg.slice(2);
  }
  return model;
}
