import {
  DEFAULT_POLICY,
  decideRecovery,
  failureOf,
  type PastAttempt,
  type RecoveryDecision,
} from "@cursor-wrap/recovery";
import { describe, expect, it } from "vitest";
import { failureMessage, recoveryHint } from "./failure-message.js";

type GiveUp = Extract<RecoveryDecision, { action: "give-up" }>;

const POLICY = {
  fallbackModels: [],
  authProfiles: [],
  waitForReset: false,
  maxWaitMs: 21_600_000,
  maxRetries: 3,
  hang: { prompt: "continue", maxRetries: 2 },
};

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
      recoveryHint(
        limit,
        { action: "give-up", reason: "no-fallback", why: "", resetInMs: 3_600_000, wait: "off" },
        POLICY,
        1,
      ),
    ).toBe(
      "It resets 11/17/2025: --wait-for-reset waits for it (up to --max-wait (6h)); --fallback-model auto goes on with Cursor's Auto model (the agent suggests gpt-5-mini: --fallback-model suggested).",
    );
    expect(
      recoveryHint(
        limit,
        { action: "give-up", reason: "reset-too-far", why: "", resetInMs: 1e8, wait: "too-far" },
        { ...POLICY, fallbackModels: ["auto"], waitForReset: true },
        3,
      ),
    ).toBe("It resets 11/17/2025, later than --max-wait (6h); no --fallback-model is left to try.");
    expect(
      recoveryHint(
        failureOf("overloaded", "x"),
        { action: "give-up", reason: "retries-spent", why: "" },
        POLICY,
        4,
      ),
    ).toBe("Gave up after 4 attempts (--max-retries 3).");
    expect(
      recoveryHint(
        failureOf("overloaded", "x"),
        { action: "give-up", reason: "retries-spent", why: "" },
        { ...POLICY, maxRetries: 0 },
        1,
      ),
    ).toBe("Gave up after 1 attempt (--max-retries 0).");
    expect(
      recoveryHint(
        failureOf("overloaded", "x"),
        { action: "give-up", reason: "retries-spent", why: "" },
        { ...POLICY, fallbackModels: ["auto"] },
        8,
      ),
    ).toBe(
      "Gave up after 8 attempts (--max-retries 3 on each model); no --fallback-model is left to try.",
    );
    expect(
      recoveryHint(
        failureOf("hang", "x"),
        { action: "give-up", reason: "retries-spent", why: "" },
        { ...POLICY, fallbackModels: ["auto"] },
        3,
      ),
    ).toBe("Gave up after 3 attempts (--max-hang-retries 2).");
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

  it("names what kept the run from waiting for the reset, as the policy decided it", () => {
    const rateLimited = failureOf("rate-limit", "Rate limit exceeded, try again in 10 minutes", {
      resetText: "in 10 minutes",
    });
    const decided = (waitForReset: boolean, previous: PastAttempt[] = []) =>
      decideRecovery(
        { ...rateLimited, resetAt: 600_000 },
        { previous, sessionId: "s-1", model: "gpt-5", profile: undefined, progressed: false },
        { ...DEFAULT_POLICY, waitForReset },
        { now: () => 0, random: () => 0 },
      );
    const off = decided(false);
    expect(off).toMatchObject({ action: "give-up", wait: "off", resetInMs: 600_000 });
    // Ten minutes is well within --max-wait: waiting was off, not too far.
    expect(recoveryHint(rateLimited, off as GiveUp, DEFAULT_POLICY, 1)).toBe(
      "It resets in 10 minutes: --wait-for-reset waits for it (up to --max-wait (6h)); --fallback-model auto goes on with Cursor's Auto model.",
    );
    const waited = decided(true, [
      { failure: "rate-limit", action: "wait-until", model: "gpt-5", profile: undefined },
    ]);
    expect(waited).toMatchObject({ action: "give-up", wait: "waited" });
    expect(recoveryHint(rateLimited, waited as GiveUp, DEFAULT_POLICY, 2)).toBe(
      "It resets in 10 minutes; the run already waited for a reset once; --fallback-model auto goes on with Cursor's Auto model.",
    );
  });

  it("asks for a longer --max-wait when the reset is past it", () => {
    const weeksAway = failureOf("usage-limit", "You've hit your usage limit", {
      resetText: "12/15/2026",
    });
    const decision = decideRecovery(
      { ...weeksAway, resetAt: 20 * 86_400_000 },
      { previous: [], sessionId: "s-1", model: "gpt-5", profile: undefined, progressed: false },
      DEFAULT_POLICY,
      { now: () => 0, random: () => 0 },
    );
    expect(decision).toMatchObject({ action: "give-up", wait: "off", resetInMs: 20 * 86_400_000 });
    expect(recoveryHint(weeksAway, decision as GiveUp, DEFAULT_POLICY, 1)).toBe(
      "It resets 12/15/2026, later than --max-wait (6h): --wait-for-reset --max-wait 20d waits for it; --fallback-model auto goes on with Cursor's Auto model.",
    );
  });
});
