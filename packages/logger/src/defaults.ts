// The package's defaults alone, importable as `@cursor-wrap/logger/defaults` without the rest of the
// package: the CLI's flag table prints them in `--help`, which must not load pino.

/** Log levels, as pino numbers them. */
export const LEVELS = {
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  silent: Number.POSITIVE_INFINITY,
} as const;

/** A level name, or `silent` for none. */
export type LevelName = keyof typeof LEVELS;

/** How long session logs are kept by default: 7 days (flagged ones twice as long), ms. */
export const DEFAULT_RETENTION_MS = 7 * 86_400_000;
