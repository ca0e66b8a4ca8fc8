// The MCP proxies that ran under a session (their logs carry the run's token), as lines of the
// session's timeline for `logs show` (R-MCP5).

import { dirname } from "node:path";
import { terminalSafe } from "@cursor-wrap/events";
import { LEVELS, listMcpLogs, readSessionLog } from "@cursor-wrap/logger";
import { mcpLimitHint } from "../../error-hints.js";

/** One record of an MCP proxy's log, with its server and time. */
export interface McpTimelineRecord {
  time: number;
  server: string;
  record: Record<string, unknown>;
}

/** The tokens of the agent runs a session log recorded (`agent_started`). */
async function runTokens(path: string): Promise<Set<string>> {
  const tokens = new Set<string>();
  for await (const entry of readSessionLog(path)) {
    if (entry.kind === "record" && entry.record.msg === "agent_started") {
      // `agent_token` (named so that redaction leaves it); logs before that called it `token`.
      const token = entry.record.agent_token ?? entry.record.token;
      if (typeof token === "string") tokens.add(token);
    }
  }
  return tokens;
}

/** The records of every MCP proxy that ran under the session logged at `path`, oldest first. */
export async function mcpTimeline(path: string): Promise<McpTimelineRecord[]> {
  const tokens = await runTokens(path);
  if (tokens.size === 0) return [];
  const records: McpTimelineRecord[] = [];
  for (const log of listMcpLogs(dirname(path))) {
    if (log.agentToken === undefined || !tokens.has(log.agentToken)) continue;
    for await (const entry of readSessionLog(log.path)) {
      if (entry.kind !== "record") continue;
      const time = Number(entry.record.time);
      if (Number.isFinite(time)) records.push({ time, server: log.serverId, record: entry.record });
    }
  }
  return records.sort((a, b) => a.time - b.time);
}

/** Notifications too frequent to show (progress, log messages); they are in the proxy's log. */
const QUIET_NOTIFICATIONS = new Set(["notifications/progress", "notifications/message"]);

/** One line for a record of an MCP proxy's log, or undefined for one not worth a line. */
export function mcpTimelineLine({ server, record }: McpTimelineRecord): string | undefined {
  const name = `mcp ${server}`;
  const text = (value: unknown): string => terminalSafe(String(value));
  const call = (): string =>
    `${text(record.method ?? "?")}${record.tool === undefined ? "" : ` ${JSON.stringify(text(record.tool))}`}`;
  switch (record.msg) {
    case "mcp_message": {
      const fromClient = record.dir === "client→server";
      switch (record.kind) {
        case "request":
          return fromClient
            ? `⇄ ${name} ▸ ${call()} (id ${text(record.id)})`
            : `⇄ ${name} ◂ the server asks ${call()} (id ${text(record.id)})`;
        case "response": {
          const latency =
            typeof record.latency_ms === "number" ? ` in ${Math.round(record.latency_ms)} ms` : "";
          const error = record.error_code === undefined ? "" : `, error ${text(record.error_code)}`;
          return fromClient
            ? `⇄ ${name} ▸ answered the server's ${call()}${latency}${error}`
            : `⇄ ${name} ◂ ${call()} answered${latency}${error}`;
        }
        case "notification":
          return QUIET_NOTIFICATIONS.has(String(record.method))
            ? undefined
            : `⇄ ${name} ${fromClient ? "▸" : "◂"} ${text(record.method)}`;
        default:
          return undefined;
      }
    }
    case "mcp_proxy_start":
      return `· ${name}: proxy started (${text(record.command)})`;
    case "mcp_proxy_end":
      return `· ${name}: proxy ended, exit ${text(record.exit_code)} (${text(record.summary)})`;
    default: {
      if (typeof record.level !== "number" || record.level < LEVELS.warn) return undefined;
      if (record.summary === undefined) return undefined;
      const hint = mcpLimitHint(record);
      return `⚠ ${name}: ${text(record.summary)}${hint === undefined ? "" : ` (${hint})`}`;
    }
  }
}
