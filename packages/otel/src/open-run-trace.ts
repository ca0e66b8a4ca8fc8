// Loads OpenTelemetry only when a run traces: importing this package costs nothing else.

import type { RunTrace, RunTraceOptions } from "./run-trace.js";

/**
 * Load the OpenTelemetry SDK and start the trace of a run (see `createRunTrace`). The SDK and
 * the OTLP exporter are imported here, on first use, never at start-up.
 */
export async function openRunTrace(options: RunTraceOptions = {}): Promise<RunTrace> {
  const { createRunTrace } = await import("./run-trace.js");
  return createRunTrace(options);
}
