import { describe, expect, it } from "vitest";
import { classifyFailureLine, failureMessage } from "./failures.js";

describe("classifyFailureLine", () => {
  it.each([
    ["Authentication required. Please run 'agent login' first.", "auth"],
    ["ConnectError: [unauthenticated] Error", "auth"],
    ["ActionRequiredError: Named models unavailable Free plans can only use Auto.", "plan"],
    ["T: Named models unavailable Free plans can only use Auto.", "plan"],
    ["Error: You've hit your usage limit for this billing period.", "quota"],
    ["  spendLimitHit: true", "quota"],
    [
      "Workspace Trust Required: this workspace has not been trusted. Pass --trust, --yolo, or -f to trust it.",
      "trust",
    ],
    ["Cannot use this model: gpt-9. Available models: auto, gpt-5, sonnet-4.5", "model"],
    [
      'Failed to claim persistent session for chat "abc": Persistent-session chat ID must be a UUID',
      "session-id",
    ],
    ["⚠ Warning: The provided API key is invalid.", "auth"],
    ["Error: Headless mode is disabled by your organization.", "policy"],
  ])("%s is %s", (line, kind) => {
    expect(classifyFailureLine(line, false)).toEqual({ kind, detail: line.trim() });
  });

  it("recognises an unknown session only when resuming", () => {
    expect(classifyFailureLine("Error: Chat not found: abc", true)).toMatchObject({
      kind: "unknown-session",
    });
    expect(classifyFailureLine("Error: session abc does not exist", true)).toMatchObject({
      kind: "unknown-session",
    });
    expect(classifyFailureLine("Error: Chat not found: abc", false)).toBeUndefined();
  });

  it("leaves ordinary output alone", () => {
    for (const line of [
      "Warning: rate limited, retrying in 1s",
      "",
      "compiling…",
      "The session was productive",
    ]) {
      expect(classifyFailureLine(line, true)).toBeUndefined();
    }
  });
});

describe("failureMessage", () => {
  it("says what happened and what to do", () => {
    expect(failureMessage({ kind: "auth", detail: "Authentication required." }, undefined)).toBe(
      "cursor-agent is not signed in: Authentication required.\nRun `cursor-agent login` (or set CURSOR_API_KEY) and try again.",
    );
    expect(failureMessage({ kind: "unknown-session", detail: "Chat not found" }, "s-1")).toContain(
      "does not know session s-1",
    );
    expect(
      failureMessage({ kind: "trust", detail: "Workspace Trust Required" }, undefined),
    ).toContain("Pass --trust");
  });
});
