// What the parts of the watchdog share (proxy-link.ts builds it): the two outboxes, the
// pending requests, what has been answered, and how a line of the proxy's own reaches the client.

import {
  createKeyTable,
  errorResponse,
  type IdKey,
  type JsonRpcId,
  type KeyTable,
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
  progressKey: IdKey | undefined;
  /** The request on its way to the server, while it may still wait in the queue. */
  ticket: Ticket | undefined;
}

/**
 * Answered ids are remembered in two generations of this many (the older dropped whole when the
 * newer fills), to drop a second answer to one of them: the last 1 024 at least, 2 048 at most.
 */
const ANSWERED_GENERATION = 1_024;

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
  /**
   * Progress token key → request key. Not a `Map`: see `KeyTable` (@cursor-wrap/jsonrpc), whose
   * slots are reused, so an entry is not kept past scavenges once it is gone.
   */
  readonly byProgress: KeyTable<IdKey, IdKey>;
  /**
   * Progress tokens of requests the proxy answered in the server's place (they timed out),
   * the latest {@link EXPIRED_PROGRESS_KEPT}: their progress is late, as their answer would be.
   */
  readonly expiredProgress: Set<IdKey>;
  /** Requests the server sent the client (sampling, roots, elicitation), for their latency. */
  readonly serverRequests: Map<IdKey, { method: string; startedAt: number }>;
  /** Why the server is gone, once it is. */
  gone: string | undefined;
  /** A line of the proxy's own to the client. */
  answer(line: string): void;
  /** A request got its one answer: a second one is dropped. */
  answered(id: JsonRpcId): void;
  /** Whether the request had its answer (remembered until the client reuses its id). */
  wasAnswered(id: JsonRpcId): boolean;
  /** Whether the request had its answer, and forget that it had (the client reuses its id). */
  takeAnswered(id: JsonRpcId): boolean;
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

/**
 * The answered ids, bounded, by key (an integer id's key is the number, held in the table's
 * own array): one answer after another leaves no object behind to
 * outlive the young generation (a string per id, and a 10 000-entry set that was rebuilt as ids
 * came and went, were most of what the proxy's old space grew by under load). The two
 * generations are two `KeyTable`s that swap, the older emptied in place: a `Set` per generation
 * grew by new tables, which V8 allocated in the old generation once its first one was there.
 */
export function createAnsweredIds(
  generation = ANSWERED_GENERATION,
): Pick<LinkState, "answered" | "wasAnswered" | "takeAnswered"> {
  let newer = createKeyTable<IdKey, true>();
  let older = createKeyTable<IdKey, true>();
  return {
    answered(id) {
      const key = id.key;
      if (newer.size >= generation) {
        const emptied = older;
        emptied.clear();
        older = newer;
        newer = emptied;
      }
      older.take(key);
      newer.set(key, true);
    },
    wasAnswered(id) {
      const key = id.key;
      return newer.has(key) || older.has(key);
    },
    takeAnswered(id) {
      const key = id.key;
      // Either, not both: one answer is forgotten once.
      return newer.take(key) !== undefined || older.take(key) !== undefined;
    },
  };
}

/** Answer a client request at once: the server is not there to. */
export function answerGone(
  state: LinkState,
  id: JsonRpcId,
  meta: Pick<RequestMeta, "method" | "tool">,
): void {
  state.answered(id);
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
  if (meta.progressKey !== undefined) state.byProgress.take(meta.progressKey);
}

/** How many progress tokens of expired requests are remembered. */
const EXPIRED_PROGRESS_KEPT = 1_024;

/**
 * The proxy answered a request in the server's place: its token is forgotten, and progress
 * still sent for it is late.
 */
export function progressExpired(state: LinkState, meta: RequestMeta): void {
  forgetProgress(state, meta);
  const key = meta.progressKey;
  if (key === undefined) return;
  state.expiredProgress.delete(key);
  state.expiredProgress.add(key);
  if (state.expiredProgress.size > EXPIRED_PROGRESS_KEPT) {
    const oldest = state.expiredProgress.values().next().value;
    if (oldest !== undefined) state.expiredProgress.delete(oldest);
  }
}
