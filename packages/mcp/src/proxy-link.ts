// The watchdog between two streams (R-MCP1 to R-MCP3, R-MCP8): the client's (what it sends,
// what it reads) and the server's (its stdout, its stdin). Lines pass byte for byte; client
// requests are tracked with deadlines; each gets exactly one answer, whatever either side does:
// a server that stops reading (its messages wait in a bounded queue, withdrawn if their time
// runs out there), one that prints odd lines, one that answers twice or late, one that exits.
// No process here: `startMcpProxy` links a real server; tests link in-memory streams.
//
// This file wires the parts: client-messages.ts (client → server), server-messages.ts (server
// → client), request-timeouts.ts (a request whose time ran out), message-log.ts, and
// link-state.ts (what they share).

import type { Readable, Writable } from "node:stream";
import {
  createKeyTable,
  createMessageReader,
  createOutbox,
  createPendingRequests,
  loggedId,
  type PendingRequests,
} from "@cursor-wrap/jsonrpc";
import { CLIENT_OVERSIZE_CAPTURE, createClientHandler } from "./client-messages.js";
import {
  answerGone,
  createAnsweredIds,
  forgetProgress,
  type LinkState,
  type RequestMeta,
} from "./link-state.js";
import type { McpProxyLog } from "./records.js";
import type { RequestPolicy } from "./request-policy.js";
import { answerExpired } from "./request-timeouts.js";
import { createServerHandler } from "./server-messages.js";

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

/** How long the server's input may stay full before the proxy says the server is not reading, ms. */
const SERVER_NOT_READING_MS = 1_000;

/** Link an MCP client and server through the watchdog. */
export function linkMcpPeers(options: McpLinkOptions): McpLink {
  const { client, server } = options;
  let closed = false;

  // The client's input is paused only for the client's own sake (it does not read, or sends
  // a line too long to drop half-way into a full queue), never because the server lags.
  const clientPauses = new Set<string>();
  const pauseClient = (why: string): void => {
    if (clientPauses.size === 0) client.input.pause();
    clientPauses.add(why);
  };
  const resumeClient = (why: string): void => {
    if (!clientPauses.delete(why) || clientPauses.size > 0 || closed) return;
    client.input.resume();
  };

  const record: LinkState["record"] = (name, fields) => options.log?.record(name, fields);
  // Created below, with the state it answers through.
  let pending: PendingRequests<RequestMeta>;
  // Both sides coalesce: the messages of one chunk of input, and what they lead to, go out
  // with one write per side (one write(2) per message was most of the proxy's time).
  const toClient = createOutbox({
    stream: client.output,
    maxQueuedBytes: options.maxQueuedBytes,
    coalesce: true,
    // The client does not read: hold the server's output, and stop every request's clock
    // (the wait is not the server's doing).
    onBlocked() {
      server.input.pause();
      pending.pause();
      record("mcp_client_not_reading", {
        summary: "the client is not reading: the server's output waits, request clocks stopped",
      });
    },
    onDrained() {
      pending.resume();
      if (!closed) server.input.resume();
      resumeClient("client-not-reading");
    },
  });
  // A full pipe to the server is not yet a server that does not read (a message of some
  // megabytes fills it while the server reads it): said only when it lasts.
  let notReading: ReturnType<typeof setTimeout> | undefined;
  const toServer = createOutbox({
    stream: server.output,
    maxQueuedBytes: options.maxQueuedBytes,
    coalesce: true,
    // The server does not read: the client goes on being read, its messages queue up.
    onBlocked() {
      clearTimeout(notReading);
      notReading = setTimeout(() => {
        notReading = undefined;
        if (closed) return;
        record("mcp_server_not_reading", {
          blocked_ms: SERVER_NOT_READING_MS,
          summary:
            "the server is not reading its input: client messages wait in a bounded queue, requests keep their deadlines",
        });
      }, SERVER_NOT_READING_MS);
      notReading.unref?.();
    },
    onDrained: () => {
      clearTimeout(notReading);
      notReading = undefined;
      resumeClient("server-not-reading");
    },
  });
  client.output.on("error", () => options.onClientGone());
  server.output.on("error", () => {
    // the server went away without reading: its exit says what happened
  });

  const state: LinkState = {
    serverId: options.serverId,
    maxLineBytes: options.maxLineBytes,
    policy: options.policy,
    now: options.now,
    record,
    logging: options.log !== undefined,
    messageRecord: options.log?.messageRecord?.bind(options.log),
    toClient,
    toServer,
    get pending() {
      return pending;
    },
    byProgress: createKeyTable(),
    expiredProgress: new Set(),
    serverRequests: new Map(),
    gone: undefined,
    answer(line) {
      toClient.insert(line);
      // Answers pile up for a client that does not read: stop reading it meanwhile.
      if (!toClient.hasRoom(0)) pauseClient("client-not-reading");
    },
    ...createAnsweredIds(),
    pauseClient,
    resumeClient,
  };
  pending = createPendingRequests<RequestMeta>({
    now: options.now,
    onExpired(request, cause, at) {
      if (answerExpired(state, request, cause, at).initialize) options.onInitializeTimeout();
    },
  });

  const clientReader = createMessageReader({
    maxLineBytes: options.maxLineBytes,
    oversizeCapture: CLIENT_OVERSIZE_CAPTURE,
  });
  const fromClient = createClientHandler(state);
  const serverReader = createMessageReader({
    maxLineBytes: options.maxLineBytes,
    guard: true,
    now: options.now,
  });
  const fromServer = createServerHandler(state, { maxServerRequests: options.maxServerRequests });

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
  client.input.on("data", onClientData);
  client.input.once("end", onClientEnd);
  server.input.on("data", onServerData);

  return {
    serverGone(why) {
      if (state.gone !== undefined) return;
      state.gone = why;
      toServer.clear();
      const failed = pending.drain();
      for (const request of failed) {
        forgetProgress(state, request.meta);
        answerGone(state, request.meta.id, request.meta);
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
      server.input.off("data", onServerData);
      for (const item of serverReader.end()) fromServer(item);
      // A long line the server never finished: end it for the client.
      if (toClient.midLine) toClient.forwardPiece(Buffer.from("\n"), true);
    },
    close() {
      if (closed) return;
      closed = true;
      clearTimeout(notReading);
      pending.stop();
      client.input.off("data", onClientData);
      client.input.off("end", onClientEnd);
      server.input.off("data", onServerData);
    },
    get pendingCount() {
      return pending.size;
    },
  };
}
