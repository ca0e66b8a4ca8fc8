/** What every synthetic event needs to know about its session. */
export interface EventContext {
  sessionId: string;
  /** Display name of the model, as cursor-agent reports it. Default `Auto`. */
  model?: string;
  cwd?: string;
  /** Request id: the UUID part of `model_call_id` and `request_id` on the result. */
  requestId?: string;
}

/** A cursor-agent stream-json event, as an object. */
export type AgentEventObject = Record<string, unknown>;

const text = (value: string) => [{ type: "text", text: value }];

/**
 * Builders for cursor-agent stream-json events, shaped like the real captures in
 * `fixtures/real` (field order included), for scenarios and tests.
 */
export const agentEvents = {
  init(context: EventContext): AgentEventObject {
    return {
      type: "system",
      subtype: "init",
      apiKeySource: "login",
      cwd: context.cwd ?? "/home/user/project",
      session_id: context.sessionId,
      model: context.model ?? "Auto",
      permissionMode: "default",
    };
  },

  user(context: EventContext, prompt: string): AgentEventObject {
    return {
      type: "user",
      message: { role: "user", content: text(prompt) },
      session_id: context.sessionId,
    };
  },

  thinkingDelta(context: EventContext, delta: string, timestampMs = Date.now()): AgentEventObject {
    return {
      type: "thinking",
      subtype: "delta",
      text: delta,
      session_id: context.sessionId,
      timestamp_ms: timestampMs,
    };
  },

  thinkingCompleted(context: EventContext, timestampMs = Date.now()): AgentEventObject {
    return {
      type: "thinking",
      subtype: "completed",
      session_id: context.sessionId,
      timestamp_ms: timestampMs,
    };
  },

  /**
   * An assistant message. With `modelCallId` and `timestampMs` it is a mid-turn message;
   * with neither, the final one; with only `timestampMs`, a `--stream-partial-output` delta.
   */
  assistant(
    context: EventContext,
    message: string,
    ids: { modelCallId?: string; timestampMs?: number } = {},
  ): AgentEventObject {
    const event: AgentEventObject = {
      type: "assistant",
      message: { role: "assistant", content: text(message) },
      session_id: context.sessionId,
    };
    if (ids.modelCallId !== undefined) event.model_call_id = ids.modelCallId;
    if (ids.timestampMs !== undefined) event.timestamp_ms = ids.timestampMs;
    return event;
  },

  toolStarted(
    context: EventContext,
    callId: string,
    key: string,
    args: Record<string, unknown>,
    ids: { modelCallId?: string; timestampMs?: number } = {},
  ): AgentEventObject {
    return {
      type: "tool_call",
      subtype: "started",
      call_id: callId,
      tool_call: { [key]: { args } },
      model_call_id:
        ids.modelCallId ?? `${context.requestId ?? "00000000-0000-4000-8000-000000000000"}-0-test`,
      session_id: context.sessionId,
      timestamp_ms: ids.timestampMs ?? Date.now(),
    };
  },

  toolCompleted(
    context: EventContext,
    callId: string,
    key: string,
    args: Record<string, unknown>,
    result: Record<string, unknown>,
    ids: { modelCallId?: string; timestampMs?: number } = {},
  ): AgentEventObject {
    return {
      type: "tool_call",
      subtype: "completed",
      call_id: callId,
      tool_call: { [key]: { args, result } },
      model_call_id:
        ids.modelCallId ?? `${context.requestId ?? "00000000-0000-4000-8000-000000000000"}-0-test`,
      session_id: context.sessionId,
      timestamp_ms: ids.timestampMs ?? Date.now(),
    };
  },

  /** Arguments of a shell call as cursor-agent declares them (timeout in ms). */
  shellArgs(
    command: string,
    timeoutMs = 30_000,
    extra: Record<string, unknown> = {},
  ): Record<string, unknown> {
    return {
      command,
      workingDirectory: "",
      timeout: timeoutMs,
      simpleCommands: command.split(/\s+/).slice(0, 1),
      hasInputRedirect: false,
      hasOutputRedirect: false,
      isBackground: false,
      skipApproval: false,
      timeoutBehavior: "TIMEOUT_BEHAVIOR_BACKGROUND",
      ...extra,
    };
  },

  /** A shell result: `success` with the exit code, as the CLI reports it. */
  shellResult(
    command: string,
    exitCode: number,
    output: { stdout?: string; stderr?: string; executionTime?: number } = {},
  ) {
    return {
      success: {
        command,
        workingDirectory: "",
        exitCode,
        signal: "",
        stdout: output.stdout ?? "",
        stderr: output.stderr ?? "",
        executionTime: output.executionTime ?? 0,
        interleavedOutput: `${output.stdout ?? ""}${output.stderr ?? ""}`,
      },
      isBackground: false,
    };
  },

  result(
    context: EventContext,
    resultText: string,
    details: { durationMs?: number; usage?: Record<string, number>; isError?: boolean } = {},
  ): AgentEventObject {
    const event: AgentEventObject = {
      type: "result",
      subtype: details.isError ? "error" : "success",
      duration_ms: details.durationMs ?? 1_000,
      duration_api_ms: details.durationMs ?? 1_000,
      is_error: details.isError ?? false,
      result: resultText,
      session_id: context.sessionId,
      request_id: context.requestId ?? "00000000-0000-4000-8000-000000000000",
    };
    if (details.usage) event.usage = details.usage;
    return event;
  },
};
