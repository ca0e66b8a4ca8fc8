// What the client sends, on its way to the server: requests are tracked (and answered at once
// when the server is gone or its queue is full), a cancelled request still queued is taken back,
// batches are answered and not passed on, long lines stream through. The client is never stopped
// for the server's sake.

import {
  batchRejection,
  errorResponse,
  exactIdOfText,
  type IdKey,
  type JsonRpcBatch,
  type JsonRpcId,
  loggedId,
  type OversizePiece,
  pathKey,
  type ReadItem,
  type Ticket,
  type ValidMessage,
} from "@cursor-wrap/jsonrpc";
import { answerGone, errorData, forgetProgress, type LinkState } from "./link-state.js";
import {
  BATCH_REJECTED_CODE,
  cancelledId,
  REQUEST_TIMEOUT_CODE,
  requestProgressKey,
  toolOf,
} from "./mcp-messages.js";
import { logMessage } from "./message-log.js";
import { describeRequest, timeoutFor } from "./request-policy.js";

/** Start waiting on a client request: its deadline from its method and tool, within the cap. */
function track(
  state: LinkState,
  id: JsonRpcId,
  method: string,
  tool: string | undefined,
  progress: IdKey | undefined,
  ticket: Ticket | undefined,
): void {
  const earlier = state.pending.get(id.key);
  if (earlier) forgetProgress(state, earlier.meta);
  state.takeAnswered(id);
  state.pending.add(
    id.key,
    { id, method, tool, progressKey: progress, ticket },
    {
      timeoutMs: timeoutFor(state.policy, method, tool),
      capMs: state.policy.maxRequestTimeMs,
    },
  );
  if (progress !== undefined) state.byProgress.set(progress, id.key);
}

/** Answer a batch (MCP does not use them) instead of passing it on: see `batchRejection`. */
function rejectBatch(state: LinkState, batch: JsonRpcBatch, bytes: number): void {
  const { requestIds } = batch;
  for (const id of requestIds) state.answered(id);
  for (const line of batchRejection(
    batch,
    BATCH_REJECTED_CODE,
    "cursor-wrap's MCP watchdog does not pass JSON-RPC batches on: MCP does not use them; send each request on its own line",
    { server: state.serverId },
  )) {
    state.answer(line);
  }
  state.record("mcp_batch_rejected", {
    bytes,
    requests: requestIds.length,
    ids: requestIds.slice(0, 50).map(loggedId),
    summary: `a batch from the client was not passed on; its ${requestIds.length} request(s) answered with an error`,
  });
}

/** A request the server's full queue cannot take: answered at once. */
function answerUndeliverable(
  state: LinkState,
  id: JsonRpcId,
  method: string,
  tool: string | undefined,
): void {
  const what = describeRequest(method, tool);
  state.answered(id);
  state.answer(
    errorResponse(
      id,
      REQUEST_TIMEOUT_CODE,
      `MCP server "${state.serverId}" is not reading its input (${state.toServer.queuedBytes} bytes wait for it); cursor-wrap's MCP watchdog could not pass ${what} on`,
      errorData(state.serverId, { method, tool }, { delivered: false }),
    ),
  );
  state.record("mcp_request_not_delivered", {
    id: loggedId(id),
    method,
    tool,
    queued_bytes: state.toServer.queuedBytes,
    summary: `${what} found the server's input full: answered with an error at once`,
  });
}

