// The watchdog between two streams (R-MCP1 to R-MCP3, R-MCP8): the client's (what it sends,
// what it reads) and the server's (its stdout, its stdin). Lines pass byte for byte; client
// requests are tracked with deadlines; each gets exactly one answer, whatever either side does:
// a server that stops reading (its messages wait in a bounded queue, withdrawn if their time
// runs out there), one that prints odd lines, one that answers twice or late, one that exits.
// No process here: `startMcpProxy` links a real server; tests link in-memory streams.

import type { Readable, Writable } from "node:stream";
import {
  createMessageReader,
  createOutbox,
  createPendingRequests,
  errorResponse,
  type JsonRpcId,
  type OversizePiece,
  type PendingRequest,
  pathKey,
  type ReadItem,
  type Ticket,
  type ValidMessage,
} from "@cursor-wrap/jsonrpc";
import {
  BATCH_REJECTED_CODE,
  cancelledId,
  cancelledNotification,
  progressKey,
  REQUEST_TIMEOUT_CODE,
  requestProgressKey,
  SERVER_GONE_CODE,
  toolOf,
} from "./mcp-messages.js";
import type { McpProxyLog, McpRecordName } from "./records.js";
import { describeRequest, limitText, type RequestPolicy, timeoutFor } from "./request-policy.js";

/** Options for {@link linkMcpPeers}. */
export interface McpLinkOptions {
  serverId: string;
  /** What the client sends, and where it reads. */
  client: { input: Readable; output: Writable };
  /** The server's stdout and stdin. */
  server: { input: Readable; output: Writable };
  policy: RequestPolicy;
  maxLineBytes: number;
  /** Bytes that may wait for a side that does not read, per direction. */
  maxQueuedBytes: number;
  /** Unanswered server→client requests remembered, at most. */
  maxServerRequests: number;
  log?: McpProxyLog;
  /** Monotonic clock, ms. */
  now: () => number;
  /** `initialize` got no answer in time: the proxy has nothing left to serve. */
  onInitializeTimeout(): void;
  /** The client closed its stdin. */
  onClientEnd(): void;
  /** Writing to the client failed (it closed its end). */
  onClientGone(): void;
}

/** The link, for whoever runs the server. */
export interface McpLink {
  /** The server is gone: every pending request, and every later one, is answered with an error. */
  serverGone(why: string): void;
  /** The server's stdout ended: its last line, if it had no newline, is passed on. */
  serverOutputEnded(): void;
  /** The client's input has ended or is no longer read; stop timers and listeners. */
  close(): void;
  /** Requests waiting for an answer. */
  readonly pendingCount: number;
}

interface RequestMeta {
  id: JsonRpcId;
  method: string;
  tool: string | undefined;
  progressKey: string | undefined;
  /** The request on its way to the server, while it may still wait in the queue. */
  ticket: Ticket | undefined;
}

/** How many answered ids are remembered, to drop a second answer to one of them. */
const REMEMBERED_ANSWERS = 10_000;

/** An id as logged: its value, or its exact text when the value is not exact. */
const loggedId = (id: JsonRpcId): unknown =>
  typeof id.value === "number" && !Number.isSafeInteger(id.value) ? id.text : id.value;

