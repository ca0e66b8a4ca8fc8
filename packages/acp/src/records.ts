// The vocabulary of an ACP proxy's log: each record it writes, and at what level.

import type { RecordLevel } from "@cursor-wrap/logger";

/** The levels a record is written at: the logger's ({@link RecordLevel}). */
export type AcpLevel = RecordLevel;

/** Every record the proxy writes, its level, and what it means. */
export const ACP_RECORDS = {
  /** The proxy started: the agent's command, the thresholds, and the run it is part of. */
  acp_proxy_start: "info",
  /** An agent process started (pid, generation: 1 for the first, more after restarts). */
  acp_agent_started: "info",
  /** The agent could not be started (not found, not executable): every request is answered with why. */
  acp_agent_spawn_failed: "error",
  /** One message went by: direction, kind, method, id, session, update, size, latency. */
  acp_message: "debug",
  /** The agent's `initialize` response settled the protocol version and its session features. */
  acp_negotiated: "info",
  /** A prompt turn began (a `session/prompt`, or v2 work the agent started). */
  acp_turn_start: "info",
  /** A prompt turn ended: how, in how long, with how many tool calls. */
  acp_turn_end: "info",
  /** A tool call opened (its id, kind, title) or closed (its status). */
  acp_tool_call: "debug",
  /** A sample of the agent's process tree, taken when the monitor asked (replay reads it). */
  acp_liveness_sample: "debug",
  /** Half of a threshold passed in silence: the agent is quiet, not yet hung. */
  acp_stall_warning: "info",
  /** The agent is silent, but its processes are working: not hung. */
  acp_quiet_but_working: "info",
  /** The turn waits on the person at the editor (a permission, a `cursor/*` question): not the agent's hang. */
  acp_waiting_for_you: "warn",
  /** The editor answered what the agent was waiting for, after this long. */
  acp_waited: "info",
  /** The monitor's verdict on a turn (hang or budget): recovery starts. */
  acp_hang_detected: "error",
  /** The watchdog marked a stuck tool call failed in the editor, with the message shown. */
  acp_tool_call_failed: "warn",
  /** The editor cancelled a turn itself (`session/cancel`): the agent has the grace to end it. */
  acp_editor_cancel: "info",
  /** The watchdog sent `session/cancel` to the agent. */
  acp_cancel_sent: "warn",
  /** The agent ended the cancelled turn itself, within the grace. */
  acp_cancel_honoured: "info",
  /** The agent did not end the cancelled turn in time: the watchdog answered the editor's prompt itself. */
  acp_prompt_answered: "warn",
  /** A request the agent sent the editor was withdrawn (its turn was cancelled, or the agent is gone). */
  acp_request_withdrawn: "warn",
  /** The agent stays: after the grace its processes were still working. */
  acp_agent_kept: "warn",
  /** The agent's process tree was killed (why, the kill's steps, survivors). */
  acp_agent_killed: "warn",
  /** The agent process exited (code, signal; expected or not). */
  acp_agent_exited: "info",
  /** The agent exited while requests were pending: each answered with an error. */
  acp_pending_failed: "error",
  /** A new agent process was set up after a restart: initialized, sessions reloaded. */
  acp_agent_restarted: "warn",
  /** A session was loaded again in a restarted agent (or could not be). */
  acp_session_reloaded: "info",
  /** Restarts in a row without a completed turn reached the limit: no more. */
  acp_restart_gave_up: "error",
  /** History the agent replayed while a session was reloaded: kept from the editor, which has it. */
  acp_replay_dropped: "debug",
  /** A request from the editor other than a prompt got no answer in time: answered with an error. */
  acp_request_timed_out: "warn",
  /** A response came for a request already answered (by the watchdog, or twice): dropped. */
  acp_late_response: "warn",
  /** The editor answered a request of an agent that is gone: dropped. */
  acp_answer_dropped: "warn",
  /** A response to no request the proxy knows of: forwarded. */
  acp_unknown_response: "warn",
  /** A line from the agent that is not a JSON-RPC message (a banner, a log line): dropped. */
  acp_invalid_line: "warn",
  /**
   * A message from the agent that is not valid UTF-8: passed on with each invalid sequence
   * replaced by U+FFFD, as a lenient reader reads it (a strict one could not read it at all).
   */
  acp_line_repaired: "warn",
  /** A JSON-RPC batch from the editor (ACP has none): not passed on, its requests answered with an error. */
  acp_batch_rejected: "warn",
  /** A line of the agent it will never finish (its process gone or replaced mid-line): ended with a newline for the editor. */
  acp_line_ended: "warn",
  /** A line above the size cap: forwarded in pieces, unparsed. */
  acp_oversize_line: "warn",
  /** The proxy is shutting the agent down (why), and each step of it. */
  acp_shutdown: "info",
  /** The proxy ended (exit code). */
  acp_proxy_end: "info",
} as const satisfies Record<string, AcpLevel>;

/** The name of a record of an ACP proxy's log. */
export type AcpRecordName = keyof typeof ACP_RECORDS;

/** Where the proxy writes its records (the CLI passes a session log; tests, an array). */
export interface AcpProxyLog {
  record(name: AcpRecordName, fields: Record<string, unknown>): void;
  /** A line the agent wrote on stderr (without its newline), for the log. */
  stderr?(line: Buffer): void;
}
