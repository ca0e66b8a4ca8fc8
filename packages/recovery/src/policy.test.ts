import { describe, expect, it } from "vitest";
import { type AgentFailure, FAILURE_KIND_NAMES, type FailureKind, failureOf } from "./failure.js";
import {
  DEFAULT_POLICY,
  decideRecovery,
  type PastAttempt,
  type RecoveryClock,
  type RecoveryDecision,
  type RecoveryHistory,
  type RecoveryPolicy,
} from "./policy.js";

const NOW = Date.UTC(2026, 8, 14, 3, 0, 0);
const HOUR = 3_600_000;
/** A fake clock: fixed time, and the jitter's middle (delays 1.5 s, 3 s, 6 s with the defaults). */
const CLOCK: RecoveryClock = { now: () => NOW, random: () => 0.5 };

const POLICIES: Record<string, RecoveryPolicy> = {
  default: DEFAULT_POLICY,
  full: {
    ...DEFAULT_POLICY,
    maxRetries: 2,
    fallbackModels: ["suggested", "auto"],
    waitForReset: true,
    maxWaitMs: 3 * HOUR,
    authProfiles: ["work", "spare"],
    hang: { prompt: "go on", maxRetries: 2 },
  },
  "no retries": { ...DEFAULT_POLICY, maxRetries: 0 },
  "fallbacks, no wait": { ...DEFAULT_POLICY, fallbackModels: ["auto"] },
};

const FAILURES: Record<string, AgentFailure> = {
  connection: failureOf("connection", "Connection failed."),
  overloaded: failureOf("overloaded", "API Error: 529 Overloaded", { httpStatus: 529 }),
  "rate-limit": failureOf("rate-limit", "ConnectError: [resource_exhausted] Error"),
  "rate-limit, back in 30s": failureOf("rate-limit", "try again in 30 seconds", {
    resetAt: NOW + 30_000,
    resetText: "in 30 seconds",
  }),
  "rate-limit, back in 2h": failureOf("rate-limit", "resets in 2h", {
    resetAt: NOW + 2 * HOUR,
    resetText: "in 2h",
  }),
  "ended-mid-turn": failureOf("ended-mid-turn", "Error: stream closed unexpectedly"),
  hang: failureOf("hang", "no output for 60s"),
  budget: failureOf("budget", "turn budget of 10m exceeded"),
  "usage-limit": failureOf("usage-limit", "Error: You've hit your usage limit"),
  "usage-limit, suggests gpt-5-mini, resets in 2h": failureOf(
    "usage-limit",
    "Error: You've hit your usage limit",
    { fallbackModel: "gpt-5-mini", resetAt: NOW + 2 * HOUR, resetText: "11/17/2025" },
  ),
  "usage-limit, resets in 5h": failureOf("usage-limit", "Error: You've hit your usage limit", {
    resetAt: NOW + 5 * HOUR,
    resetText: "11/17/2025",
  }),
  "model-unavailable": failureOf(
    "model-unavailable",
    "ActionRequiredError: Named models unavailable",
  ),
  "unknown-model": failureOf("unknown-model", "Cannot use this model: gpt-9"),
  protocol: failureOf("protocol", "unsupported protocol version 2.0"),
  auth: failureOf("auth", "Authentication required."),
};

const past = (
  failure: FailureKind,
  action: PastAttempt["action"],
  model?: string,
  profile?: string,
): PastAttempt => ({
  failure,
  action,
  model,
  profile,
});

