const BRAND = Symbol.for("cursor-wrap.error");

/** Options for {@link CursorWrapError}. */
export interface CursorWrapErrorOptions {
  /** The underlying error, kept as `cause`. */
  cause?: unknown;
}

/**
 * Base class of every error the cursor-wrap packages throw: a stable `code` to branch on and
 * a brand so `isInstance()` works across duplicate installs of a package, where `instanceof`
 * would not.
 */
export class CursorWrapError extends Error {
  /** Stable, machine-readable error code, e.g. `AGENT_SPAWN_FAILED`. */
  readonly code: string;

  constructor(code: string, message: string, options: CursorWrapErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.name = new.target.name;
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** True for any error thrown by a cursor-wrap package, whichever copy of it threw. */
  static isInstance(value: unknown): value is CursorWrapError {
    return (
      typeof value === "object" &&
      value !== null &&
      (value as Record<symbol, unknown>)[BRAND] === true
    );
  }

  /** True when `value` is a cursor-wrap error with the given code. */
  static hasCode(value: unknown, code: string): value is CursorWrapError {
    return CursorWrapError.isInstance(value) && value.code === code;
  }
}
