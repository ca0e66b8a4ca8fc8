export type { AgentArgsInput, AgentArgument, AgentArgumentRole } from "./agent-args.js";
export { requestedModel, turnArgs } from "./agent-args.js";
export { agentCandidates, findAgentBinary } from "./agent-binary.js";
export type { DrainableOutput, StderrMode, StderrShow } from "./agent-output.js";
export { agentStatusSummary } from "./agent-status.js";
export {
  agentVersionOf,
  isNewerAgentVersion,
  NEWEST_TESTED_AGENT_VERSION,
} from "./agent-version.js";
export type { GaveUp, NextStep, Recovery, SessionState } from "./decide-after-turn.js";
export { decideAfterTurn } from "./decide-after-turn.js";
export type { CancelReason, Ending } from "./ending.js";
export { EXIT, endingFlags, endingOfCancel, exitCodeOf, signalExitCode } from "./ending.js";
export { RunUsageError } from "./errors.js";
export { failureMessage, recoveryHint } from "./failure-message.js";
export { createBufferFreer, exposedCollector, LARGE_LINE_BYTES } from "./free-forwarded-buffers.js";
export type { FinalVerdict, RecordFields, RecordName, RecordSpec } from "./log-records.js";
export {
  FOREIGN_RECORDS,
  isKnownRecord,
  MONITOR_WARNINGS_SHOWN,
  RECORDS,
  recordsWhere,
  VERDICT_RECORDS,
  verdictOf,
  writeRecord,
} from "./log-records.js";
export { discardingLog } from "./no-log.js";
export type { WaitDisplay, WaitOutcome } from "./recovery-wait.js";
export { waitBetweenAttempts } from "./recovery-wait.js";
export { redactSecretArgs } from "./redact-args.js";
export type { ResourceStats } from "./resources.js";
export { resourceStats } from "./resources.js";
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
export { runTurn } from "./run-turn.js";
export type {
  AttemptStart,
  PromptInput,
  PromptSource,
  RunAttempt,
  SessionContext,
  SessionControl,
  SessionResult,
} from "./session.js";
export { runInteractiveSession, runPrintSession } from "./session.js";
export type { TurnFacts, TurnFactsCollector } from "./turn-facts.js";
export { createTurnFacts } from "./turn-facts.js";
export type { TurnBase, TurnOutcome, TurnResult } from "./turn-result.js";
export { failureOfTurn, turnFailed } from "./turn-result.js";
