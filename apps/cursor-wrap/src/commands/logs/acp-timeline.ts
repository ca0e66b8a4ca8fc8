// An ACP proxy's log (`cursor-wrap acp`) as lines of `logs show`: the traffic between the
// editor and the agent, the turns, and what the watchdog decided, like an MCP proxy's lines.

import { terminalSafe } from "@cursor-wrap/events";
import { LEVELS } from "@cursor-wrap/logger";
import { formatDuration } from "@cursor-wrap/wording";

/** Session updates too frequent to show (streamed text); they are in the log. */
const QUIET_UPDATES = new Set([
  "agent_message_chunk",
  "agent_thought_chunk",
  "user_message_chunk",
  "agent_message",
  "agent_thought",
  "user_message",
  "available_commands_update",
  "usage_update",
  "tool_call_content_chunk",
]);

/** Records shown by their summary though below warn: how a turn went. */
const SHOWN_INFO = new Set([
  "acp_negotiated",
  "acp_agent_exited",
  "acp_cancel_honoured",
  "acp_waited",
  "acp_session_reloaded",
  "acp_stall_warning",
  "acp_quiet_but_working",
]);

/** One line for a record of an ACP proxy's log, or undefined for one not worth a line. */
export function acpTimelineLine(record: Record<string, unknown>): string | undefined {
  const text = (value: unknown): string => terminalSafe(String(value));
  const session = record.session_id === undefined ? "" : ` (session ${text(record.session_id)})`;
  switch (record.msg) {
    case "acp_message": {
      const fromEditor = record.dir === "editor→agent";
      if (record.dir === "agent→proxy") return undefined;
      const method = text(record.method ?? "?");
      switch (record.kind) {
        case "request":
          return fromEditor
            ? `⇄ editor ▸ ${method} (id ${text(record.id)})`
            : `⇄ agent ◂ asks the editor: ${method} (id ${text(record.id)})`;
        case "response": {
          const latency =
            typeof record.latency_ms === "number" ? ` in ${formatDuration(record.latency_ms)}` : "";
          const error = record.error_code === undefined ? "" : `, error ${text(record.error_code)}`;
          return fromEditor
            ? `⇄ editor ▸ answered the agent (id ${text(record.id)})${error}`
            : `⇄ agent ◂ ${method} answered${latency}${error}`;
        }
        case "notification": {
          if (record.method !== "session/update") {
            return `⇄ ${fromEditor ? "editor ▸" : "agent ◂"} ${method}`;
          }
          const update = String(record.update ?? "?");
          if (QUIET_UPDATES.has(update)) return undefined;
          const call =
            record.tool_call_id === undefined
              ? ""
              : ` ${text(record.tool_call_id)}${record.status === undefined ? "" : ` ${text(record.status)}`}`;
          return `⇄ agent ◂ ${text(update)}${call}`;
        }
        default:
          return undefined;
      }
    }
    case "agent_stderr":
      // What the agent said on stderr: its own words about a crash or a failure.
      return `  agent stderr │ ${text(record.raw_text ?? record.summary ?? "")}`;
    case "acp_proxy_start": {
      const command = Array.isArray(record.command) ? record.command.join(" ") : "";
      return `· acp: proxy started (${text(command)})`;
    }
    case "acp_agent_started":
      return `· agent started (pid ${text(record.pid)}${Number(record.generation) > 1 ? `, restart ${Number(record.generation) - 1}` : ""})`;
    case "acp_turn_start":
      return `── turn${session} ${"─".repeat(30)}`;
    case "acp_turn_end": {
      const calls = Number(record.tool_calls ?? 0);
      const stop = record.stop_reason === undefined ? "" : ` (${text(record.stop_reason)})`;
      return `── ${text(record.outcome)}${stop} in ${formatDuration(Number(record.duration_ms ?? 0))}, ${calls} tool call${calls === 1 ? "" : "s"}`;
    }
    case "acp_proxy_end":
      return `· acp: proxy ended, exit ${text(record.exit_code)} (${text(record.summary)})`;
    default: {
      if (record.summary === undefined) return undefined;
      if (typeof record.level === "number" && record.level >= LEVELS.warn)
        return `⚠ ${text(record.summary)}`;
      return SHOWN_INFO.has(String(record.msg)) ? `· ${text(record.summary)}` : undefined;
    }
  }
}
