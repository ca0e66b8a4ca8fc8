// The part of @cursor-wrap/events that needs no Node built-ins: for browsers and other
// runtimes. Parse lines yourself (`JSON.parse`), wrap them with `eventOf`, and read them with
// the same extractors the Node entry has. The zod schemas are at `@cursor-wrap/events/schemas`.

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
export {
  isSupportedProtocolVersion,
  protocolVersionOf,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "./protocol.js";
export { terminalSafe, terminalSafeJson, withoutTerminalUnsafe } from "./terminal-safe.js";
export type { ToolCallInfo, ToolResult } from "./tool-call.js";
export { toolCallInfo, toolKindSpec, toolResult } from "./tool-call.js";
export type { ToolArgsSummary, ToolKindSpec, ToolSuccessSummary } from "./tool-kinds.js";
export { TOOL_KINDS } from "./tool-kinds.js";
export { FAILURE_OUTCOMES, PENDING_OUTCOMES } from "./tool-outcomes.js";
export type { EventLike, JsonObject } from "./types.js";
