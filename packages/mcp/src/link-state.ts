// What the parts of the watchdog share (proxy-link.ts builds it): the two outboxes, the
// pending requests, what has been answered, and how a line of the proxy's own reaches the client.

import {
  errorResponse,
  type JsonRpcId,
  type Outbox,
  type PendingRequests,
  type Ticket,
} from "@cursor-wrap/jsonrpc";
import { SERVER_GONE_CODE } from "./mcp-messages.js";
import type { McpRecordName } from "./records.js";
import { describeRequest, type RequestPolicy } from "./request-policy.js";

/** What the proxy keeps with each client request it waits on. */
export interface RequestMeta {
  /** The id to answer with, exactly. */
  id: JsonRpcId;
  method: string;
  /** The tool of a `tools/call`. */
  tool: string | undefined;
  /** The progress token it asked for, as a map key. */
  progressKey: string | undefined;
  /** The request on its way to the server, while it may still wait in the queue. */
  ticket: Ticket | undefined;
}

/** How many answered ids are remembered, to drop a second answer to one of them. */
const REMEMBERED_ANSWERS = 10_000;

/** The state of one link, shared by its parts. */
export interface LinkState {
  readonly serverId: string;
  readonly policy: RequestPolicy;
  /** Longest line parsed (bytes); a longer one passes in pieces or is dropped. */
  readonly maxLineBytes: number;
  /** Monotonic clock, ms. */
  readonly now: () => number;
  record(name: McpRecordName, fields: Record<string, unknown>): void;
  /** Whether records go anywhere (messages are not described for nobody). */
  readonly logging: boolean;
  /** The log's fast path for `mcp_message` records, when it has one. */
  readonly messageRecord: ((members: string) => void) | undefined;
  readonly toClient: Outbox;
  readonly toServer: Outbox;
  readonly pending: PendingRequests<RequestMeta>;
  /** Progress token key → request key. */
  readonly byProgress: Map<string, string>;
  /** Requests the server sent the client (sampling, roots, elicitation), for their latency. */
  readonly serverRequests: Map<string, { method: string; startedAt: number }>;
  /** Why the server is gone, once it is. */
  gone: string | undefined;
  /** A line of the proxy's own to the client. */
  answer(line: string): void;
  /** A request got its one answer: a second one is dropped. */
  answered(key: string): void;
  /** Whether the request had its answer (and forget that it had: once). */
  takeAnswered(key: string): boolean;
  /** Stop reading the client for a reason of its own, or resume when none is left. */
  pauseClient(why: string): void;
  resumeClient(why: string): void;
}

/** The `data` of an error the proxy answers with. */
export const errorData = (
  serverId: string,
  meta: Pick<RequestMeta, "method" | "tool">,
  extra: Record<string, unknown> = {},
): Record<string, unknown> => ({
  server: serverId,
  method: meta.method,
  ...(meta.tool === undefined ? {} : { tool: meta.tool }),
  ...extra,
});

/** A set of answered ids, bounded (the oldest forgotten first). */
export function createAnsweredIds(): Pick<LinkState, "answered" | "takeAnswered"> {
  const answered = new Set<string>();
  return {
    answered(key) {
      answered.add(key);
      if (answered.size > REMEMBERED_ANSWERS) answered.delete(answered.values().next().value!);
    },
    takeAnswered: (key) => answered.delete(key),
  };
}

/** Answer a client request at once: the server is not there to. */
export function answerGone(
  state: LinkState,
  id: JsonRpcId,
  meta: Pick<RequestMeta, "method" | "tool">,
): void {
  state.answered(id.key);
  state.answer(
    errorResponse(
      id,
      SERVER_GONE_CODE,
      `MCP server "${state.serverId}" ${state.gone ?? "is not running"}; ${describeRequest(meta.method, meta.tool)} cannot be answered`,
      errorData(state.serverId, meta),
    ),
  );
}

/** Forget a request's progress token (it was answered, or expired). */
export function forgetProgress(state: LinkState, meta: RequestMeta): void {
  if (meta.progressKey !== undefined) state.byProgress.delete(meta.progressKey);
}
