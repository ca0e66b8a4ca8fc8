// One `mcp_message` record per message that passes (R-MCP5): direction, kind, method, id,
// tool, size, and for a response the latency of what it answers.

import { type JsonRpcId, loggedId, loggedIdJson, type ValidMessage } from "@cursor-wrap/jsonrpc";
import { recordStringJson } from "@cursor-wrap/logger";
import type { LinkState } from "./link-state.js";
import { toolOf } from "./mcp-messages.js";

/** Which way a message went. */
export type Direction = "client→server" | "server→client";

/** Log a message, before it settles anything (so its request is still known). */
export function logMessage(
  state: LinkState,
  direction: Direction,
  message: ValidMessage,
  bytes: number,
): void {
  if (!state.logging) return;
  if (state.messageRecord) state.messageRecord(messageMembers(state, direction, message, bytes));
  else state.record("mcp_message", messageFields(state, direction, message, bytes));
}

/** What a message's record says: its fields, in the order the log writes them. */
function messageFacts(
  state: LinkState,
  direction: Direction,
  message: ValidMessage,
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
      return { id: message.id, method: message.method, tool: toolOf(message) };
    case "notification":
      return { method: message.method };
    case "response": {
      const id = message.id;
      const errorCode = message.errorCode;
      const request = direction === "server→client" ? state.pending.get(message.id.key) : undefined;
      if (request) {
        const latencyMs = Math.round((state.pending.now() - request.startedAt) * 1000) / 1000;
        return { id, method: request.meta.method, tool: request.meta.tool, latencyMs, errorCode };
      }
      const asked =
        direction === "client→server" ? state.serverRequests.get(message.id.key) : undefined;
      if (asked) {
        const latencyMs = Math.round((state.now() - asked.startedAt) * 1000) / 1000;
        return { id, method: asked.method, latencyMs, errorCode };
      }
      return { id, errorCode };
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
): Record<string, unknown> {
  const facts = messageFacts(state, direction, message);
  const fields: Record<string, unknown> = { dir: direction, kind: message.kind, bytes };
  if (facts.id !== undefined) fields.id = loggedId(facts.id);
  if (facts.method !== undefined) fields.method = facts.method;
  if (facts.tool !== undefined) fields.tool = facts.tool;
  if (facts.latencyMs !== undefined) fields.latency_ms = facts.latencyMs;
  if (facts.errorCode !== undefined) fields.error_code = facts.errorCode;
  if (facts.requests !== undefined) fields.requests = facts.requests;
  return fields;
}

// The members every record starts with, written once.
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

/**
 * The same fields as {@link messageFields}, as JSON members, built as text: every string that
 * comes from a peer is written by the logger's `recordStringJson` (redacted, escaped as
 * `JSON.stringify` escapes it), numbers as `JSON.stringify` writes them.
 */
function messageMembers(
  state: LinkState,
  direction: Direction,
  message: ValidMessage,
  bytes: number,
): string {
  const facts = messageFacts(state, direction, message);
  let members = HEADS[direction][message.kind] + bytes;
  const id = facts.id;
  if (id !== undefined) {
    // A string id is the peer's text; a number's text is digits (a big one quoted).
    const text = typeof id.value === "string" ? recordStringJson("id", id.value) : loggedIdJson(id);
    members += `,"id":${text}`;
  }
  if (facts.method !== undefined)
    members += `,"method":${recordStringJson("method", facts.method)}`;
  if (facts.tool !== undefined) members += `,"tool":${recordStringJson("tool", facts.tool)}`;
  if (facts.latencyMs !== undefined)
    members += `,"latency_ms":${millisecondsText(facts.latencyMs)}`;
  if (facts.errorCode !== undefined) members += `,"error_code":${JSON.stringify(facts.errorCode)}`;
  if (facts.requests !== undefined) members += `,"requests":${facts.requests}`;
  return members;
}
