/**
 * The error codes of the adapter contract's normalised stream, in one table: what each code
 * answers, by the name cursor-wrap gives it (a verdict of the hang monitor, a failure kind of
 * `@cursor-wrap/recovery`, a tool the turn does not allow, …), and what it means. A `code` is
 * what an `error` event carries; the key is what a caller passes to
 * `ContractNormalizer.error()` (or to {@link contractErrorCode}).
 *
 * `@cursor-wrap/run` checks at compile time that every failure kind and every verdict has a
 * row; a code is never renamed once published.
 */
export const CONTRACT_ERRORS = {
  // Verdicts of the hang monitor: the agent's process tree was killed.
  hang: {
    code: "HANG",
    description:
      "the agent was silent past its deadline (idle, a tool past its timeout, background work) and was killed",
  },
  linger: {
    code: "LINGER",
    description:
      "the agent gave its result but did not exit, and was killed (the answer is complete)",
  },
  budget: {
    code: "BUDGET",
    description: "the turn ran past its wall-clock budget (--max-turn-duration) and was killed",
  },
  // Failure kinds (@cursor-wrap/recovery's taxonomy), as the agent's words or its end tell them.
  connection: {
    code: "CONNECTION_LOST",
    description: "the agent lost its connection to the service and its reconnects did not save it",
  },
  "rate-limit": {
    code: "RATE_LIMIT",
    description: "too many requests (HTTP 429, resource_exhausted)",
  },
  overloaded: {
    code: "MODEL_OVERLOADED",
    description: "the model or its provider is overloaded or briefly unavailable (HTTP 529/503)",
  },
  "ended-mid-turn": {
    code: "STREAM_ENDED",
    description: "the agent's stream ended mid-turn without a result, with a non-zero exit",
  },
  "usage-limit": {
    code: "USAGE_LIMIT",
    description: "the plan's usage limit is reached; nothing works on this model until it resets",
  },
  "model-unavailable": {
    code: "MODEL_UNAVAILABLE",
    description: "the named model is not available on this plan",
  },
  "unknown-model": { code: "UNKNOWN_MODEL", description: "the agent does not know the model" },
  protocol: {
    code: "PROTOCOL_ERROR",
    description: "the agent announced a protocol version this side does not support",
  },
  auth: {
    code: "MODEL_AUTH_ERROR",
    description: "not signed in, or an expired or invalid key",
  },
  trust: {
    code: "WORKSPACE_NOT_TRUSTED",
    description: "the workspace is not trusted for headless runs",
  },
  policy: {
    code: "POLICY_DENIED",
    description: "an organisation's policy forbids headless runs",
  },
  "unknown-session": {
    code: "UNKNOWN_SESSION",
    description: "the agent does not know the session it was asked to resume",
  },
  "session-id": {
    code: "INVALID_SESSION_ID",
    description: "the agent refused the session id it was given",
  },
  "agent-error": {
    code: "AGENT_ERROR",
    description: "the agent reported an error whose words no recogniser knows",
  },
  // The turn's tools (the contract's allow-list).
  "tool-not-allowed": {
    code: "TOOL_NOT_ALLOWED",
    description: "the agent called a tool whose canonical name is not in the turn's tools",
  },
  "tool-args-invalid": {
    code: "TOOL_ARGS_INVALID",
    description: "the agent called an allowed tool with arguments that fail the tool's schema",
  },
  // Endings with no failure named.
  "result-error": {
    code: "RESULT_ERROR",
    description: "the agent's result said is_error",
  },
  abnormal: {
    code: "ABNORMAL_EXIT",
    description: "the agent exited without a result and without saying why",
  },
  "turn-input": {
    code: "TURN_INPUT_INVALID",
    description: "the turn given on stdin is malformed: nothing was started",
  },
  "run-failed": {
    code: "RUN_FAILED",
    description:
      "the run ended before the turn did: the agent could not be started, or the wrapper failed",
  },
} as const;

/** What an error answers: a key of {@link CONTRACT_ERRORS}. */
export type ContractErrorSource = keyof typeof CONTRACT_ERRORS;

/** An error code of the normalised stream (`HANG`, `USAGE_LIMIT`, `MODEL_AUTH_ERROR`, …). */
export type ContractErrorCode = (typeof CONTRACT_ERRORS)[ContractErrorSource]["code"];

/** Every error code, in the table's order. */
export const CONTRACT_ERROR_CODES: readonly ContractErrorCode[] = Object.values(
  CONTRACT_ERRORS,
).map((row) => row.code);

/**
 * The code of what an error answers (a verdict, a failure kind, …); `AGENT_ERROR` for a name
 * the table does not know (a failure kind newer than this package).
 */
export function contractErrorCode(source: string): ContractErrorCode {
  return Object.hasOwn(CONTRACT_ERRORS, source)
    ? CONTRACT_ERRORS[source as ContractErrorSource].code
    : "AGENT_ERROR";
}
