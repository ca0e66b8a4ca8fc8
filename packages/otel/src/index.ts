export type { LogRecord } from "@cursor-wrap/logger/record-fields";
export {
  CURSOR_WRAP,
  ERROR_TIMEOUT,
  GENAI,
  GENAI_SEMCONV_VERSION,
  OPERATION,
  PROVIDER_CURSOR,
} from "./genai-attributes.js";
export { openRunTrace } from "./open-run-trace.js";
export type { RunTrace, RunTraceOptions } from "./run-trace.js";
export {
  endpointOrigin,
  tracesEndpoint,
  tracesEndpointProblem,
  tracesProtocolWarning,
  tracesRequested,
} from "./traces-requested.js";
