import { z } from "zod";
import { FAILURE_OUTCOMES, PENDING_OUTCOMES } from "./tool-outcomes.js";

// Runtime validators for every event and tool shape seen in real captures or documented
// (R-EV3). All objects are loose: unknown fields are kept, never an error, because cursor-agent
// adds fields between versions. Validation is for consumers and tests, never the hot path.

/** A number that some CLI versions send as a string (`"fileOutputThresholdBytes":"0"`). */
const Numberish = z.union([z.number(), z.string()]);
const Strings = z.array(z.string());
const Anything = z.looseObject({});

const TextPart = z.looseObject({ type: z.string(), text: z.string().optional() });
const Message = z.looseObject({ role: z.string().optional(), content: z.array(TextPart) });
const Usage = z.looseObject({
  inputTokens: z.number().optional(),
  outputTokens: z.number().optional(),
  cacheReadTokens: z.number().optional(),
  cacheWriteTokens: z.number().optional(),
});

// ─── Tool outcomes ───────────────────────────────────────────────────────────────────────────

const Failure = z.looseObject({
  error: z.union([z.string(), Anything]).optional(),
  message: z.string().optional(),
  reason: z.string().optional(),
  exitCode: z.number().optional(),
  stderr: z.string().optional(),
  timeoutMs: z.number().optional(),
});

function toolResult<Success extends z.ZodType>(success: Success) {
  const outcomes: Record<string, z.ZodOptional<z.ZodType>> = { success: success.optional() };
  for (const outcome of FAILURE_OUTCOMES) outcomes[outcome] = Failure.optional();
  for (const outcome of PENDING_OUTCOMES) outcomes[outcome] = Anything.optional();
  return z.looseObject({ ...outcomes, isBackground: z.boolean().optional() });
}

function tool<Args extends z.ZodType, Success extends z.ZodType>(args: Args, success: Success) {
  return z.looseObject({ args: args.optional(), result: toolResult(success).optional() });
}

// ─── Tools ───────────────────────────────────────────────────────────────────────────────────

const ShellArgs = z.looseObject({
  command: z.string(),
  workingDirectory: z.string().optional(),
  timeout: z.number().optional(),
  hardTimeout: z.number().optional(),
  toolCallId: z.string().optional(),
  simpleCommands: Strings.optional(),
  hasInputRedirect: z.boolean().optional(),
  hasOutputRedirect: z.boolean().optional(),
  parsingResult: Anything.optional(),
  fileOutputThresholdBytes: Numberish.optional(),
  isBackground: z.boolean().optional(),
  skipApproval: z.boolean().optional(),
  timeoutBehavior: z.string().optional(),
  requestedSandboxPolicy: Anything.optional(),
  description: z.string().optional(),
  closeStdin: z.boolean().optional(),
});
const ShellSuccess = z.looseObject({
  command: z.string().optional(),
  workingDirectory: z.string().optional(),
  exitCode: z.number(),
  signal: z.string().optional(),
  stdout: z.string().optional(),
  stderr: z.string().optional(),
  executionTime: z.number().optional(),
  interleavedOutput: z.string().optional(),
});

const ReadArgs = z.looseObject({
  path: z.string(),
  offset: z.number().optional(),
  limit: z.number().optional(),
  toolCallId: z.string().optional(),
});
const ReadSuccess = z.looseObject({
  content: z.string().optional(),
  isEmpty: z.boolean().optional(),
  exceededLimit: z.boolean().optional(),
  totalLines: z.number().optional(),
  fileSize: Numberish.optional(),
  path: z.string().optional(),
  readRange: z.looseObject({ startLine: z.number(), endLine: z.number() }).optional(),
});

const LsArgs = z.looseObject({
  path: z.string(),
  ignore: Strings.optional(),
  toolCallId: z.string().optional(),
});
const LsSuccess = z.looseObject({
  directoryTreeRoot: z
    .looseObject({
      absPath: z.string().optional(),
      childrenDirs: z.array(Anything).optional(),
      childrenFiles: z.array(z.looseObject({ name: z.string() })).optional(),
      childrenWereProcessed: z.boolean().optional(),
      numFiles: z.number().optional(),
    })
    .optional(),
});