const HISTORIES: Record<string, RecoveryHistory> = {
  "first, no session": {
    previous: [],
    sessionId: undefined,
    model: "gpt-5",
    profile: undefined,
    progressed: false,
  },
  "first, session": {
    previous: [],
    sessionId: "s1",
    model: "gpt-5",
    profile: undefined,
    progressed: false,
  },
  "first, session, work done": {
    previous: [],
    sessionId: "s1",
    model: "gpt-5",
    profile: undefined,
    progressed: true,
  },
  "after 1 retry": {
    previous: [past("overloaded", "resume", "gpt-5")],
    sessionId: "s1",
    model: "gpt-5",
    profile: undefined,
    progressed: false,
  },
  "after 2 retries": {
    previous: [past("overloaded", "resume", "gpt-5"), past("connection", "resume", "gpt-5")],
    sessionId: "s1",
    model: "gpt-5",
    profile: undefined,
    progressed: false,
  },
  "after 3 retries": {
    previous: [
      past("overloaded", "resume", "gpt-5"),
      past("overloaded", "resume", "gpt-5"),
      past("ended-mid-turn", "resume", "gpt-5"),
    ],
    sessionId: "s1",
    model: "gpt-5",
    profile: undefined,
    progressed: false,
  },
  "after 2 retries, then switched to auto": {
    previous: [
      past("overloaded", "resume", "gpt-5"),
      past("overloaded", "resume", "gpt-5"),
      past("overloaded", "switch-model", "gpt-5"),
    ],
    sessionId: "s1",
    model: "auto",
    profile: undefined,
    progressed: false,
  },
  "after 2 hang retries": {
    previous: [past("hang", "resume", "gpt-5"), past("hang", "resume", "gpt-5")],
    sessionId: "s1",
    model: "gpt-5",
    profile: undefined,
    progressed: true,
  },
  "after a wait": {
    previous: [past("usage-limit", "wait-until", "gpt-5")],
    sessionId: "s1",
    model: "gpt-5",
    profile: undefined,
    progressed: false,
  },
  "after gpt-5-mini and auto": {
    previous: [
      past("usage-limit", "switch-model", "gpt-5"),
      past("usage-limit", "switch-model", "gpt-5-mini"),
    ],
    sessionId: "s1",
    model: "auto",
    profile: undefined,
    progressed: false,
  },
  "on auto": {
    previous: [],
    sessionId: "s1",
    model: "Auto",
    profile: undefined,
    progressed: false,
  },
  "after profile work": {
    previous: [past("auth", "switch-profile", "gpt-5")],
    sessionId: undefined,
    model: "gpt-5",
    profile: "work",
    progressed: false,
  },
  "after profiles work and spare": {
    previous: [
      past("auth", "switch-profile", "gpt-5"),
      past("auth", "switch-profile", "gpt-5", "work"),
    ],
    sessionId: undefined,
    model: "gpt-5",
    profile: "spare",
    progressed: false,
  },
};

/** A decision in a few words, for the table. */
function show(decision: RecoveryDecision): string {
  const prompt = (next: { prompt: { kind: string; text?: string } }): string =>
    next.prompt.kind === "original" ? "original prompt" : JSON.stringify(next.prompt.text);
  switch (decision.action) {
    case "give-up":
      return `give-up ${decision.reason}${decision.wait ? ` (wait ${decision.wait})` : ""}`;
    case "retry":
      return `retry ${decision.attempt}/${decision.maxAttempts} in ${decision.delayMs}ms, ${prompt(decision)}`;
    case "resume":
      return `resume ${decision.resume} ${decision.attempt}/${decision.maxAttempts} in ${decision.delayMs}ms, ${prompt(decision)}`;
    case "switch-model":
      return `switch-model ${decision.model}${decision.suggested ? " (suggested)" : ""} ${decision.attempt}/${decision.maxAttempts}, ${decision.resume ? `resume ${decision.resume}` : "new session"}`;
    case "switch-profile":
      return `switch-profile ${decision.profile} ${decision.attempt}/${decision.maxAttempts}, ${decision.resume ? `resume ${decision.resume}` : "new session"}, ${prompt(decision)}`;
    case "wait-until":
      return `wait-until +${(decision.untilMs - NOW) / HOUR}h (${decision.delayMs}ms), ${decision.resume ? `resume ${decision.resume}` : "new session"}`;
  }
}

