import { describe, expect, it } from "vitest";
import { CURSOR_WORDING, NOT_FAILURES } from "./__fixtures__/cursor-wording.js";
import { CURSOR_RULES, createCursorFailureReader, recognizeCursorLine } from "./cursor-wording.js";

const NOW = Date.UTC(2025, 10, 1, 12, 0, 0);

/** Feed a published message to a reader line by line, as it would arrive. */
function read(text: string, resuming = false) {
  const reader = createCursorFailureReader({ resuming, now: () => NOW });
  for (const line of text.split("\n")) reader.line(line);
  return reader.failure;
}

describe("the Cursor recognisers", () => {
  it.each(
    CURSOR_WORDING.map((sample) => [sample.text.split("\n")[0]!.slice(0, 70), sample] as const),
  )("%s", (_, sample) => {
    const failure = read(sample.text, sample.resuming);
    expect(failure, sample.source).toBeDefined();
    expect(failure!.kind).toBe(sample.kind);
    // The detail is the agent's line that names the failure, as it wrote it (trimmed).
    expect(sample.text.split("\n").map((line) => line.trim())).toContain(failure!.detail);
    for (const [field, value] of Object.entries(sample.carries ?? {})) {
      expect(failure![field as keyof typeof failure], field).toBe(value);
    }
  });

  it("has only case-insensitive rules, without backreferences (they are searched as one)", () => {
    for (const [kind, pattern] of CURSOR_RULES) {
      expect(pattern.flags, kind).toBe("i");
      expect(pattern.source, kind).not.toMatch(/\\[1-9]|\\k</);
    }
  });

  it("quotes a published sample for every rule", () => {
    for (const [kind, pattern] of CURSOR_RULES) {
      const quoted = CURSOR_WORDING.filter(
        (sample) => sample.kind === kind && sample.text.split("\n").some((l) => pattern.test(l)),
      );
      expect(quoted.length, `${kind} ${pattern}`).toBeGreaterThan(0);
    }
  });

  it("leaves the agent retrying by itself and ordinary output alone", () => {
    for (const line of NOT_FAILURES) {
      expect(recognizeCursorLine(line, { resuming: true }), line).toBeUndefined();
    }
  });

  it("reads the usage-limit block: the suggested model, the reset date, the first line as detail", () => {
    const failure = read(
      [
        "Error: You've hit your usage limit",
        "  Get Cursor Pro for more Agent usage, unlimited Tab, and more.",
        "  fallbackModel: gpt-5-mini",
        "  spendLimitHit: true",
        "  chatMessage: *Your usage limits will reset when your monthly cycle ends on 11/17/2025.*",
        "  spendLimits: [50,100,200]",
      ].join("\n"),
    );
    expect(failure).toEqual({
      kind: "usage-limit",
      transient: false,
      detail: "Error: You've hit your usage limit",
      fallbackModel: "gpt-5-mini",
      resetAt: new Date(2025, 10, 18).getTime(),
      resetText: "11/17/2025",
    });
  });

  it("takes an empty fallbackModel line as no suggestion", () => {
    expect(read(CURSOR_WORDING[0]!.text)?.fallbackModel).toBeUndefined();
  });

  it("keeps the first failure named; later lines only complete its message", () => {
    const reader = createCursorFailureReader({ resuming: false, now: () => NOW });
    reader.line("ConnectError: [unauthenticated] Error");
    reader.line("Error: You've hit your usage limit");
    expect(reader.failure).toMatchObject({ kind: "auth" });
  });

  it("lets a later failure no retry can fix take the place of a transient one", () => {
    // A dropped connection, then the usage-limit block: another model can help, a retry not.
    const reader = createCursorFailureReader({ resuming: false, now: () => NOW });
    reader.line("ECONNRESET, reconnecting...");
    reader.line("Error: You've hit your usage limit");
    reader.line("  fallbackModel: gpt-5-mini");
    expect(reader.failure).toMatchObject({
      kind: "usage-limit",
      detail: "Error: You've hit your usage limit",
      fallbackModel: "gpt-5-mini",
    });
    // One transient failure does not replace another, nor does an error event's unknown words.
    const transient = createCursorFailureReader({ resuming: false, now: () => NOW });
    transient.line("ECONNRESET, reconnecting...");
    transient.line("HTTP 429 Too Many Requests");
    transient.errorEvent("something odd happened");
    expect(transient.failure).toMatchObject({ kind: "connection" });
    // A final failure named in an error event takes its place too.
    transient.errorEvent("You've hit your usage limit");
    expect(transient.failure).toMatchObject({ kind: "usage-limit" });
  });

  it("reads a usage limit that also says to upgrade as a usage limit, not a plan's refusal", () => {
    const failure = read(
      "You've hit your usage limit. Upgrade your plan for more. Resets in 3 seconds.",
    );
    expect(failure).toMatchObject({ kind: "usage-limit", resetAt: NOW + 3_000 });
  });

  it("makes an error event with unknown words an agent error of its own", () => {
    const reader = createCursorFailureReader({ resuming: false });
    reader.errorEvent("something odd happened");
    expect(reader.failure).toMatchObject({
      kind: "agent-error",
      transient: false,
      detail: "something odd happened",
    });
    const known = createCursorFailureReader({ resuming: false });
    known.errorEvent("ConnectError: [resource_exhausted] Error");
    expect(known.failure).toMatchObject({ kind: "rate-limit", transient: true });
  });

  // The wording cursor-wrap recognised before this package, with the kinds renamed:
  // plan → model-unavailable, quota → usage-limit, model → unknown-model.
  it.each([
    ["Authentication required. Please run 'agent login' first.", "auth"],
    ["ConnectError: [unauthenticated] Error", "auth"],
    [
      "ActionRequiredError: Named models unavailable Free plans can only use Auto.",
      "model-unavailable",
    ],
    ["T: Named models unavailable Free plans can only use Auto.", "model-unavailable"],
    ["Error: You've hit your usage limit for this billing period.", "usage-limit"],
    ["  spendLimitHit: true", "usage-limit"],
    [
      "Workspace Trust Required: this workspace has not been trusted. Pass --trust, --yolo, or -f to trust it.",
      "trust",
    ],
    ["Cannot use this model: gpt-9. Available models: auto, gpt-5, sonnet-4.5", "unknown-model"],
    [
      'Failed to claim persistent session for chat "abc": Persistent-session chat ID must be a UUID',
      "session-id",
    ],
    ["⚠ Warning: The provided API key is invalid.", "auth"],
    ["Error: Headless mode is disabled by your organization.", "policy"],
    ["quota exceeded", "usage-limit"],
    ["out of credits", "usage-limit"],
    ["not logged in", "auth"],
    ["upgrade your plan", "model-unavailable"],
  ])("%s is %s", (line, kind) => {
    expect(recognizeCursorLine(line, { resuming: false })).toMatchObject({
      kind,
      detail: line.trim(),
    });
  });

  it("recognises an unknown session only when resuming", () => {
    expect(recognizeCursorLine("Error: Chat not found: abc", { resuming: true })).toMatchObject({
      kind: "unknown-session",
    });
    expect(recognizeCursorLine("Error: Chat not found: abc", { resuming: false })).toBeUndefined();
  });
});