const GrepArgs = z.looseObject({
  pattern: z.string(),
  path: z.string().optional(),
  glob: z.string().optional(),
  outputMode: z.string().optional(),
  caseInsensitive: z.boolean().optional(),
  multiline: z.boolean().optional(),
  toolCallId: z.string().optional(),
});
const GrepMatch = z.looseObject({
  lineNumber: z.number().optional(),
  content: z.string().optional(),
  contentTruncated: z.boolean().optional(),
  isContextLine: z.boolean().optional(),
});
const GrepSuccess = z.looseObject({
  pattern: z.string().optional(),
  path: z.string().optional(),
  outputMode: z.string().optional(),
  workspaceResults: z
    .record(
      z.string(),
      z.looseObject({
        content: z
          .looseObject({
            matches: z.array(z.looseObject({ file: z.string(), matches: z.array(GrepMatch) })),
            totalLines: z.number().optional(),
            totalMatchedLines: z.number().optional(),
            clientTruncated: z.boolean().optional(),
            ripgrepTruncated: z.boolean().optional(),
          })
          .optional(),
        files: z.looseObject({ files: Strings }).optional(),
      }),
    )
    .optional(),
});

const GlobArgs = z.looseObject({
  targetDirectory: z.string().optional(),
  globPattern: z.string(),
});
const GlobSuccess = z.looseObject({
  pattern: z.string().optional(),
  path: z.string().optional(),
  files: Strings,
  totalFiles: z.number().optional(),
  clientTruncated: z.boolean().optional(),
  ripgrepTruncated: z.boolean().optional(),
});

const SemSearchArgs = z.looseObject({
  query: z.string(),
  targetDirectories: Strings.optional(),
  explanation: z.string().optional(),
});
const SemSearchSuccess = z.looseObject({
  results: z.union([z.array(Anything), Anything]).optional(),
});

const EditArgs = z.looseObject({
  path: z.string(),
  streamContent: z.string().optional(),
  toolCallId: z.string().optional(),
});
const EditSuccess = z.looseObject({
  path: z.string().optional(),
  linesAdded: z.number().optional(),
  linesRemoved: z.number().optional(),
  diffString: z.string().optional(),
  beforeFullFileContent: z.string().optional(),
  afterFullFileContent: z.string().optional(),
  message: z.string().optional(),
});

const WriteArgs = z.looseObject({
  path: z.string(),
  fileText: z.string().optional(),
  toolCallId: z.string().optional(),
});
const WriteSuccess = z.looseObject({
  path: z.string().optional(),
  linesCreated: z.number().optional(),
  fileSize: z.number().optional(),
});

const PathArgs = z.looseObject({ path: z.string(), toolCallId: z.string().optional() });
const MessageSuccess = z.looseObject({
  path: z.string().optional(),
  message: z.string().optional(),
});

const Todo = z.looseObject({
  id: z.string().optional(),
  content: z.string().optional(),
  status: z.string().optional(),
  createdAt: Numberish.optional(),
  updatedAt: Numberish.optional(),
  dependencies: z.array(z.unknown()).optional(),
});
const TodosArgs = z.looseObject({ todos: z.array(Todo), merge: z.boolean().optional() });
const TodosSuccess = z.looseObject({
  todos: z.array(Todo).optional(),
  totalCount: z.number().optional(),
  wasMerge: z.boolean().optional(),
});

const McpArgs = z.looseObject({
  name: z.string().optional(),
  args: z.unknown().optional(),
  toolCallId: z.string().optional(),
  providerIdentifier: z.string().optional(),
  toolName: z.string().optional(),
});
const McpSuccess = z.looseObject({
  content: z.array(Anything).optional(),
  isError: z.boolean().optional(),
});

const UrlArgs = z.looseObject({ url: z.string() });
const FetchSuccess = z.looseObject({ url: z.string().optional(), markdown: z.string().optional() });

const TaskArgs = z.looseObject({
  description: z.string().optional(),
  prompt: z.string().optional(),
  subagentType: z.string().optional(),
});
const AwaitArgs = z.looseObject({
  taskId: z.string().optional(),
  blockUntilMs: z.number().optional(),
});
const FunctionCall = z.looseObject({ name: z.string(), arguments: z.string().optional() });

