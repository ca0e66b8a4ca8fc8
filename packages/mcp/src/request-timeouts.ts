// A client request whose time ran out (R-MCP2): answered with -32001, cancelled at the server
// (never `initialize`, which MCP forbids cancelling), or, when it never left the queue for a
// server that is not reading, withdrawn from it and answered.

import {
  type ExpiryCause,
  errorResponse,
  loggedId,
  type PendingRequest,
} from "@cursor-wrap/jsonrpc";
import { errorData, type LinkState, progressExpired, type RequestMeta } from "./link-state.js";
import { cancelledNotification, REQUEST_TIMEOUT_CODE } from "./mcp-messages.js";
import { describeRequest, limitText } from "./request-policy.js";

/** Room a `notifications/cancelled` needs in the server's queue, bytes. */
const CANCEL_BYTES = 256;

/**
 * Answer a request that expired (it is already out of the pending table). Returns whether it
 * was `initialize`, after which the proxy has nothing left to serve.
 */
export function answerExpired(
  state: LinkState,
  request: PendingRequest<RequestMeta>,
  cause: ExpiryCause,
  at: number,
): { initialize: boolean } {
  const { serverId, policy } = state;
  const meta = request.meta;
  progressExpired(state, meta);
  state.answered(meta.id);
  const what = describeRequest(meta.method, meta.tool);
  const capped = cause === "cap";
  const limit = limitText(capped ? policy.maxRequestTimeMs : request.timeoutMs);
  if (meta.ticket?.withdraw()) {
    // It never reached the server: nothing to cancel there.
    state.answer(
      errorResponse(
        meta.id,
        REQUEST_TIMEOUT_CODE,
        `MCP server "${serverId}" did not read ${what} within ${limit} (it is not reading its input); cursor-wrap's MCP watchdog withdrew the request`,
        errorData(serverId, meta, { timeoutMs: request.timeoutMs, delivered: false }),
      ),
    );
    state.record("mcp_request_not_delivered", {
      id: loggedId(meta.id),
      method: meta.method,
      tool: meta.tool,
      timeout_ms: request.timeoutMs,
      queued_bytes: state.toServer.queuedBytes,
      summary: `${what} waited ${limit} for the server to read its input: answered with an error, withdrawn`,
    });
    return { initialize: meta.method === "initialize" };
  }
  const initialize = meta.method === "initialize";
  state.answer(
    errorResponse(
      meta.id,
      REQUEST_TIMEOUT_CODE,
      initialize
        ? // Never cancelled (MCP forbids it): a server that cannot start is stopped.
          `MCP server "${serverId}" did not answer ${what} within ${limit}; cursor-wrap's MCP watchdog stops the server`
        : capped
          ? `MCP server "${serverId}" did not finish ${what} within the ${limit} any request may take, progress or not; cursor-wrap's MCP watchdog cancelled it`
          : `MCP server "${serverId}" did not answer ${what} within ${limit}; cursor-wrap's MCP watchdog cancelled the request, and the server goes on serving others`,
      errorData(serverId, meta, {
        timeoutMs: capped ? policy.maxRequestTimeMs : request.timeoutMs,
        ...(capped ? { cap: true } : {}),
      }),
    ),
  );
  // `initialize` MUST NOT be cancelled (MCP, cancellation); for the rest, the server is told,
  // if there is room in its queue for the word.
  const cancel = !initialize && state.gone === undefined && state.toServer.hasRoom(CANCEL_BYTES);
  if (cancel) {
    state.toServer.insert(
      cancelledNotification(meta.id, `no response within ${limit}${capped ? " (cap)" : ""}`),
    );
  }
  state.record("mcp_request_timed_out", {
    id: loggedId(meta.id),
    method: meta.method,
    tool: meta.tool,
    timeout_ms: request.timeoutMs,
    elapsed_ms: Math.round(at - request.startedAt),
    cause,
    cancelled: cancel,
    summary: initialize
      ? `initialize got no response within ${limit}: answered with an error (not cancelled: MCP forbids it); the proxy stops the server`
      : `${what} got ${capped ? "no final answer within the cap of" : "no response within"} ${limit}: answered with an error${cancel ? ", cancelled at the server" : ""}`,
  });
  return { initialize };
}
