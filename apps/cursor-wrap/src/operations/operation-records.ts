// The records the run's operations (report, trace, notifications) write into the session log,
// kept apart from the turn loop's vocabulary (log-records.ts), which lists them as foreign.

/** The records written by `run-operations.ts`, by message. */
export const OPERATION_RECORDS = [
  "operations",
  "notify_sent",
  "notify_failed",
  "otel_export_failed",
  "report_write_failed",
] as const;
