// The package's defaults alone, importable as `@cursor-wrap/logger/defaults` without the rest of the
// package: the CLI's flag table prints them in `--help`, which must not load pino.

export { LEVELS, type LevelName } from "./levels.js";

/** How long session logs are kept by default: 7 days (flagged ones twice as long), ms. */
export const DEFAULT_RETENTION_MS = 7 * 86_400_000;
