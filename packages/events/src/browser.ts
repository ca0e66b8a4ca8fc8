// The part of @cursor-wrap/events that needs no Node built-ins: for browsers and other
// runtimes. Parse lines yourself (`JSON.parse`), wrap them with `eventOf`, and read them with
// the same extractors the Node entry has. The zod schemas are at `@cursor-wrap/events/schemas`.

export { eventOf, eventTypeOf } from "./event-type.js";
export type { AssistantForm, AssistantMessage, ResultInfo, Usage } from "./extract.js";
export {
  assistantMessage,
  recordedTimeline,
  resultInfo,
  sessionIdOf,
  timestampOf,
  toMonitorSignal,
  userPrompt,
} from "./extract.js";
export {
  isSupportedProtocolVersion,
  protocolVersionOf,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "./protocol.js";
export { terminalSafe } from "./terminal-safe.js";
export type { ToolCallInfo, ToolResult } from "./tool-call.js";
export { toolCallInfo, toolKindSpec, toolResult } from "./tool-call.js";
export type { ToolArgsSummary, ToolKindSpec, ToolSuccessSummary } from "./tool-kinds.js";
export { TOOL_KINDS } from "./tool-kinds.js";
export { FAILURE_OUTCOMES, PENDING_OUTCOMES } from "./tool-outcomes.js";
export type { EventLike, JsonObject } from "./types.js";
