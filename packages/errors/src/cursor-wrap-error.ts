/** Options for {@link CursorWrapError}. */
export interface CursorWrapErrorOptions {
  /** The underlying error, kept as `cause`. */
  cause?: unknown;
}

/** A class with the static `marker` every cursor-wrap error class declares. */
type ErrorClass = abstract new (...args: never[]) => CursorWrapError;

function markerOf(errorClass: unknown): symbol | undefined {
  const marker = (errorClass as { marker?: unknown }).marker;
  return typeof marker === "string" ? Symbol.for(marker) : undefined;
}

/**
 * Base class of every error the cursor-wrap packages throw: a stable `code` to branch on and
 * a marker per class, so `isInstance()` works across duplicate installs of a package, where
 * `instanceof` would not.
 *
 * Each subclass declares its own `static readonly marker` (e.g. `"cursor-wrap.error.log-dir"`).
 * An error carries the marker of its class and of every class above it, so
 * `LogDirError.isInstance(error)` is true only for a `LogDirError` (or a subclass of it), and
 * `CursorWrapError.isInstance(error)` for any of them.
 */
export class CursorWrapError extends Error {
  /** The identity of this class, shared by every copy of the package (`Symbol.for`). */
  static readonly marker: string = "cursor-wrap.error";

  /** Stable, machine-readable error code, e.g. `AGENT_SPAWN_FAILED`. */
  readonly code: string;

  constructor(code: string, message: string, options: CursorWrapErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.name = new.target.name;
    for (
      let errorClass: unknown = new.target;
      typeof errorClass === "function" && errorClass !== Error;
      errorClass = Object.getPrototypeOf(errorClass)
    ) {
      // A subclass that declares no marker of its own must not pass for its parent's check only.
      if (!Object.hasOwn(errorClass, "marker")) {
        throw new TypeError(
          `${(errorClass as { name: string }).name} must declare a static marker`,
        );
      }
      const marker = markerOf(errorClass);
      if (marker) Object.defineProperty(this, marker, { value: true });
    }
  }

  /**
   * True for an error of this class (or a subclass of it), whichever copy of the package threw
   * it. `CursorWrapError.isInstance(value)` is true for any cursor-wrap error.
   */
  static isInstance<T extends ErrorClass>(this: T, value: unknown): value is InstanceType<T> {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class the check is called on.
    const marker = markerOf(this);
    return (
      marker !== undefined &&
      typeof value === "object" &&
      value !== null &&
      (value as Record<symbol, unknown>)[marker] === true
    );
  }

  /** True when `value` is a cursor-wrap error with the given code. */
  static hasCode(value: unknown, code: string): value is CursorWrapError {
    return CursorWrapError.isInstance(value) && value.code === code;
  }
}
