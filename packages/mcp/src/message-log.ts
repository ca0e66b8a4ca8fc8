// One `mcp_message` record per message that passes (R-MCP5): direction, kind, method, id,
// tool, size, and for a response the latency of what it answers.

import { type JsonRpcId, loggedId, loggedIdJson, type ValidMessage } from "@cursor-wrap/jsonrpc";
import { recordStringJson } from "@cursor-wrap/logger";
import type { LinkState } from "./link-state.js";
import { toolOf } from "./mcp-messages.js";

/** Which way a message went. */
export type Direction = "client→server" | "server→client";

/**
 * Log a message, before it settles anything (so its request is still known). `tool`: a
 * request's tool, when the caller has read it already.
 */
export function logMessage(
  state: LinkState,
  direction: Direction,
  message: ValidMessage,
  bytes: number,
  tool: string | undefined = message.kind === "request" ? toolOf(message) : undefined,
): void {
  if (!state.logging) return;
  if (state.messageRecord) {
    state.messageRecord(messageMembers(state, direction, message, bytes, tool));
  } else {
    state.record("mcp_message", messageFields(state, direction, message, bytes, tool));
  }
}

/** What a response's record says of the request it answers, when that is known. */
function answeredFacts(
  state: LinkState,
  direction: Direction,
  id: JsonRpcId,
): { method: string; tool?: string; latencyMs: number } | undefined {
  if (direction === "server→client") {
    const request = state.pending.get(id.key);
    if (!request) return undefined;
    const latencyMs = Math.round((state.pending.now() - request.startedAt) * 1000) / 1000;
    return { method: request.meta.method, tool: request.meta.tool, latencyMs };
  }
  const asked = state.serverRequests.get(id.key);
  if (!asked) return undefined;
  return {
    method: asked.method,
    latencyMs: Math.round((state.now() - asked.startedAt) * 1000) / 1000,
  };
}

/** What a message's record says: its fields, in the order the log writes them. */
function messageFacts(
  state: LinkState,
  direction: Direction,
  message: ValidMessage,
  tool: string | undefined,
): {
  id?: JsonRpcId;
  method?: string;
  tool?: string;
  latencyMs?: number;
  errorCode?: unknown;
  requests?: number;
} {
  switch (message.kind) {
    case "request":
      return { id: message.id, method: message.method, tool };
    case "notification":
      return { method: message.method };
    case "response": {
      const answered = answeredFacts(state, direction, message.id);
      return {
        id: message.id,
        method: answered?.method,
        tool: answered?.tool,
        latencyMs: answered?.latencyMs,
        errorCode: message.errorCode,
      };
    }
    case "batch":
      return { requests: message.requestIds.length };
  }
}

/** The record's fields as an object (for a log without `messageRecord`). */
function messageFields(
  state: LinkState,
  direction: Direction,
  message: ValidMessage,
  bytes: number,
  tool: string | undefined,
): Record<string, unknown> {
  const facts = messageFacts(state, direction, message, tool);
  const fields: Record<string, unknown> = { dir: direction, kind: message.kind, bytes };
  if (facts.id !== undefined) fields.id = loggedId(facts.id);
  if (facts.method !== undefined) fields.method = facts.method;
  if (facts.tool !== undefined) fields.tool = facts.tool;
  if (facts.latencyMs !== undefined) fields.latency_ms = facts.latencyMs;
  if (facts.errorCode !== undefined) fields.error_code = facts.errorCode;
  if (facts.requests !== undefined) fields.requests = facts.requests;
  return fields;
}

// The members every record starts with, by direction and kind.
const HEADS = {
  "client→server": {
    request: '"dir":"client→server","kind":"request","bytes":',
    notification: '"dir":"client→server","kind":"notification","bytes":',
    response: '"dir":"client→server","kind":"response","bytes":',
    batch: '"dir":"client→server","kind":"batch","bytes":',
  },
  "server→client": {
    request: '"dir":"server→client","kind":"request","bytes":',
    notification: '"dir":"server→client","kind":"notification","bytes":',
    response: '"dir":"server→client","kind":"response","bytes":',
    batch: '"dir":"server→client","kind":"batch","bytes":',
  },
} as const;

/**
 * A latency rounded to the microsecond, as `String` writes it (`0.25`, `12`, `3.007`), without
 * V8's number-string cache: `toFixed(3)`, less its trailing zeros.
 */
function millisecondsText(ms: number): string {
  const fixed = ms.toFixed(3);
  let end = fixed.length;
  while (fixed.charCodeAt(end - 1) === 48) end -= 1; // "0"
  if (fixed.charCodeAt(end - 1) === 46) end -= 1; // "."
  const text = end === fixed.length ? fixed : fixed.slice(0, end);
  return text === "-0" ? "0" : text;
}

/** An id as a record built as text writes it: a string redacted, a number's digits (a big one quoted). */
const idJson = (id: JsonRpcId): string =>
  typeof id.value === "string" ? recordStringJson("id", id.value) : loggedIdJson(id);

/**
 * The same fields as {@link messageFields}, as JSON members, built as text a kind at a time
 * (one record per message: no object of facts, few joins): every string that comes from a
 * peer is written by the logger's `recordStringJson` (redacted, escaped as `JSON.stringify`
 * escapes it), numbers as `JSON.stringify` writes them.
 */
function messageMembers(
  state: LinkState,
  direction: Direction,
  message: ValidMessage,
  bytes: number,
  tool: string | undefined,
): string {
  const heads = HEADS[direction];
  switch (message.kind) {
    case "request": {
      const members = `${heads.request}${bytes},"id":${idJson(message.id)},"method":${recordStringJson("method", message.method)}`;
      return tool === undefined ? members : `${members},"tool":${recordStringJson("tool", tool)}`;
    }
    case "notification":
      return `${heads.notification}${bytes},"method":${recordStringJson("method", message.method)}`;
    case "response": {
      let members = `${heads.response}${bytes},"id":${idJson(message.id)}`;
      const answered = answeredFacts(state, direction, message.id);
      if (answered) {
        members += `,"method":${recordStringJson("method", answered.method)}`;
        if (answered.tool !== undefined)
          members += `,"tool":${recordStringJson("tool", answered.tool)}`;
        members += `,"latency_ms":${millisecondsText(answered.latencyMs)}`;
      }
      const code = message.errorCode;
      return code === undefined ? members : `${members},"error_code":${JSON.stringify(code)}`;
    }
    case "batch":
      return `${heads.batch}${bytes},"requests":${message.requestIds.length}`;
  }
}
