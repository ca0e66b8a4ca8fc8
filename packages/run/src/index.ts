export type { AgentArgsInput, AgentArgument, AgentArgumentRole } from "./agent-args.js";
export { requestedModel, signInArgs, turnArgs } from "./agent-args.js";
export { findAgentBinary } from "./agent-binary.js";
export type { DrainableOutput, StderrMode, StderrShow } from "./agent-output.js";
export type { GaveUp, NextStep, Recovery, SessionState } from "./decide-after-turn.js";
export type { CancelReason, Ending } from "./ending.js";
export { EXIT, endingFlags, endingOfCancel, exitCodeOf, signalExitCode } from "./ending.js";
export { RunUsageError } from "./errors.js";
export { createBufferFreer } from "./free-forwarded-buffers.js";
export type { FinalVerdict, RecordFields, RecordName, RecordSpec } from "./log-records.js";
export {
  closeLogAfterFailure,
  isKnownRecord,
  RECORDS,
  recordsWhere,
  verdictOf,
  writeRecord,
} from "./log-records.js";
export type { WaitDisplay, WaitOutcome } from "./recovery-wait.js";
export type { ResourceStats } from "./resources.js";
export type {
  AgentRun,
  RunAgentOptions,
  RunEvent,
  RunEventSelection,
  RunHost,
  RunLogOption,
  RunResult,
} from "./run-agent.js";
export { runAgent } from "./run-agent.js";
export type {
  TerminalSize,
  TurnContext,
  TurnRequest,
  TurnSettings,
  TurnTools,
} from "./run-turn.js";
export type {
  AttemptStart,
  PromptInput,
  PromptSource,
  RunAttempt,
  SessionContext,
  SessionControl,
  SessionResult,
} from "./session.js";
export type { TurnFacts, TurnFactsCollector } from "./turn-facts.js";
export type { TurnBase, TurnOutcome, TurnResult } from "./turn-result.js";
export { capYoungGeneration, type YoungGenerationControl } from "./young-generation.js";
