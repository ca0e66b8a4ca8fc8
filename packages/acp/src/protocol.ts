// What the watchdog reads in ACP messages and the few messages it writes itself, for both
// protocol versions: v1 (a prompt's response ends its turn) and the v2 draft (the response
// only acknowledges the prompt; an idle `state_update` ends the work). Shapes are those of
// the ACP schema (v1 and v2, as published with @agentclientprotocol/sdk 2.4) and of Cursor's
// `agent acp` documentation; the fixtures in `__fixtures__/` hold them with their sources.

import type { JsonObject, JsonRpcId, OwnMessage } from "./transport.js";

/** The protocol versions the watchdog knows: v1, and the v2 draft (`protocolVersion: 2`). */
export type AcpVersion = 1 | 2;

/** Methods the watchdog acts on. Anything else passes through untouched. */
export const METHODS = {
  initialize: "initialize",
  /** v1 authentication. */
  authenticate: "authenticate",
  /** v2 authentication. */
  authLogin: "auth/login",
  sessionNew: "session/new",
  /** v1 only: load a session, replaying its history as `session/update`s. */
  sessionLoad: "session/load",
  /** v2, and v1 agents that advertise `sessionCapabilities.resume`: resume without replay. */
  sessionResume: "session/resume",
  sessionClose: "session/close",
  sessionDelete: "session/delete",
  sessionPrompt: "session/prompt",
  sessionCancel: "session/cancel",
  sessionUpdate: "session/update",
  requestPermission: "session/request_permission",
  cancelRequest: "$/cancel_request",
} as const;

/** Session settings the editor chose, replayed after a restart so the session comes back as it was. */
export const SETTING_METHODS: ReadonlySet<string> = new Set([
  "session/set_mode",
  "session/set_model",
  "session/set_config_option",
]);

/** JSON-RPC error codes the watchdog answers with (the ACP schema's `ErrorCode`). */
export const ERROR_CODES = {
  /** The agent failed or is gone: the request cannot be answered by it. */
  internalError: -32603,
  /** The request was cancelled (a prompt not yet accepted when its work was cancelled). */
  requestCancelled: -32800,
  /** Not a request ACP has: a JSON-RPC batch (an array of messages). */
  invalidRequest: -32600,
} as const;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A string field of an object, if it is one. */
export function stringAt(object: unknown, key: string): string | undefined {
  if (!isObject(object)) return undefined;
  const value = object[key];
  return typeof value === "string" ? value : undefined;
}

/** An object field of an object, if it is one. */
function objectAt(object: unknown, key: string): JsonObject | undefined {
  if (!isObject(object)) return undefined;
  const value = object[key];
  return isObject(value) ? value : undefined;
}

/** The session a message is about (`params.sessionId`), if it names one. */
export function sessionIdOf(params: JsonObject | undefined): string | undefined {
  return stringAt(params, "sessionId");
}

/** What the agent said about itself in its `initialize` response. */
export interface AgentFeatures {
  /** The negotiated protocol version. */
  version: AcpVersion;
  /** The raw `protocolVersion` it answered with. */
  protocolVersion: unknown;
  /** v1: `session/load` is supported (`agentCapabilities.loadSession`). */
  loadSession: boolean;
  /** `session/resume` is supported (v2 always; v1 with `sessionCapabilities.resume`). */
  resumeSession: boolean;
}

/**
 * The version and session features an `initialize` response settles. The agent answers with
 * the highest version it supports at or below the client's: 2 or more is the v2 draft (whose
 * later drafts the watchdog reads the same way), anything else v1.
 */
