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
export type { LineFramer, LineFramerOptions } from "./line-framer.js";
export { createLineFramer, createLineFramerStream, DEFAULT_PARSE_CAP } from "./line-framer.js";
export { instant, parseLine } from "./parse-line.js";
export {
  isSupportedProtocolVersion,
  protocolVersionOf,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "./protocol.js";
export { isPlausibleSessionId, shellWord } from "./session-id.js";
export { terminalSafe } from "./terminal-safe.js";
export type { ToolCallInfo, ToolResult } from "./tool-call.js";
export { toolCallInfo, toolKindSpec, toolOutcome, toolResult } from "./tool-call.js";
export type { ToolArgsSummary, ToolKindSpec, ToolSuccessSummary } from "./tool-kinds.js";
export { TOOL_KINDS } from "./tool-kinds.js";
export { FAILURE_OUTCOMES, PENDING_OUTCOMES } from "./tool-outcomes.js";
export type {
  AgentEvent,
  EventLike,
  Instant,
  JsonEvent,
  JsonObject,
  LineEnding,
  OversizePiece,
  TextLine,
  TextReason,
} from "./types.js";
