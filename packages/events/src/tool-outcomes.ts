// The outcome keys a tool call's `result` can hold, shared by the schemas and the extractors.
// Kept free of zod so the extractors load without it.

/** Outcome keys other than `success` that a `result` may hold (one per result). */
export const FAILURE_OUTCOMES = [
  "rejected",
  "error",
  "failure",
  "timeout",
  "spawnError",
  "permissionDenied",
  "readPermissionDenied",
  "writePermissionDenied",
  "fileNotFound",
  "invalidFile",
  "notFile",
  "fileBusy",
  "noSpace",
  "sandboxUnsupported",
  "notFound",
  "serverNotFound",
  "toolNotFound",
] as const;

/** Outcome keys that say the work continues. */
export const PENDING_OUTCOMES = ["approved", "async", "stillRunning", "needsConfirmation"] as const;

const PENDING: ReadonlySet<string> = new Set(PENDING_OUTCOMES);

/** Whether an outcome key says the work goes on (`stillRunning`, `async`, …). */
export function isPendingOutcome(outcome: string): boolean {
  return PENDING.has(outcome);
}

/** Every outcome key this side knows: `success`, the failures, the pending states. */
export const KNOWN_OUTCOMES: ReadonlySet<string> = new Set([
  "success",
  ...FAILURE_OUTCOMES,
  ...PENDING_OUTCOMES,
]);
