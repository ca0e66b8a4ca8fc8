// The vocabulary of an MCP proxy's log: each record it writes, and at what level.

import type { RecordLevel } from "@cursor-wrap/logger";

/** The levels a record is written at: the logger's ({@link RecordLevel}). */
export type McpLevel = RecordLevel;

/** Every record the proxy writes, its level, and what it means. */
export const MCP_RECORDS = {
  /** The proxy started: server, command, timeouts, and the cursor-wrap run it is part of. */
  mcp_proxy_start: "info",
  /** The server process started (pid). */
  mcp_server_started: "info",
  /** The server could not be started (ENOENT, EACCES, …). */
  mcp_server_spawn_failed: "error",
  /** One message went by: direction, kind, method, id, tool, size, and latency for responses. */
  mcp_message: "debug",
  /** A client request got no response in time: answered with an error, the server told to cancel. */
  mcp_request_timed_out: "warn",
  /** A client request the server never read (its input full) within its time: answered, withdrawn. */
  mcp_request_not_delivered: "warn",
  /** The server stopped reading its input: client messages wait in a bounded queue. */
  mcp_server_not_reading: "warn",
  /** The client stopped reading: the server's output waits, and no request's clock runs. */
  mcp_client_not_reading: "info",
  /** A client message that did not fit in the queue for a server that does not read: dropped. */
  mcp_message_dropped: "warn",
  /** A batch from the client: MCP does not use them, each request in it answered with an error. */
  mcp_batch_rejected: "warn",
  /** A second response for a request already answered: dropped. */
  mcp_duplicate_response: "warn",
  /** Requests from the server the client left unanswered, forgotten to keep memory bounded. */
  mcp_server_requests_forgotten: "warn",
  /** A response came after its request had timed out: dropped. */
  mcp_late_response: "warn",
  /** Progress came for a request that had timed out (the client has forgotten its token): dropped. */
  mcp_late_progress: "info",
  /** A response to no request the proxy knows of: forwarded. */
  mcp_unknown_response: "warn",
  /** A line from the server that is not a JSON-RPC message (a banner, a log line): dropped. */
  mcp_invalid_line: "warn",
  /** A valid message right after a broken one that it may have been smuggled inside: dropped. */
  mcp_smuggled_line: "warn",
  /** A line above the size cap: forwarded in pieces as its envelope allows, or dropped. */
  mcp_oversize_line: "warn",
  /** The server exited while requests were pending: each answered with an error. */
  mcp_pending_failed: "error",
  /** The server exited (code, signal) or was stopped. */
  mcp_server_exited: "info",
  /** The proxy is shutting the server down (why), and each step of it. */
  mcp_shutdown: "info",
  /** The proxy ended (exit code). */
  mcp_proxy_end: "info",
} as const satisfies Record<string, McpLevel>;

/** The name of a record of an MCP proxy's log. */
export type McpRecordName = keyof typeof MCP_RECORDS;

/** Where the proxy writes its records (the CLI passes a session log; tests, an array). */
export interface McpProxyLog {
  record(name: McpRecordName, fields: Record<string, unknown>): void;
  /**
   * An `mcp_message` record, its fields written as JSON members (`"dir":"…","kind":"…",…`):
   * the proxy writes one per message, and building the text directly costs a fraction of an
   * object serialised by the logger. Its strings are redacted already (`recordStringJson` of
   * `@cursor-wrap/logger`), as `SessionLog.debugRecord` takes them. Without it, messages go to
   * `record` like the rest.
   */
  messageRecord?(members: string): void;
}
