export type { AssistantText } from "./assistant-text.js";
export { createAssistantText } from "./assistant-text.js";
export type {
  ContractError,
  ContractEvent,
  ContractEventType,
  ContractFinishReason,
  ContractNormalizer,
  ContractNormalizerOptions,
  ContractToolCall,
  ContractUsage,
} from "./contract.js";
export { CONTRACT_PROTOCOL_VERSION, createContractNormalizer } from "./contract.js";
export type { ContractErrorCode, ContractErrorSource } from "./contract-errors.js";
export { CONTRACT_ERROR_CODES, CONTRACT_ERRORS, contractErrorCode } from "./contract-errors.js";
export type { ContractTool, ToolViolation } from "./contract-tools.js";
export {
  allowingTool,
  canonicalToolName,
  checkToolCall,
  toolCallArgs,
} from "./contract-tools.js";
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
