import { describe, expect, it } from "vitest";
import { toMonitorSignal } from "./extract.js";
import { parseLine } from "./parse-line.js";
import { schemaNameFor, schemas } from "./schemas.js";

const line = (value: Record<string, unknown>) => parseLine(`${JSON.stringify(value)}\n`);
const S = "00000000-0000-4000-8000-000000000001";

describe("background work and the CLI's lifecycle events", () => {
  it("marks a shell the CLI moved to the background, with its pid, command and shell id", () => {
    const completed = line({
      type: "tool_call",
      subtype: "completed",
      call_id: "call_dev",
      tool_call: {
        shellToolCall: {
          args: {
            command: "npm run dev",
            timeout: 30000,
            timeoutBehavior: "TIMEOUT_BEHAVIOR_BACKGROUND",
          },
          result: {
            success: { command: "npm run dev", pid: 4242, shellId: "shell-7" },
            isBackground: true,
          },
        },
      },
      session_id: S,
    });
    expect(toMonitorSignal(completed)).toEqual({
      type: "toolEnd",
      id: "call_dev",
      eventType: "tool_call/completed",
      background: { pid: 4242, label: "npm run dev", aliases: ["shell-7"] },
    });
  });

  it("ignores a pid that is not a plausible process id", () => {
    const completed = line({
      type: "tool_call",
      subtype: "completed",
      call_id: "c",
      tool_call: {
        shellToolCall: { args: {}, result: { success: { pid: -1 }, isBackground: true } },
      },
    });
    expect(toMonitorSignal(completed)).toMatchObject({ background: {} });
  });

  it("ends background work on a task notification naming it, and all of it on a shell timeout", () => {
    expect(
      toMonitorSignal(
        line({ type: "system", subtype: "task_notification", task_id: "shell-7", session_id: S }),
      ),
    ).toEqual({ type: "backgroundEnd", id: "shell-7", eventType: "system/task_notification" });
    expect(
      toMonitorSignal(
        line({
          type: "system",
          subtype: "background_shell_timeout",
          aborted_count: 2,
          timeout_ms: 60000,
        }),
      ),
    ).toEqual({ type: "backgroundEnd", eventType: "system/background_shell_timeout" });
    expect(toMonitorSignal(line({ type: "system", subtype: "task_notification" }))).toEqual({
      type: "activity",
      eventType: "system/task_notification",
    });
  });

  it.each([
    [{ type: "retry", subtype: "starting", session_id: S, attempt: 2, is_resume: true }, "Retry"],
    [
      { type: "retry", subtype: "resuming", session_id: S, attempt: 3, checkpoint_turn_count: 11 },
      "Retry",
    ],
    [
      {
        type: "connection",
        subtype: "reconnecting",
        session_id: S,
        attempt: 4,
        endpoint_url: "https://x.invalid",
      },
      "Connection",
    ],
    [
      {
        type: "interaction_query",
        subtype: "request",
        session_id: S,
        query_type: "permission",
        query: { prompt: "p" },
      },
      "InteractionQuery",
    ],
    [
      {
        type: "interaction_query",
        subtype: "response",
        session_id: S,
        query_type: "permission",
        response: { answer: "a" },
      },
      "InteractionQuery",
    ],
    [
      {
        type: "system",
        subtype: "task_notification",
        session_id: S,
        task_id: "t",
        title: "x",
        detail: "y",
      },
      "SystemTaskNotification",
    ],
    [
      {
        type: "system",
        subtype: "background_shell_timeout",
        session_id: S,
        aborted_count: 2,
        timeout_ms: 60000,
      },
      "SystemBackgroundShellTimeout",
    ],
  ] as const)("reads %j with its schema, and counts it as a sign of life", (value, name) => {
    expect(schemaNameFor(value.type, value.subtype)).toBe(name);
    expect(schemas[name].safeParse(value).success).toBe(true);
    expect(["activity", "backgroundEnd"]).toContain(toMonitorSignal(line(value)).type);
  });
});