export function agentFeatures(result: unknown): AgentFeatures {
  const protocolVersion = isObject(result) ? result.protocolVersion : undefined;
  const version: AcpVersion = typeof protocolVersion === "number" && protocolVersion >= 2 ? 2 : 1;
  // v1 names them `agentCapabilities`; v2 `capabilities`.
  const capabilities =
    objectAt(result, "agentCapabilities") ?? objectAt(result, "capabilities") ?? {};
  const sessionCapabilities =
    objectAt(capabilities, "sessionCapabilities") ?? objectAt(capabilities, "session") ?? {};
  return {
    version,
    protocolVersion,
    loadSession: version === 1 && capabilities.loadSession === true,
    resumeSession: version === 2 || isObject(sessionCapabilities.resume),
  };
}

/**
 * Whether the editor takes `notice` updates: v1 editors say so in `initialize`
 * (`clientCapabilities.session.notices`, and agents must not send them otherwise); in v2 no
 * capability is needed, and an editor that does not show them ignores them.
 */
export function editorTakesNotices(
  initializeParams: JsonObject | undefined,
  version: AcpVersion,
): boolean {
  if (version === 2) return true;
  const session = objectAt(objectAt(initializeParams, "clientCapabilities"), "session");
  return objectAt(session, "notices") !== undefined;
}

/** A tool call's status, as ACP names it. */
export type ToolCallStatus = "pending" | "in_progress" | "completed" | "failed";

/** Whether a status ends a call. */
export const isFinalStatus = (status: unknown): boolean =>
  status === "completed" || status === "failed";

/** What one `session/update` is, as far as watching a turn goes. */
export type UpdateMeaning =
  | {
      kind: "tool-call";
      /** The `sessionUpdate` tag (`tool_call`, `tool_call_update`). */
      tag: string;
      toolCallId: string;
      /** Fields present in the update (patch semantics: absent means unchanged). */
      status?: unknown;
      title?: string;
      name?: string;
      toolKind?: string;
      /** `rawInput.providerIdentifier`/`toolName`: Cursor's marks of an MCP tool. */
      mcp?: { provider: string; tool: string | undefined };
    }
  | { kind: "state"; tag: "state_update"; state: string; stopReason: unknown }
  | {
      kind: "activity";
      tag: string;
      /** What the agent is busy with, for the monitor's phase. */
      phase?: "thinking" | "responding";
    };

const THINKING = new Set(["agent_thought_chunk", "agent_thought"]);
const RESPONDING = new Set(["agent_message_chunk", "agent_message"]);

/** Read a `session/update`'s `update`. Unknown tags are activity: a sign of life. */
export function updateMeaning(update: JsonObject | undefined): UpdateMeaning {
  const tag = stringAt(update, "sessionUpdate") ?? "unknown";
  if ((tag === "tool_call" || tag === "tool_call_update") && update) {
    const toolCallId = stringAt(update, "toolCallId");
    if (toolCallId !== undefined) {
      const meaning: Extract<UpdateMeaning, { kind: "tool-call" }> = {
        kind: "tool-call",
        tag,
        toolCallId,
      };
      if (Object.hasOwn(update, "status")) meaning.status = update.status;
      const title = stringAt(update, "title");
      if (title !== undefined) meaning.title = title;
      const name = stringAt(update, "name");
      if (name !== undefined) meaning.name = name;
      const toolKind = stringAt(update, "kind");
      if (toolKind !== undefined) meaning.toolKind = toolKind;
      const rawInput = objectAt(update, "rawInput");
      const provider = stringAt(rawInput, "providerIdentifier");
      if (provider !== undefined) meaning.mcp = { provider, tool: stringAt(rawInput, "toolName") };
      return meaning;
    }
  }
  if (tag === "state_update" && update) {
    return {
      kind: "state",
      tag,
      state: stringAt(update, "state") ?? "unknown",
      stopReason: update.stopReason,
    };
  }
  if (THINKING.has(tag)) return { kind: "activity", tag, phase: "thinking" };
  if (RESPONDING.has(tag)) return { kind: "activity", tag, phase: "responding" };
  return { kind: "activity", tag };
}

/** Whether a request from the agent asks the person at the editor something (it waits for them). */
export function asksThePerson(method: string): boolean {
  return (
    method === METHODS.requestPermission ||
    method === "elicitation/create" ||
    method.startsWith("cursor/")
  );
}

