// The package's defaults alone, importable as `@cursor-wrap/events/defaults` without the rest of the
// package: the CLI's flag table prints them in `--help`, which must not load the parsers and schemas.

/** Default parse cap: lines longer than this are streamed through without parsing. */
export const DEFAULT_PARSE_CAP = 16 * 1024 * 1024;
