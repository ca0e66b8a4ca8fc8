// The CLI's lifecycle events other than tool calls and text: retries, reconnections, questions
// for the user, background work reporting in. Described in one line each for the text view;
// their payloads (a permission prompt, an endpoint URL) are left out: they may hold secrets.

import type { JsonEvent } from "@cursor-wrap/events";

const countAt = (data: Record<string, unknown>, key: string): number | undefined => {
  const value = data[key];
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
};

const wordAt = (data: Record<string, unknown>, key: string): string | undefined => {
  const value = data[key];
  return typeof value === "string" && value !== "" ? value.slice(0, 80) : undefined;
};

const attempt = (data: Record<string, unknown>): string => {
  const n = countAt(data, "attempt");
  return n === undefined ? "" : ` (attempt ${n})`;
};

/**
 * One line for a lifecycle event (`retry/*`, `connection/*`, `interaction_query/*`,
 * `system/task_notification`, `system/background_shell_timeout`), or undefined for any other
 * event. The text is the agent's and still needs `terminalSafe` before it is shown.
 */
export function lifecycleLine(event: JsonEvent): string | undefined {
  const { data } = event;
  switch (event.type) {
    case "retry":
      return event.subtype === "resuming"
        ? `↻ resuming the model request${attempt(data)}`
        : `↻ retrying the model request${attempt(data)}`;
    case "connection":
      return event.subtype === "reconnected" ? "· reconnected" : `· reconnecting${attempt(data)}`;
    case "interaction_query": {
      const kind = wordAt(data, "query_type");
      return event.subtype === "response"
        ? `· answered${kind ? ` (${kind})` : ""}`
        : `? the agent asks for ${kind ?? "input"}`;
    }
    case "system": {
      if (event.subtype === "task_notification") {
        const title = wordAt(data, "title") ?? wordAt(data, "summary");
        return `◦ background task reported${title ? `: ${title}` : ""}`;
      }
      if (event.subtype === "background_shell_timeout") {
        const count = countAt(data, "aborted_count");
        const after = countAt(data, "timeout_ms");
        const what =
          count === undefined
            ? "background commands"
            : `${count} background command${count === 1 ? "" : "s"}`;
        return `◦ ${what} stopped${after === undefined ? "" : ` after ${Math.round(after / 1000)}s`}, still running after the reply`;
      }
      return undefined;
    }
    default:
      return undefined;
  }
}