/** Link an MCP client and server through the watchdog. */
export function linkMcpPeers(options: McpLinkOptions): McpLink {
  const { serverId, policy, now } = options;
  const record = (name: McpRecordName, fields: Record<string, unknown>): void =>
    options.log?.record(name, fields);

  let gone: string | undefined;
  let closed = false;
  const byProgress = new Map<string, string>();
  const answered = new Set<string>();
  // Requests the server sent the client (sampling, roots, elicitation), for their latency.
  const serverRequests = new Map<string, { method: string; startedAt: number }>();
  let forgottenServerRequests = 0;

  // ─── the client's input: paused only for the client's own sake ─────────────────────────
  const clientPauses = new Set<string>();
  const pauseClient = (why: string): void => {
    if (clientPauses.size === 0) options.client.input.pause();
    clientPauses.add(why);
  };
  const resumeClient = (why: string): void => {
    if (!clientPauses.delete(why) || clientPauses.size > 0 || closed) return;
    options.client.input.resume();
  };

  // ─── writing to each side ───────────────────────────────────────────────────────────────
  const toClient = createOutbox({
    stream: options.client.output,
    maxQueuedBytes: options.maxQueuedBytes,
    // The client does not read: hold the server's output, and stop every request's clock
    // (the wait is not the server's doing).
    onBlocked() {
      options.server.input.pause();
      pending.pause();
      record("mcp_client_not_reading", {
        summary: "the client is not reading: the server's output waits, request clocks stopped",
      });
    },
    onDrained() {
      pending.resume();
      if (!closed) options.server.input.resume();
      resumeClient("client-not-reading");
    },
  });
  const toServer = createOutbox({
    stream: options.server.output,
    maxQueuedBytes: options.maxQueuedBytes,
    // The server does not read: the client goes on being read, its messages queue up.
    onBlocked() {
      record("mcp_server_not_reading", {
        summary:
          "the server is not reading its input: client messages wait in a bounded queue, requests keep their deadlines",
      });
    },
    onDrained() {
      resumeClient("server-not-reading");
    },
  });
  options.client.output.on("error", () => options.onClientGone());
  options.server.output.on("error", () => {
    // the server went away without reading: its exit says what happened
  });

  /** A line of the proxy's own to the client; if the client lags, stop reading it meanwhile. */
  const answer = (line: string): void => {
    toClient.insert(line);
    if (!toClient.hasRoom(0)) pauseClient("client-not-reading");
  };

  const rememberAnswered = (key: string): void => {
    answered.add(key);
    if (answered.size > REMEMBERED_ANSWERS) answered.delete(answered.values().next().value!);
  };

  const errorData = (meta: Pick<RequestMeta, "method" | "tool">, extra = {}) => ({
    server: serverId,
    method: meta.method,
    ...(meta.tool === undefined ? {} : { tool: meta.tool }),
    ...extra,
  });

  // ─── pending requests and their deadlines ──────────────────────────────────────────────
  const pending = createPendingRequests<RequestMeta>({
    now,
    onExpired(request, cause, at) {
      const meta = request.meta;
      if (meta.progressKey !== undefined) byProgress.delete(meta.progressKey);
      rememberAnswered(request.key);
      const what = describeRequest(meta.method, meta.tool);
      const elapsed = at - request.startedAt;
      const limit = limitText(cause === "cap" ? policy.maxRequestTimeMs : request.timeoutMs);
      if (meta.ticket?.withdraw()) {
        // It never reached the server: nothing to cancel there.
        answer(
          errorResponse(
            meta.id,
            REQUEST_TIMEOUT_CODE,
            `MCP server "${serverId}" did not read ${what} within ${limit} (it is not reading its input); cursor-wrap's MCP watchdog withdrew the request`,
            errorData(meta, { timeoutMs: request.timeoutMs, delivered: false }),
          ),
        );
        record("mcp_request_not_delivered", {
          id: loggedId(meta.id),
          method: meta.method,
          tool: meta.tool,
          timeout_ms: request.timeoutMs,
          queued_bytes: toServer.queuedBytes,
          summary: `${what} waited ${limit} for the server to read its input: answered with an error, withdrawn`,
        });
        return;
      }
      const capped = cause === "cap";
      answer(
        errorResponse(
          meta.id,
          REQUEST_TIMEOUT_CODE,
          capped
            ? `MCP server "${serverId}" did not finish ${what} within the ${limit} any request may take (--max-request-time), progress or not; cursor-wrap's MCP watchdog cancelled it`
            : `MCP server "${serverId}" did not answer ${what} within ${limit}; cursor-wrap's MCP watchdog cancelled the request, and the server goes on serving others`,
          errorData(meta, {
            timeoutMs: capped ? policy.maxRequestTimeMs : request.timeoutMs,
            ...(capped ? { cap: true } : {}),
          }),
        ),
      );
      const initialize = meta.method === "initialize";
      // `initialize` MUST NOT be cancelled (MCP, cancellation); for the rest, the server is
      // told, if there is room in its queue for the word.
      const cancel = !initialize && gone === undefined && toServer.hasRoom(256);
      if (cancel) {
        toServer.insert(
          cancelledNotification(meta.id, `no response within ${limit}${capped ? " (cap)" : ""}`),
        );
      }
      record("mcp_request_timed_out", {
        id: loggedId(meta.id),
        method: meta.method,
        tool: meta.tool,
        timeout_ms: request.timeoutMs,
        elapsed_ms: Math.round(elapsed),
        cause,
        cancelled: cancel,
        summary: initialize
          ? `initialize got no response within ${limit}: answered with an error (not cancelled: MCP forbids it); the proxy stops the server`
          : `${what} got ${capped ? "no final answer within the cap of" : "no response within"} ${limit}: answered with an error${cancel ? ", cancelled at the server" : ""}`,
      });
      if (initialize) options.onInitializeTimeout();
    },
  });

  const answerGone = (id: JsonRpcId, meta: Pick<RequestMeta, "method" | "tool">): void => {
    rememberAnswered(id.key);
    answer(
      errorResponse(
        id,
        SERVER_GONE_CODE,
        `MCP server "${serverId}" ${gone ?? "is not running"}; ${describeRequest(meta.method, meta.tool)} cannot be answered`,
        errorData(meta),
      ),
    );
  };

  // ─── client → server ────────────────────────────────────────────────────────────────────
  const track = (
    id: JsonRpcId,
    method: string,
    tool: string | undefined,
    progress: string | undefined,
    ticket: Ticket | undefined,
  ): void => {
    const earlier = pending.get(id.key);
    if (earlier?.meta.progressKey !== undefined) byProgress.delete(earlier.meta.progressKey);
    answered.delete(id.key);
    pending.add(
      id.key,
      { id, method, tool, progressKey: progress, ticket },
      {
        timeoutMs: timeoutFor(policy, method, tool),
        capMs: policy.maxRequestTimeMs,
      },
    );
    if (progress !== undefined) byProgress.set(progress, id.key);
  };

  /** A client message for a server whose queue is full: dropped, and said. */
  const dropForServer = (what: string, bytes: number): void => {
    record("mcp_message_dropped", {
      what,
      bytes,
      queued_bytes: toServer.queuedBytes,
      summary: `the server is not reading its input: ${what} from the client dropped`,
    });
  };

  const rejectBatch = (requestIds: readonly JsonRpcId[], bytes: number): void => {
    for (const id of requestIds) {
      rememberAnswered(id.key);
      answer(
        errorResponse(
          id,
          BATCH_REJECTED_CODE,
          "cursor-wrap's MCP watchdog does not pass JSON-RPC batches on: MCP does not use them; send each request on its own line",
          { server: serverId },
        ),
      );
    }
    record("mcp_batch_rejected", {
      bytes,
      requests: requestIds.length,
      ids: requestIds.slice(0, 50).map(loggedId),
      summary: `a batch from the client was not passed on; its ${requestIds.length} request(s) answered with an error`,
    });
  };

  const fromClientMessage = (message: ValidMessage, raw: Buffer, line: Buffer): void => {
    logMessage("client→server", message, raw.length);
    switch (message.kind) {
      case "batch":
        rejectBatch(message.requestIds, raw.length);
        return;
      case "request": {
        const tool = toolOf(message);
        if (gone !== undefined) {
          answerGone(message.id, { method: message.method, tool });
          return;
        }
        if (!toServer.hasRoom(raw.length)) {
          rememberAnswered(message.id.key);
          answer(
            errorResponse(
              message.id,
              REQUEST_TIMEOUT_CODE,
              `MCP server "${serverId}" is not reading its input (${toServer.queuedBytes} bytes wait for it); cursor-wrap's MCP watchdog could not pass ${describeRequest(message.method, tool)} on`,
              errorData({ method: message.method, tool }, { delivered: false }),
            ),
          );
          record("mcp_request_not_delivered", {
            id: loggedId(message.id),
            method: message.method,
            tool,
            queued_bytes: toServer.queuedBytes,
            summary: `${describeRequest(message.method, tool)} found the server's input full: answered with an error at once`,
          });
          return;
        }
        const ticket = toServer.forward(raw);
        track(
          message.id,
          message.method,
          tool,
          requestProgressKey(message, line),
          ticket.state === "queued" ? ticket : undefined,
        );
        return;
      }
      case "notification": {
        if (message.method === "notifications/cancelled") {
          // The client gave up on a request itself: no deadline for it any more, and one the
          // server never read is simply taken back.
          const id = cancelledId(message.params, line);
          const request = id === undefined ? undefined : pending.settle(id.key);
          if (request) {
            rememberAnswered(request.key);
            if (request.meta.progressKey !== undefined) byProgress.delete(request.meta.progressKey);
            if (request.meta.ticket?.withdraw()) return;
          }
        }
        break;
      }
      case "response":
        serverRequests.delete(message.id.key);
        break;
    }
    if (gone !== undefined) return;
    if (toServer.hasRoom(raw.length)) toServer.forward(raw);
    else dropForServer(message.kind, raw.length);
  };

  // A long client line: passed on as it comes (the client is the user's own agent), tracked
  // once its envelope shows a request; a batch is held back and answered.
  let clientOversizeIsBatch = false;
  let clientOversizeTracked = false;
  const fromClientOversize = (piece: OversizePiece): void => {
    const envelope = piece.envelope;
    if (piece.first) {
      clientOversizeIsBatch = envelope.root === "array";
      clientOversizeTracked = false;
      record("mcp_oversize_line", {
        dir: "client→server",
        head_bytes: piece.head.length,
        batch: clientOversizeIsBatch,
      });
    }
    if (clientOversizeIsBatch) {
      if (piece.final && piece.message?.kind === "batch") {
        rejectBatch(piece.message.requestIds, piece.bytes);
      }
      return;
    }
    if (gone === undefined) {
      toServer.forwardPiece(piece.raw, piece.final);
      // A line cannot be dropped half-way: while it overflows the queue, the client waits.
      if (!toServer.hasRoom(0)) pauseClient("server-not-reading");
    }
    const message = piece.final ? piece.message : undefined;
    const id = envelope.id ?? (message?.kind === "request" ? message.id : undefined);
    const method = envelope.method;
    if (!clientOversizeTracked && id !== undefined && method !== undefined) {
      clientOversizeTracked = true;
      if (gone !== undefined) {
        answerGone(id, { method, tool: undefined });
        return;
      }
      const toolText = envelope.captures.get(pathKey(["params", "name"]));
      const tool =
        method === "tools/call" && toolText?.startsWith('"')
          ? (JSON.parse(toolText) as string)
          : undefined;
      const token = envelope.captures.get(pathKey(["params", "_meta", "progressToken"]));
      track(
        id,
        method,
        tool,
        token === undefined ? undefined : progressKeyOfText(token),
        undefined,
      );
    }
  };

  const clientReader = createMessageReader({
    maxLineBytes: options.maxLineBytes,
    oversizeCapture: [
      ["params", "name"],
      ["params", "_meta", "progressToken"],
    ],
  });
  const fromClient = (item: ReadItem): void => {
    switch (item.kind) {
      case "message":
        fromClientMessage(item.message, item.raw, item.line);
        return;
      case "dropped":
        // Not a message: the server says so itself (a parse error), as it would directly.
        if (gone === undefined && toServer.hasRoom(item.raw.length)) toServer.forward(item.raw);
        return;
      case "oversize":
        fromClientOversize(item.piece);
        return;
    }
  };

  // ─── server → client ────────────────────────────────────────────────────────────────────
  /** A response: settles its request; a late or second one is dropped. Whether to pass it on. */
  const settleResponse = (id: JsonRpcId): boolean => {
    const request = pending.settle(id.key);
    if (request) {
      if (request.meta.progressKey !== undefined) byProgress.delete(request.meta.progressKey);
      rememberAnswered(id.key);
      return true;
    }
    if (pending.takeExpired(id.key)) {
      record("mcp_late_response", {
        id: loggedId(id),
        summary: "a response came after its request had timed out (and been answered): dropped",
      });
      return false;
    }
    if (answered.has(id.key)) {
      answered.delete(id.key);
      record("mcp_duplicate_response", {
        id: loggedId(id),
        summary: "a second response to a request already answered: dropped",
      });
      return false;
    }
    record("mcp_unknown_response", {
      id: loggedId(id),
      summary: "a response to no pending request: forwarded",
    });
    return true;
  };

  const rememberServerRequest = (id: JsonRpcId, method: string): void => {
    serverRequests.set(id.key, { method, startedAt: now() });
    if (serverRequests.size > options.maxServerRequests) {
      serverRequests.delete(serverRequests.keys().next().value!);
      forgottenServerRequests += 1;
      // Said once, then every thousandth: a chatty server must not fill the log either.
      if (forgottenServerRequests === 1 || forgottenServerRequests % 1_000 === 0) {
        record("mcp_server_requests_forgotten", {
          count: forgottenServerRequests,
          limit: options.maxServerRequests,
          summary: `the client leaves the server's requests unanswered: the oldest are forgotten (${forgottenServerRequests} so far)`,
        });
      }
    }
  };

  const fromServerMessage = (
    message: ValidMessage,
    raw: Buffer,
    line: Buffer,
    unterminated: boolean,
  ): void => {
    if (message.kind === "batch") {
      record("mcp_invalid_line", {
        reason: "batch",
        bytes: raw.length,
        summary: "dropped a batch from the server: MCP does not use them",
      });
      return;
    }
    if (message.kind === "response" && !settleResponseLogged(message, raw.length)) return;
    if (message.kind !== "response") logMessage("server→client", message, raw.length);
    if (message.kind === "notification" && message.method === "notifications/progress") {
      // Progress for a request: it is alive, its clock starts again (within the cap).
      const key = progressKey(message.params, line);
      const requestKey = key === undefined ? undefined : byProgress.get(key);
      if (requestKey !== undefined) pending.extend(requestKey);
    } else if (message.kind === "request") {
      rememberServerRequest(message.id, message.method);
    }
    // The server's last line had no newline: the client gets it whole, with one.
    toClient.forward(unterminated ? Buffer.concat([raw, Buffer.from("\n")]) : raw);
  };

  /** Log a response with its request's latency, then settle it; whether to pass it on. */
  const settleResponseLogged = (
    message: Extract<ValidMessage, { kind: "response" }>,
    bytes: number,
  ): boolean => {
    logMessage("server→client", message, bytes);
    return settleResponse(message.id);
  };

  // A long server line: passed on only when its head shows a JSON-RPC message whose top-level
  // id (if a response) is known; otherwise dropped whole. Its request is settled at its head.
  let serverOversize:
    | { passing: boolean; settled: PendingRequest<RequestMeta> | undefined; why: string }
    | undefined;
  const fromServerOversize = (piece: OversizePiece): void => {
    const envelope = piece.envelope;
    if (piece.first) {
      let passing = false;
      let why = "";
      let settled: PendingRequest<RequestMeta> | undefined;
      if (piece.suspect) why = "it follows a line cut short (it may have been smuggled inside it)";
      else if (!envelope.valid || envelope.root !== "object") why = "it is not a JSON object";
      else if (!envelope.jsonrpc2) why = 'its head has no "jsonrpc":"2.0"';
      else if (envelope.id === undefined && envelope.method === undefined) {
        why = "its head names neither an id nor a method: it cannot be matched to a request";
      } else if (envelope.id !== undefined && envelope.method === undefined) {
        settled = pending.get(envelope.id.key);
        passing = settleResponse(envelope.id);
        if (!passing) why = "it answers a request already answered";
      } else passing = true;
      serverOversize = { passing, settled, why };
      record("mcp_oversize_line", {
        dir: "server→client",
        head_bytes: piece.head.length,
        passed: passing,
        ...(passing ? {} : { reason: why }),
        summary: passing
          ? "a line above --max-line passes through in pieces, unparsed"
          : `a line above --max-line is dropped: ${why}`,
      });
    }
    const state = serverOversize!;
    if (state.passing && !piece.envelope.valid) {
      // Broken half-way: end the client's line here; its request gets an error instead.
      state.passing = false;
      toClient.forwardPiece(Buffer.from("\n"), true);
      record("mcp_oversize_line", {
        dir: "server→client",
        bytes: piece.bytes,
        summary: "a line above --max-line turned out not to be JSON half-way: cut off there",
      });
      if (state.settled) failOversizeAnswer(state.settled, "was not valid JSON");
      state.settled = undefined;
    }
    if (state.passing) {
      const ended = piece.final && piece.raw.at(-1) !== 0x0a;
      toClient.forwardPiece(
        ended ? Buffer.concat([piece.raw, Buffer.from("\n")]) : piece.raw,
        piece.final,
      );
    }
    if (!piece.final) return;
    serverOversize = undefined;
    const message = piece.message;
    if (!state.passing && message?.kind === "response") {
      // Dropped, but it did answer a request: that request gets an error now, not a timeout.
      const request = pending.get(message.id.key);
      if (request) {
        pending.settle(message.id.key);
        failOversizeAnswer(request, `could not be passed on (${state.why})`);
      }
    }
    record("mcp_oversize_line", {
      dir: "server→client",
      bytes: piece.bytes,
      kind: message?.kind,
      summary: `a line of ${piece.bytes} bytes ${state.passing ? "passed through" : "was dropped"}`,
    });
  };

  const failOversizeAnswer = (request: PendingRequest<RequestMeta>, why: string): void => {
    const meta = request.meta;
    rememberAnswered(request.key);
    answer(
      errorResponse(
        meta.id,
        SERVER_GONE_CODE,
        `MCP server "${serverId}" answered ${describeRequest(meta.method, meta.tool)} with a line above --max-line that ${why}`,
        errorData(meta),
      ),
    );
  };

  const serverReader = createMessageReader({ maxLineBytes: options.maxLineBytes, guard: true });
  const fromServer = (item: ReadItem): void => {
    switch (item.kind) {
      case "message":
        fromServerMessage(item.message, item.raw, item.line, item.unterminated);
        return;
      case "dropped": {
        const head = item.line.subarray(0, 200).toString("utf8");
        if (item.reason === "smuggled") {
          record("mcp_smuggled_line", {
            kind: item.message?.kind,
            bytes: item.raw.length,
            summary:
              "dropped a valid message that followed a line cut short: it may have been smuggled inside it",
          });
        } else {
          record("mcp_invalid_line", {
            reason: item.reason,
            bytes: item.raw.length,
            head,
            summary: `dropped a line from the server that is not a JSON-RPC message (${item.reason})`,
          });
        }
        return;
      }
      case "oversize":
        fromServerOversize(item.piece);
        return;
    }
  };

  // ─── the message log ───────────────────────────────────────────────────────────────────
  function logMessage(direction: string, message: ValidMessage, bytes: number): void {
    if (!options.log) return;
    const fields: Record<string, unknown> = { dir: direction, kind: message.kind, bytes };
    switch (message.kind) {
      case "request":
        fields.id = loggedId(message.id);
        fields.method = message.method;
        if (toolOf(message) !== undefined) fields.tool = toolOf(message);
        break;
      case "notification":
        fields.method = message.method;
        break;
      case "response": {
        fields.id = loggedId(message.id);
        const request = direction === "server→client" ? pending.get(message.id.key) : undefined;
        const asked =
          direction === "client→server" ? serverRequests.get(message.id.key) : undefined;
        if (request) {
          fields.method = request.meta.method;
          if (request.meta.tool !== undefined) fields.tool = request.meta.tool;
          fields.latency_ms = Math.round((pending.now() - request.startedAt) * 1000) / 1000;
        } else if (asked) {
          fields.method = asked.method;
          fields.latency_ms = Math.round((now() - asked.startedAt) * 1000) / 1000;
        }
        if (message.errorCode !== undefined) fields.error_code = message.errorCode;
        break;
      }
      case "batch":
        fields.requests = message.requestIds.length;
        break;
    }
    record("mcp_message", fields);
  }

  // ─── wiring ─────────────────────────────────────────────────────────────────────────────
  const onClientData = (chunk: Buffer): void => {
    for (const item of clientReader.push(chunk)) fromClient(item);
  };
  const onClientEnd = (): void => {
    for (const item of clientReader.end()) fromClient(item);
    toServer.end();
    options.onClientEnd();
  };
  const onServerData = (chunk: Buffer): void => {
    for (const item of serverReader.push(chunk)) fromServer(item);
  };
  options.client.input.on("data", onClientData);
  options.client.input.once("end", onClientEnd);
  options.server.input.on("data", onServerData);

  return {
    serverGone(why) {
      if (gone !== undefined) return;
      gone = why;
      toServer.clear();
      const failed = pending.drain();
      for (const request of failed) {
        if (request.meta.progressKey !== undefined) byProgress.delete(request.meta.progressKey);
        answerGone(request.meta.id, request.meta);
      }
      if (failed.length > 0) {
        record("mcp_pending_failed", {
          count: failed.length,
          ids: failed.slice(0, 50).map((request) => loggedId(request.meta.id)),
          summary: `${failed.length} pending request${failed.length === 1 ? "" : "s"} answered with an error: the server ${why}`,
        });
      }
    },
    serverOutputEnded() {
      options.server.input.off("data", onServerData);
      for (const item of serverReader.end()) fromServer(item);
      // A long line the server never finished: end it for the client.
      if (toClient.midLine) toClient.forwardPiece(Buffer.from("\n"), true);
    },
    close() {
      if (closed) return;
      closed = true;
      pending.stop();
      options.client.input.off("data", onClientData);
      options.client.input.off("end", onClientEnd);
      options.server.input.off("data", onServerData);
    },
    get pendingCount() {
      return pending.size;
    },
  };
}

/** The map key of a progress token given as its JSON text. */
function progressKeyOfText(text: string): string | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value === "string") return `s:${value}`;
    if (typeof value === "number") return Number.isSafeInteger(value) ? `n:${value}` : `n:${text}`;
  } catch {
    // not a token
  }
  return undefined;
}