/** One schema per tool key (`{ args, result }`), keyed like the stream (R-EV3). */
export const toolSchemas = {
  shellToolCall: tool(ShellArgs, ShellSuccess),
  readToolCall: tool(ReadArgs, ReadSuccess),
  lsToolCall: tool(LsArgs, LsSuccess),
  grepToolCall: tool(GrepArgs, GrepSuccess),
  globToolCall: tool(GlobArgs, GlobSuccess),
  semSearchToolCall: tool(SemSearchArgs, SemSearchSuccess),
  editToolCall: tool(EditArgs, EditSuccess),
  writeToolCall: tool(WriteArgs, WriteSuccess),
  deleteToolCall: tool(PathArgs, MessageSuccess),
  mcpToolCall: tool(McpArgs, McpSuccess),
  updateTodosToolCall: tool(TodosArgs, TodosSuccess),
  readTodosToolCall: tool(Anything, TodosSuccess),
  webFetchToolCall: tool(UrlArgs, FetchSuccess),
  fetchToolCall: tool(UrlArgs, FetchSuccess),
  webSearchToolCall: tool(Anything, Anything),
  taskToolCall: tool(TaskArgs, Anything),
  awaitToolCall: tool(AwaitArgs, Anything),
  listMcpResourcesToolCall: tool(
    Anything,
    z.looseObject({ resources: z.array(Anything).optional() }),
  ),
  readMcpResourceToolCall: tool(Anything, Anything),
  getMcpToolsToolCall: tool(Anything, z.looseObject({ tools: z.array(Anything).optional() })),
  readLintsToolCall: tool(z.looseObject({ paths: Strings.optional() }), Anything),
  askQuestionToolCall: tool(Anything, Anything),
  createPlanToolCall: tool(Anything, Anything),
  switchModeToolCall: tool(Anything, Anything),
  writeShellStdinToolCall: tool(Anything, Anything),
  applyAgentDiffToolCall: tool(Anything, Anything),
  blameByFilePathToolCall: tool(Anything, Anything),
  prManagementToolCall: tool(Anything, Anything),
  recordScreenToolCall: tool(Anything, Anything),
  function: FunctionCall,
} as const;

/** The `tool_call` object: one tool key plus, in newer CLIs, sibling metadata keys. */
const ToolCallEnvelope = z.looseObject({
  ...Object.fromEntries(
    Object.entries(toolSchemas).map(([key, schema]) => [key, schema.optional()]),
  ),
  toolCallId: z.string().optional(),
  startedAtMs: Numberish.optional(),
  completedAtMs: Numberish.optional(),
  hookAdditionalContexts: z.array(z.unknown()).optional(),
  description: z.string().optional(),
});

// ─── Events ──────────────────────────────────────────────────────────────────────────────────

const event = <Type extends string>(type: Type) => ({ type: z.literal(type) });

const SystemInit = z.looseObject({
  ...event("system"),
  subtype: z.literal("init"),
  session_id: z.string(),
  apiKeySource: z.string().optional(),
  cwd: z.string().optional(),
  model: z.string().optional(),
  permissionMode: z.string().optional(),
  timestamp_ms: z.number().optional(),
});

const User = z.looseObject({ ...event("user"), message: Message, session_id: z.string() });

const ThinkingDelta = z.looseObject({
  ...event("thinking"),
  subtype: z.literal("delta"),
  text: z.string(),
  session_id: z.string(),
  timestamp_ms: z.number().optional(),
});

const ThinkingCompleted = z.looseObject({
  ...event("thinking"),
  subtype: z.literal("completed"),
  session_id: z.string(),
  timestamp_ms: z.number().optional(),
});

const Assistant = z.looseObject({
  ...event("assistant"),
  message: Message,
  session_id: z.string(),
  model_call_id: z.string().optional(),
  timestamp_ms: z.number().optional(),
});

const toolCallEvent = <Subtype extends string>(subtype: Subtype) =>
  z.looseObject({
    ...event("tool_call"),
    subtype: z.literal(subtype),
    call_id: z.string(),
    tool_call: ToolCallEnvelope,
    model_call_id: z.string().optional(),
    session_id: z.string(),
    timestamp_ms: z.number().optional(),
  });

const resultFields = {
  ...event("result"),
  duration_ms: z.number().optional(),
  duration_api_ms: z.number().optional(),
  result: z.string().optional(),
  session_id: z.string().optional(),
  request_id: z.string().optional(),
  usage: Usage.optional(),
};

const ResultSuccess = z.looseObject({
  ...resultFields,
  subtype: z.literal("success"),
  is_error: z.boolean(),
  session_id: z.string(),
});

const ResultError = z.looseObject({
  ...resultFields,
  subtype: z.literal("error"),
  is_error: z.boolean().optional(),
  error: z.string().optional(),
});

const ErrorEvent = z.looseObject({
  ...event("error"),
  message: z.string().optional(),
  error: z.union([z.string(), Anything]).optional(),
  session_id: z.string().optional(),
});

