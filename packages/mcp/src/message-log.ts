// One `mcp_message` record per message that passes (R-MCP5): direction, kind, method, id,
// tool, size, and for a response the latency of what it answers.

import { loggedId, type ValidMessage } from "@cursor-wrap/jsonrpc";
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
  const fields: Record<string, unknown> = { dir: direction, kind: message.kind, bytes };
  switch (message.kind) {
    case "request": {
      fields.id = loggedId(message.id);
      fields.method = message.method;
      const tool = toolOf(message);
      if (tool !== undefined) fields.tool = tool;
      break;
    }
    case "notification":
      fields.method = message.method;
      break;
    case "response": {
      fields.id = loggedId(message.id);
      const request = direction === "server→client" ? state.pending.get(message.id.key) : undefined;
      const asked =
        direction === "client→server" ? state.serverRequests.get(message.id.key) : undefined;
      if (request) {
        fields.method = request.meta.method;
        if (request.meta.tool !== undefined) fields.tool = request.meta.tool;
        fields.latency_ms = Math.round((state.pending.now() - request.startedAt) * 1000) / 1000;
      } else if (asked) {
        fields.method = asked.method;
        fields.latency_ms = Math.round((state.now() - asked.startedAt) * 1000) / 1000;
      }
      if (message.errorCode !== undefined) fields.error_code = message.errorCode;
      break;
    }
    case "batch":
      fields.requests = message.requestIds.length;
      break;
  }
  state.record("mcp_message", fields);
}