/** A short description of a request the agent sent the editor, for "waiting for you". */
export function describeAgentRequest(method: string, params: JsonObject | undefined): string {
  if (method === METHODS.requestPermission) {
    const toolCall = objectAt(params, "toolCall");
    const what = stringAt(toolCall, "title") ?? stringAt(toolCall, "name");
    return what === undefined ? "permission" : `permission for ${JSON.stringify(what)}`;
  }
  if (method === "cursor/ask_question") return "an answer to its question";
  if (method === "cursor/create_plan") return "approval of its plan";
  if (method === "elicitation/create") return "input";
  return method;
}

// ─── lines the watchdog writes ──────────────────────────────────────────────────────────────

/** A `session/update` notification. */
export function sessionUpdate(
  sessionId: string,
  update: JsonObject,
): OwnMessage & { params: JsonObject } {
  return { method: METHODS.sessionUpdate, params: { sessionId, update } };
}

/** Text the user reads in the editor, as a content block. */
const textBlock = (text: string): JsonObject => ({ type: "text", text });

/** A tool call marked failed, with a message shown on its card. */
export function failedToolCall(toolCallId: string, message: string): JsonObject {
  return {
    sessionUpdate: "tool_call_update",
    toolCallId,
    status: "failed",
    content: [{ type: "content", content: textBlock(message) }],
  };
}

/** A message from the watchdog in the thread, as a chunk of the agent's message. */
export function messageChunk(messageId: string, message: string): JsonObject {
  return {
    sessionUpdate: "agent_message_chunk",
    messageId,
    content: textBlock(`\n\n${message}\n`),
  };
}

/** A notice: information for the person that clients may show and may ignore. */
export function notice(
  severity: "info" | "warning" | "error",
  title: string,
  description?: string,
): JsonObject {
  return {
    sessionUpdate: "notice",
    severity,
    title,
    ...(description === undefined ? {} : { description }),
  };
}

/** v2: the session's foreground work ended. */
export function idleState(stopReason: string): JsonObject {
  return { sessionUpdate: "state_update", state: "idle", stopReason };
}

/** A success response (the id written back exactly). */
export function resultMessage(
  id: JsonRpcId,
  result: JsonObject,
): OwnMessage & { result: JsonObject } {
  return { id, result };
}

/** An error response. */
export function errorMessage(
  id: JsonRpcId,
  code: number,
  message: string,
  data?: JsonObject,
): OwnMessage {
  return { id, error: { code, message, ...(data === undefined ? {} : { data }) } };
}

/** A request of the watchdog's own. */
export function requestMessage(id: JsonRpcId, method: string, params: JsonObject): OwnMessage {
  return { id, method, params };
}

/** A notification of the watchdog's own. */
export function notificationMessage(
  method: string,
  params: JsonObject,
): OwnMessage & { params: JsonObject } {
  return { method, params };
}

/**
 * `$/cancel_request` for a request the agent sent the editor, as a line: the editor must find
 * its request by the id exactly as it saw it, digits and all, which a parsed value cannot hold.
 */
export function cancelRequestLine(requestId: JsonRpcId): string {
  return `{"jsonrpc":"2.0","method":"${METHODS.cancelRequest}","params":{"requestId":${requestId.text}}}\n`;
}

/** The answer to a request the agent sent the editor, when the watchdog withdraws it. */
export function withdrawnAnswer(id: JsonRpcId, method: string): OwnMessage {
  // A permission request has an outcome for this (ACP: "the prompt turn was cancelled");
  // anything else is a cancelled request.
  return method === METHODS.requestPermission
    ? resultMessage(id, { outcome: { outcome: "cancelled" } })
    : errorMessage(
        id,
        ERROR_CODES.requestCancelled,
        "cancelled by cursor-wrap: the turn was cancelled",
      );
}