/** A whole message from the client. */
function fromClientMessage(state: LinkState, message: ValidMessage, raw: Buffer, line: Buffer) {
  const tool = message.kind === "request" ? toolOf(message) : undefined;
  logMessage(state, "client→server", message, raw.length, tool);
  switch (message.kind) {
    case "batch":
      rejectBatch(state, message, raw.length);
      return;
    case "request": {
      if (state.gone !== undefined) {
        answerGone(state, message.id, { method: message.method, tool });
        return;
      }
      if (!state.toServer.hasRoom(raw.length)) {
        answerUndeliverable(state, message.id, message.method, tool);
        return;
      }
      const ticket = state.toServer.forward(raw);
      track(
        state,
        message.id,
        message.method,
        tool,
        requestProgressKey(message, line),
        ticket.state === "queued" ? ticket : undefined,
      );
      return;
    }
    case "notification":
      if (message.method === "notifications/cancelled") {
        // The client gave up on a request itself: no deadline for it any more, and one the
        // server never read is simply taken back.
        const id = cancelledId(message.params, line);
        const request = id === undefined ? undefined : state.pending.settle(id.key);
        if (request) {
          state.answered(request.meta.id);
          forgetProgress(state, request.meta);
          if (request.meta.ticket?.withdraw()) return;
        }
      }
      break;
    case "response":
      state.serverRequests.delete(message.id.key);
      break;
  }
  if (state.gone !== undefined) return;
  if (state.toServer.hasRoom(raw.length)) {
    state.toServer.forward(raw);
    return;
  }
  state.record("mcp_message_dropped", {
    what: message.kind,
    bytes: raw.length,
    queued_bytes: state.toServer.queuedBytes,
    summary: `the server is not reading its input: a ${message.kind} from the client dropped`,
  });
}

/**
 * The handler of what the client sends. A long client line passes on as it comes (the client is
 * the user's own agent) and is tracked once its envelope shows a request; a batch is held back
 * and answered.
 */
export function createClientHandler(state: LinkState): (item: ReadItem) => void {
  let oversizeIsBatch = false;
  let oversizeTracked = false;

  const fromOversize = (piece: OversizePiece): void => {
    const envelope = piece.envelope;
    if (piece.first) {
      oversizeIsBatch = envelope.root === "array";
      oversizeTracked = false;
      state.record("mcp_oversize_line", {
        dir: "client→server",
        head_bytes: piece.head.length,
        batch: oversizeIsBatch,
      });
    }
    if (oversizeIsBatch) {
      if (piece.final && piece.message?.kind === "batch") {
        rejectBatch(state, piece.message, piece.bytes);
      }
      return;
    }
    if (state.gone === undefined) {
      state.toServer.forwardPiece(piece.raw, piece.final);
      // A line cannot be dropped half-way: while it overflows the queue, the client waits.
      if (!state.toServer.hasRoom(0)) state.pauseClient("server-not-reading");
    }
    const message = piece.final ? piece.message : undefined;
    const id = envelope.id ?? (message?.kind === "request" ? message.id : undefined);
    const method = envelope.method;
    if (oversizeTracked || id === undefined || method === undefined) return;
    oversizeTracked = true;
    if (state.gone !== undefined) {
      answerGone(state, id, { method, tool: undefined });
      return;
    }
    const toolText = envelope.captures.get(pathKey(["params", "name"]));
    const tool =
      method === "tools/call" && toolText?.startsWith('"')
        ? (JSON.parse(toolText) as string)
        : undefined;
    const token = envelope.captures.get(pathKey(["params", "_meta", "progressToken"]));
    track(
      state,
      id,
      method,
      tool,
      token === "null" ? undefined : exactIdOfText(token)?.key,
      undefined,
    );
  };

  return (item) => {
    switch (item.kind) {
      case "message":
        fromClientMessage(state, item.message, item.raw, item.line);
        return;
      case "dropped":
        // Not a message: the server says so itself (a parse error), as it would directly.
        if (state.gone === undefined && state.toServer.hasRoom(item.raw.length)) {
          state.toServer.forward(item.raw);
        }
        return;
      case "oversize":
        fromOversize(item.piece);
        return;
    }
  };
}

/** What the client reader reads of a long line's envelope besides `jsonrpc`, `id`, `method`. */
export const CLIENT_OVERSIZE_CAPTURE = [
  ["params", "name"],
  ["params", "_meta", "progressToken"],
] as const;
