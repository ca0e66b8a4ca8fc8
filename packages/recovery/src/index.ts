export type { AttemptReport, AttemptsSummary, UsageCounts } from "./attempts.js";
export { modelLabel, summarizeAttempts, sumUsage } from "./attempts.js";
export type { BackoffOptions } from "./backoff.js";
export { backoffCeiling, backoffDelay, backoffSchedule, DEFAULT_BACKOFF } from "./backoff.js";
export type { CursorWordingOptions, FailureReader } from "./cursor-wording.js";
export { createCursorFailureReader, recognizeCursorLine } from "./cursor-wording.js";
export type { AttemptEnding } from "./ending.js";
export { failureOfEnding } from "./ending.js";
export type { AgentFailure, FailureKind, FailureKindSpec, RecoveryRoute } from "./failure.js";
export { FAILURE_KINDS, failureOf, isFailureKind } from "./failure.js";
export type {
  GiveUpReason,
  NextAttempt,
  NextPrompt,
  PastAttempt,
  RecoveryAction,
  RecoveryClock,
  RecoveryDecision,
  RecoveryHistory,
  RecoveryPolicy,
  ResetNotWaited,
  WaitRefusal,
} from "./policy.js";
export { DEFAULT_CONTINUE_PROMPT, DEFAULT_POLICY, decideRecovery } from "./policy.js";
export type { ResetTime } from "./reset-time.js";
export { parseResetTime } from "./reset-time.js";
