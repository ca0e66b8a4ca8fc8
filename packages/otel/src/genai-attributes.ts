// The attribute names and values of the OpenTelemetry GenAI semantic conventions this package
// follows: semantic conventions v1.45.0 (the GenAI part still has "Development" status). They
// are spelled out here instead of imported from `@opentelemetry/semantic-conventions/incubating`
// because that entry point may rename anything in any release; a test checks them against it.

/** The version of the OpenTelemetry semantic conventions the spans follow. */
export const GENAI_SEMCONV_VERSION = "1.45.0";

/** GenAI attribute names (semantic conventions {@link GENAI_SEMCONV_VERSION}). */
export const GENAI = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  agentName: "gen_ai.agent.name",
  agentVersion: "gen_ai.agent.version",
  conversationId: "gen_ai.conversation.id",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheReadTokens: "gen_ai.usage.cache_read.input_tokens",
  cacheCreationTokens: "gen_ai.usage.cache_creation.input_tokens",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  errorType: "error.type",
} as const;

/** `gen_ai.operation.name` values used. */
export const OPERATION = { invokeAgent: "invoke_agent", executeTool: "execute_tool" } as const;

/**
 * `gen_ai.provider.name` of Cursor. The conventions list no value for it; a provider not listed
 * uses its own lower-case name.
 */
export const PROVIDER_CURSOR = "cursor";

/** `error.type` of a run or an attempt killed because it hung (the conventions' `timeout`). */
export const ERROR_TIMEOUT = "timeout";

/** Attributes of cursor-wrap's own (not GenAI), namespaced as the conventions ask. */
export const CURSOR_WRAP = {
  turn: "cursor_wrap.turn",
  attempt: "cursor_wrap.attempt",
  outcome: "cursor_wrap.outcome",
  exitCode: "cursor_wrap.exit_code",
  verdict: "cursor_wrap.verdict",
  summary: "cursor_wrap.summary",
  reason: "cursor_wrap.reason",
  toolLabel: "cursor_wrap.tool.label",
  toolOutcome: "cursor_wrap.tool.outcome",
  killReason: "cursor_wrap.kill.reason",
  retryAction: "cursor_wrap.retry.action",
  retryKind: "cursor_wrap.retry.kind",
  retryWaitMs: "cursor_wrap.retry.wait_ms",
  failureKind: "cursor_wrap.failure.kind",
  logPath: "cursor_wrap.log_path",
  pid: "process.pid",
} as const;
