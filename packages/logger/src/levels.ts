// The one table of log levels, as pino numbers them (pino's lib/levels.js). Every record table
// (the CLI's, the MCP and ACP proxies'), the console sink and the log readers take their levels
// from here.

/** Log levels, as pino numbers them; `silent` is above every level (nothing is printed). */
export const LEVELS = {
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  silent: Number.POSITIVE_INFINITY,
} as const;

/** A level name, or `silent` for none. */
export type LevelName = keyof typeof LEVELS;

/** A level a record is written at: every level but `silent`. */
export type RecordLevel = Exclude<LevelName, "silent">;

/** The name of a level by its number, for showing records (pino's `fatal` included). */
export const LEVEL_LABELS: Readonly<Record<number, string>> = {
  [LEVELS.debug]: "debug",
  [LEVELS.info]: "info",
  [LEVELS.warn]: "warn",
  [LEVELS.error]: "error",
  60: "fatal",
};
