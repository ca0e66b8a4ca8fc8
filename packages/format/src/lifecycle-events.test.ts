import { parseLine } from "@cursor-wrap/events";
import { describe, expect, it } from "vitest";
import { createFormatter } from "./create-formatter.js";
import type { Output } from "./types.js";

describe("the CLI's lifecycle events in the text view", () => {
  it("are one dim line each, never showing the payloads (a prompt, an endpoint)", () => {
    let text = "";
    const out: Output = {
      isTTY: false,
      write(chunk) {
        text += chunk.toString();
        return true;
      },
    };
    const formatter = createFormatter("text", out, { color: false });
    for (const value of [
      { type: "retry", subtype: "starting", attempt: 2 },
      { type: "retry", subtype: "resuming", attempt: 3 },
      {
        type: "connection",
        subtype: "reconnecting",
        attempt: 4,
        endpoint_url: "https://secret.invalid",
      },
      { type: "connection", subtype: "reconnected" },
      {
        type: "interaction_query",
        subtype: "request",
        query_type: "permission",
        query: { prompt: "SECRET" },
      },
      {
        type: "interaction_query",
        subtype: "response",
        query_type: "permission",
        response: { answer: "SECRET" },
      },
      { type: "system", subtype: "task_notification", task_id: "t", title: "tests \u001b[2J done" },
      { type: "system", subtype: "background_shell_timeout", aborted_count: 2, timeout_ms: 60000 },
    ]) {
      formatter.write(parseLine(`${JSON.stringify(value)}\n`));
    }
    formatter.flush();
    expect(text).toBe(
      [
        "↻ retrying the model request (attempt 2)",
        "↻ resuming the model request (attempt 3)",
        "· reconnecting (attempt 4)",
        "· reconnected",
        "? the agent asks for permission",
        "· answered (permission)",
        "◦ background task reported: tests \\x1b[2J done",
        "◦ 2 background commands stopped after 60s, still running after the reply",
        "",
      ].join("\n"),
    );
  });
});
