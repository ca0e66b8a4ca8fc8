import { failureOf } from "@cursor-wrap/recovery";
import { describe, expect, it } from "vitest";
import { failureMessage, recoveryHint } from "./failure-message.js";

const POLICY = { fallbackModels: [], authProfiles: [], waitForReset: false, maxWaitMs: 21_600_000 };

describe("failureMessage", () => {
  it("says what happened and what to do", () => {
    expect(failureMessage(failureOf("auth", "Authentication required."), undefined)).toBe(
      "cursor-agent is not signed in: Authentication required.\nRun `cursor-agent login` (or set CURSOR_API_KEY) and try again.",
    );
    expect(failureMessage(failureOf("unknown-session", "Chat not found"), "s-1")).toContain(
      "does not know session s-1",
    );
    expect(failureMessage(failureOf("trust", "Workspace Trust Required"), undefined)).toContain(
      "Pass --trust",
    );
  });
});

describe("recoveryHint", () => {
  const limit = failureOf("usage-limit", "Error: You've hit your usage limit", {
    fallbackModel: "gpt-5-mini",
    resetText: "11/17/2025",
  });

  it("says which flag would have gone on", () => {
    expect(
      recoveryHint(limit, { action: "give-up", reason: "no-fallback", why: "" }, POLICY, 1),
    ).toBe(
      "It resets 11/17/2025: --wait-for-reset waits for it (up to --max-wait); --fallback-model auto goes on with Cursor's Auto model (the agent suggests gpt-5-mini: --fallback-model suggested).",
    );
    expect(
      recoveryHint(
        limit,
        { action: "give-up", reason: "reset-too-far", why: "" },
        { ...POLICY, fallbackModels: ["auto"], waitForReset: true },
        3,
      ),
    ).toBe("It resets 11/17/2025 later than --max-wait (6h); every --fallback-model was tried.");
    expect(
      recoveryHint(
        failureOf("overloaded", "x"),
        { action: "give-up", reason: "retries-spent", why: "" },
        POLICY,
        4,
      ),
    ).toBe("Gave up after 4 attempts (--max-retries).");
    expect(
      recoveryHint(
        failureOf("auth", "x"),
        { action: "give-up", reason: "no-profile", why: "" },
        { ...POLICY, authProfiles: ["a"] },
        2,
      ),
    ).toBe("Every --auth-profile was tried.");
    expect(
      recoveryHint(
        failureOf("trust", "x"),
        { action: "give-up", reason: "final", why: "" },
        POLICY,
        1,
      ),
    ).toBeUndefined();
  });
});
