// Kept here for existing users: the rule now lives in @cursor-wrap/events, beside the
// contract normaliser that uses it too.
export { type AssistantText, createAssistantText } from "@cursor-wrap/events";
export { combineFormatters, createAnswerFormatter } from "./answer.js";
export { createFormatter } from "./create-formatter.js";
export type { ContractStreamOptions } from "./events.js";
export { createContractStream, createEventsFormatter } from "./events.js";
export type {
  Formatter,
  FormatterOptions,
  NoticeTiming,
  Output,
  OutputFormat,
  TurnSummary,
  WrapperDecision,
} from "./types.js";
export { isTerminal, wrapperLine, wrapperSubtype } from "./wrapper-line.js";
