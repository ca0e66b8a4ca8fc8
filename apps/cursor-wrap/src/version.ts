declare const CURSOR_WRAP_VERSION: string;
/** The version, set at build time. */
export const VERSION: string =
  typeof CURSOR_WRAP_VERSION === "string" ? CURSOR_WRAP_VERSION : "0.0.0-dev";
