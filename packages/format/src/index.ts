export { combineFormatters, createAnswerFormatter } from "./answer.js";
export type { AssistantText } from "./assistant-text.js";
export { createAssistantText } from "./assistant-text.js";
export { createFormatter } from "./create-formatter.js";
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
