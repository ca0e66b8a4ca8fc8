import { DEFAULT_POLICY, failureOf } from "@cursor-wrap/recovery";
import { describe, expect, it } from "vitest";
import { decideAfterTurn, type SessionState } from "./decide-after-turn.js";
import type { TurnResult } from "./turn-result.js";

const REASON = { kind: "idle" as const, idleMs: 1, openCallCount: 0, openCalls: [], message: "x" };
const BASE = {
  sessionId: "s",
  exit: { code: 0, signal: null },
  failure: undefined,
  resultIsError: false,
  durationMs: 1,
  toolCalls: 0,
  usage: undefined,
  lastStderr: undefined,
};
const RESULTS: Record<string, TurnResult> = {
  completed: { ...BASE, outcome: "completed" },
  "completed is_error": { ...BASE, outcome: "completed", resultIsError: true },
  linger: { ...BASE, outcome: "linger", reason: REASON },
  hang: { ...BASE, outcome: "hang", reason: REASON },
  budget: { ...BASE, outcome: "budget", reason: REASON },
  abnormal: { ...BASE, outcome: "abnormal", exit: { code: 3, signal: null } },
  "hang + auth failure": {
    ...BASE,
    outcome: "hang",
    reason: REASON,
    failure: failureOf("auth", "Authentication required"),
  },
  "hang after an overload message": {
    ...BASE,
    outcome: "hang",
    reason: REASON,
    failure: failureOf("overloaded", "Provider Error: We're having trouble connecting"),
  },
  "Ctrl+C": { ...BASE, outcome: "cancelled", cancel: { kind: "turn", signal: "SIGINT" } },
  SIGTERM: { ...BASE, outcome: "cancelled", cancel: { kind: "shutdown", signal: "SIGTERM" } },
  EPIPE: { ...BASE, outcome: "cancelled", cancel: { kind: "output", code: "EPIPE" } },
};

const state = (mode: SessionState["mode"], retries: "none" | "left" | "spent"): SessionState => ({
  mode,
  sessionId: "s",
  policy: {
    ...DEFAULT_POLICY,
    hang: { prompt: retries === "none" ? undefined : "continue", maxRetries: 2 },
  },
  // Two hangs already retried: the budget of hang retries is spent.
  previous:
    retries === "spent"
      ? [1, 2].map(() => ({
          failure: "hang" as const,
          action: "resume" as const,
          model: undefined,
          profile: undefined,
        }))
      : [],
  model: undefined,
  profile: undefined,
  clock: { now: () => 0, random: () => 0.5 },
});

const show = (step: ReturnType<typeof decideAfterTurn>): string => {
  switch (step.next) {
    case "exit":
    case "quit":
      return `${step.next} ${step.ending.kind}${step.ending.kind === "signal" ? ` ${step.ending.signal}` : ""}`;
    case "retry":
      return `retry ${step.attempt}/${step.maxAttempts}`;
    case "ask":
      return "ask";
  }
};

describe("decideAfterTurn", () => {
  // outcome × mode × retry budget → what follows
  it.each([
    ["completed", "print", "none", "exit completed"],
    ["completed", "interactive", "none", "ask"],
    ["completed is_error", "print", "none", "exit error"],
    ["completed is_error", "interactive", "none", "ask"],
    ["linger", "print", "left", "exit completed"],
    ["linger", "interactive", "left", "ask"],
    ["hang", "print", "none", "exit hang"],
    ["hang", "print", "left", "retry 1/2"],
    ["hang", "print", "spent", "exit hang"],
    ["hang", "interactive", "none", "ask"],
    ["hang", "interactive", "left", "retry 1/2"],
    ["hang", "interactive", "spent", "ask"],
    ["budget", "print", "left", "exit hang"],
    ["budget", "interactive", "left", "ask"],
    ["abnormal", "print", "left", "exit error"],
    ["abnormal", "interactive", "left", "ask"],
    ["hang + auth failure", "print", "left", "exit error"],
    ["hang + auth failure", "interactive", "left", "exit error"],
    // A transient message before a hang does not make it anything but a hang.
    ["hang after an overload message", "print", "left", "retry 1/2"],
    ["hang after an overload message", "print", "none", "exit hang"],
    ["Ctrl+C", "interactive", "none", "ask"],
    ["SIGTERM", "print", "none", "exit signal SIGTERM"],
    ["SIGTERM", "interactive", "none", "exit signal SIGTERM"],
    ["EPIPE", "print", "left", "quit error"],
  ] as const)("%s, %s, retries %s: %s", (outcome, mode, retries, expected) => {
    expect(show(decideAfterTurn(RESULTS[outcome]!, state(mode, retries)))).toBe(expected);
  });

  it("never retries without a session to resume", () => {
    const step = decideAfterTurn(RESULTS.hang!, {
      ...state("print", "left"),
      sessionId: undefined,
    });
    expect(show(step)).toBe("exit hang");
  });
});

describe("decideAfterTurn with the recovery policy", () => {
  const overloaded: TurnResult = {
    ...BASE,
    outcome: "abnormal",
    exit: { code: 1, signal: null },
    failure: failureOf("overloaded", "Provider Error: We're having trouble connecting"),
  };

  it("retries a transient failure after a backoff, resuming the session", () => {
    const step = decideAfterTurn(overloaded, state("print", "none"));
    expect(step).toMatchObject({
      next: "retry",
      prompt: undefined,
      attempt: 1,
      maxAttempts: 3,
      recovery: { action: "resume", resume: "s", delayMs: 1_500 },
    });
  });

  it("sends the continue prompt when the failed attempt had done work", () => {
    const step = decideAfterTurn({ ...overloaded, progressed: true }, state("print", "none"));
    expect(step).toMatchObject({ next: "retry", prompt: DEFAULT_POLICY.continuePrompt });
  });

  it("goes on from an earlier attempt's work when this one did none (R-REC2)", () => {
    // The first attempt worked and failed; the second failed before doing anything: the third
    // must still go on, not send the prompt again to a session that did part of it.
    const step = decideAfterTurn(overloaded, { ...state("print", "none"), progressed: true });
    expect(step).toMatchObject({
      next: "retry",
      prompt: DEFAULT_POLICY.continuePrompt,
      recovery: { resume: "s" },
    });
  });

  it("gives up a transient failure once the retries are spent: exit 1 with -p, ask interactively", () => {
    const spent = {
      ...state("print", "none"),
      previous: [1, 2, 3].map(() => ({
        failure: "overloaded" as const,
        action: "resume" as const,
        model: undefined,
        profile: undefined,
      })),
    };
    expect(decideAfterTurn(overloaded, spent)).toMatchObject({
      next: "exit",
      ending: { kind: "error" },
      gaveUp: { decision: { reason: "retries-spent" } },
    });
    expect(decideAfterTurn(overloaded, { ...spent, mode: "interactive" })).toMatchObject({
      next: "ask",
    });
  });

  it("switches to a fallback model on a usage limit", () => {
    const limited: TurnResult = {
      ...overloaded,
      failure: failureOf("usage-limit", "Error: You've hit your usage limit"),
    };
    const step = decideAfterTurn(limited, {
      ...state("print", "none"),
      policy: { ...DEFAULT_POLICY, fallbackModels: ["auto"] },
      model: "gpt-5",
    });
    expect(step).toMatchObject({
      next: "retry",
      recovery: { action: "switch-model", model: "auto" },
    });
  });
});
