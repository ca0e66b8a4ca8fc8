// How long each client request may take (R-MCP2): per method, per tool, `initialize`, and a
// total cap that progress notifications cannot push past (the MCP specification says clients
// SHOULD enforce a maximum timeout whatever the progress).

import { formatDuration } from "@cursor-wrap/wording";

/** Defaults of the watchdog, ms (and bytes). */
export const MCP_DEFAULTS = {
  requestTimeoutMs: 300_000,
  initTimeoutMs: 60_000,
  /** No request lives longer than this, progress or not. */
  maxRequestTimeMs: 30 * 60_000,
  maxLineBytes: 64 * 1024 * 1024,
  stdinCloseGraceMs: 5_000,
  killGraceMs: 2_000,
  /** Bytes of messages that may wait for a side that does not read, per direction. */
  maxQueuedBytes: 16 * 1024 * 1024,
  /** Requests from the server the client has not answered yet, at most (the oldest are forgotten). */
  maxServerRequests: 1_000,
} as const;

/** The timeouts a proxy applies. Durations in ms; `Infinity` is no limit. */
export interface RequestPolicy {
  requestTimeoutMs: number;
  initTimeoutMs: number;
  maxRequestTimeMs: number;
  toolTimeouts: ReadonlyMap<string, number>;
}

/** The time a request may take without a sign of life. */
export function timeoutFor(
  policy: RequestPolicy,
  method: string,
  tool: string | undefined,
): number {
  if (method === "initialize") return policy.initTimeoutMs;
  if (tool !== undefined && policy.toolTimeouts.has(tool)) return policy.toolTimeouts.get(tool)!;
  return policy.requestTimeoutMs;
}

/** `tools/call "search"`, `initialize`: a request as named in messages. */
export const describeRequest = (method: string, tool: string | undefined): string =>
  tool === undefined ? method : `${method} ${JSON.stringify(tool)}`;

/** A duration for people: `5m`, `300ms`. */
export const limitText = (ms: number): string => formatDuration(ms);