describe("decideRecovery", () => {
  // failure × history × policy → decision
  it.each([
    // Transient: backoff, resume when there is a session, the continue prompt only after work.
    ["connection", "first, no session", "default", "retry 1/3 in 1500ms, original prompt"],
    ["connection", "first, session", "default", "resume s1 1/3 in 1500ms, original prompt"],
    [
      "ended-mid-turn",
      "first, session, work done",
      "default",
      `resume s1 1/3 in 1500ms, "${DEFAULT_POLICY.continuePrompt}"`,
    ],
    ["overloaded", "after 1 retry", "default", "resume s1 2/3 in 3000ms, original prompt"],
    ["rate-limit", "after 2 retries", "default", "resume s1 3/3 in 6000ms, original prompt"],
    ["overloaded", "after 3 retries", "default", "give-up retries-spent"],
    ["connection", "first, session", "no retries", "give-up retries-spent"],
    // A rate limit or overload that outlasts the retries moves to the next model, which gets retries of its own.
    ["overloaded", "after 2 retries", "full", "switch-model auto 1/2, resume s1"],
    ["connection", "after 2 retries", "full", "give-up retries-spent"],
    [
      "overloaded",
      "after 2 retries, then switched to auto",
      "full",
      "resume s1 1/2 in 1500ms, original prompt",
    ],
    // The agent's own "come back in …": never sooner. Within the backoff's ceiling, the retry
    // waits for it; past it, a wait if asked for, else another model, else give up (a retry
    // sooner would only spend the retries).
    [
      "rate-limit, back in 30s",
      "first, session",
      "default",
      "resume s1 1/3 in 30000ms, original prompt",
    ],
    // Given up: the decision says why the reset was not waited for (waiting off, done once, too far).
    ["rate-limit, back in 2h", "first, session", "default", "give-up reset-too-far (wait off)"],
    ["rate-limit, back in 2h", "after a wait", "full", "switch-model auto 1/2, resume s1"],
    ["rate-limit, back in 2h", "first, session", "full", "wait-until +2h (7200000ms), resume s1"],
    [
      "rate-limit, back in 2h",
      "first, session",
      "fallbacks, no wait",
      "switch-model auto 1/1, resume s1",
    ],
    // Hangs: the hang prompt, only when configured, only with a session.
    ["hang", "first, session", "default", "give-up no-hang-retry"],
    ["hang", "first, session, work done", "full", 'resume s1 1/2 in 0ms, "go on"'],
    ["hang", "first, no session", "full", "give-up no-hang-retry"],
    ["hang", "after 2 hang retries", "full", "give-up retries-spent"],
    ["budget", "first, session", "full", "give-up final"],
    // Usage limits: a wait if asked for and near enough (once), else the fallback chain.
    ["usage-limit", "first, session", "default", "give-up no-fallback"],
    ["usage-limit", "first, session", "full", "switch-model auto 1/2, resume s1"],
    [
      "usage-limit, suggests gpt-5-mini, resets in 2h",
      "first, session",
      "full",
      "wait-until +2h (7200000ms), resume s1",
    ],
    [
      "usage-limit, suggests gpt-5-mini, resets in 2h",
      "after a wait",
      "full",
      "switch-model gpt-5-mini (suggested) 1/2, resume s1",
    ],
    ["usage-limit, resets in 5h", "first, session", "full", "switch-model auto 1/2, resume s1"],
    [
      "usage-limit, resets in 5h",
      "after gpt-5-mini and auto",
      "full",
      "give-up reset-too-far (wait too-far)",
    ],
    ["usage-limit, resets in 5h", "first, session", "default", "give-up no-fallback (wait off)"],
    ["usage-limit", "after gpt-5-mini and auto", "full", "give-up no-fallback"],
    // Models the plan cannot use, or the agent does not know; a protocol it does not speak.
    ["model-unavailable", "first, session", "default", "give-up no-fallback"],
    ["model-unavailable", "first, session", "full", "switch-model auto 1/2, resume s1"],
    ["unknown-model", "on auto", "full", "give-up no-fallback"],
    ["protocol", "first, no session", "default", "give-up no-fallback"],
    ["protocol", "first, no session", "full", "switch-model auto 1/2, new session"],
    // Auth: each profile once, afresh (another account may not know the session).
    ["auth", "first, session", "default", "give-up no-profile"],
    ["auth", "first, session", "full", "switch-profile work 1/2, new session, original prompt"],
    [
      "auth",
      "after profile work",
      "full",
      "switch-profile spare 2/2, new session, original prompt",
    ],
    ["auth", "after profiles work and spare", "full", "give-up no-profile"],
  ] as const)("%s, %s, %s policy: %s", (failure, history, policy, expected) => {
    expect(
      show(decideRecovery(FAILURES[failure]!, HISTORIES[history]!, POLICIES[policy]!, CLOCK)),
    ).toBe(expected);
  });

  it.each([
    "trust",
    "policy",
    "unknown-session",
    "session-id",
    "agent-error",
    "tool-not-allowed",
    "tool-args-invalid",
  ] as const)("never retries %s, whatever the policy allows", (kind) => {
    const decision = decideRecovery(
      failureOf(kind, "x"),
      HISTORIES["first, session"]!,
      POLICIES.full!,
      CLOCK,
    );
    expect(decision).toMatchObject({ action: "give-up", reason: "final" });
  });

  it("resumes after an auth failure that interrupted work", () => {
    const decision = decideRecovery(
      FAILURES.auth!,
      { ...HISTORIES["first, session"]!, progressed: true },
      POLICIES.full!,
      CLOCK,
    );
    expect(decision).toMatchObject({
      action: "switch-profile",
      resume: "s1",
      prompt: { kind: "continue" },
    });
  });

  it("says what it does in one line", () => {
    expect(
      decideRecovery(FAILURES.overloaded!, HISTORIES["after 1 retry"]!, DEFAULT_POLICY, CLOCK).why,
    ).toBe("overloaded (HTTP 529): retry 2 of 3 in 3.0s, resuming the session with the prompt");
    expect(
      decideRecovery(FAILURES["usage-limit"]!, HISTORIES["first, session"]!, POLICIES.full!, CLOCK)
        .why,
    ).toBe("usage limit on gpt-5: switching to auto, resuming the session with the prompt");
    expect(
      decideRecovery(FAILURES["usage-limit"]!, HISTORIES["first, session"]!, DEFAULT_POLICY, CLOCK)
        .why,
    ).toBe("usage limit: no fallback model is configured");
  });

  it("never loops: an agent that always fails the same way ends in a bounded number of attempts", () => {
    for (const kind of FAILURE_KIND_NAMES) {
      for (const [name, policy] of Object.entries(POLICIES)) {
        const failure = failureOf(kind, "x", { fallbackModel: "gpt-5-mini", resetAt: NOW + HOUR });
        const previous: PastAttempt[] = [];
        let model: string | undefined = "gpt-5";
        let profile: string | undefined;
        let decision: RecoveryDecision;
        for (;;) {
          decision = decideRecovery(
            failure,
            { previous, sessionId: "s1", model, profile, progressed: true },
            policy,
            CLOCK,
          );
          previous.push({ failure: kind, action: decision.action, model, profile });
          if (decision.action === "give-up") break;
          if (decision.action === "switch-model") model = decision.model;
          if (decision.action === "switch-profile") profile = decision.profile;
          expect(previous.length, `${kind} under ${name}`).toBeLessThan(20);
        }
        const bound =
          1 +
          (policy.maxRetries + 1) * (policy.fallbackModels.length + 1) +
          policy.hang.maxRetries +
          policy.authProfiles.length +
          1;
        expect(previous.length, `${kind} under ${name}`).toBeLessThanOrEqual(bound);
      }
    }
  });
});