/** The adapter contract's optional first event: the protocol version the agent speaks. */
const ProtocolEvent = z.looseObject({
  ...event("protocol"),
  data: z.looseObject({ version: z.union([z.string(), z.number()]).optional() }),
});

const status = <Type extends string>(type: Type, subtypes: [string, ...string[]]) =>
  z.looseObject({ ...event(type), subtype: z.enum(subtypes), session_id: z.string().optional() });

/** One schema per event type and subtype, keyed `type/subtype` (or `type`). */
export const schemas = {
  SystemInit,
  User,
  ThinkingDelta,
  ThinkingCompleted,
  Assistant,
  ToolCallStarted: toolCallEvent("started"),
  ToolCallCompleted: toolCallEvent("completed"),
  ToolCallFailed: toolCallEvent("failed"),
  ResultSuccess,
  ResultError,
  Error: ErrorEvent,
  Protocol: ProtocolEvent,
  // Lifecycle events of CLI 2026.08+ (shapes as published by third parties; no capture here).
  Retry: status("retry", ["starting", "resuming"]).extend({
    attempt: z.number().optional(),
    is_resume: z.boolean().optional(),
    checkpoint_turn_count: z.number().optional(),
  }),
  Connection: status("connection", ["reconnecting", "reconnected"]).extend({
    attempt: z.number().optional(),
    endpoint_url: z.string().optional(),
  }),
  InteractionQuery: status("interaction_query", ["request", "response"]).extend({
    query_type: z.string().optional(),
    query: Anything.optional(),
    response: Anything.optional(),
  }),
  SystemTaskNotification: z.looseObject({
    ...event("system"),
    subtype: z.literal("task_notification"),
    task_id: z.string().optional(),
    title: z.string().optional(),
    detail: z.string().optional(),
    session_id: z.string().optional(),
  }),
  SystemBackgroundShellTimeout: z.looseObject({
    ...event("system"),
    subtype: z.literal("background_shell_timeout"),
    aborted_count: z.number().optional(),
    timeout_ms: z.number().optional(),
    session_id: z.string().optional(),
  }),
  ToolCallEnvelope,
} as const;

/** The name in {@link schemas} of the schema for an event's `type` and `subtype`, if one exists. */
export function schemaNameFor(
  type: string | undefined,
  subtype: string | undefined,
): keyof typeof schemas | undefined {
  switch (type) {
    case "system":
      return subtype === "init"
        ? "SystemInit"
        : subtype === "task_notification"
          ? "SystemTaskNotification"
          : subtype === "background_shell_timeout"
            ? "SystemBackgroundShellTimeout"
            : undefined;
    case "user":
      return "User";
    case "thinking":
      return subtype === "delta"
        ? "ThinkingDelta"
        : subtype === "completed"
          ? "ThinkingCompleted"
          : undefined;
    case "assistant":
      return "Assistant";
    case "tool_call":
      return subtype === "started"
        ? "ToolCallStarted"
        : subtype === "completed"
          ? "ToolCallCompleted"
          : subtype === "failed"
            ? "ToolCallFailed"
            : undefined;
    case "result":
      return subtype === "success"
        ? "ResultSuccess"
        : subtype === "error"
          ? "ResultError"
          : undefined;
    case "error":
      return "Error";
    case "protocol":
      return "Protocol";
    case "retry":
      return "Retry";
    case "connection":
      return "Connection";
    case "interaction_query":
      return "InteractionQuery";
    default:
      return undefined;
  }
}

export type SystemInitEvent = z.infer<typeof SystemInit>;
export type UserEvent = z.infer<typeof User>;
export type ThinkingDeltaEvent = z.infer<typeof ThinkingDelta>;
export type ThinkingCompletedEvent = z.infer<typeof ThinkingCompleted>;
export type AssistantEvent = z.infer<typeof Assistant>;
export type ToolCallStartedEvent = z.infer<(typeof schemas)["ToolCallStarted"]>;
export type ToolCallCompletedEvent = z.infer<(typeof schemas)["ToolCallCompleted"]>;
export type ResultSuccessEvent = z.infer<typeof ResultSuccess>;
export type ResultErrorEvent = z.infer<typeof ResultError>;
export type ShellToolCall = z.infer<(typeof toolSchemas)["shellToolCall"]>;

export type { ContractTurnInput } from "./contract-schemas.js";
export { CONTRACT_ROLES, contractSchemas } from "./contract-schemas.js";
