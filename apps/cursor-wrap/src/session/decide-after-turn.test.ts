import { describe, expect, it } from "vitest";
import type { TurnResult } from "../turn/turn-result.js";
import { decideAfterTurn, nextConsecutiveHangs, type SessionState } from "./decide-after-turn.js";

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
    failure: { kind: "auth", detail: "Authentication required" },
  },
  "Ctrl+C": { ...BASE, outcome: "cancelled", cancel: { kind: "turn", signal: "SIGINT" } },
  SIGTERM: { ...BASE, outcome: "cancelled", cancel: { kind: "shutdown", signal: "SIGTERM" } },
  EPIPE: { ...BASE, outcome: "cancelled", cancel: { kind: "output", code: "EPIPE" } },
};

const state = (mode: SessionState["mode"], retries: "none" | "left" | "spent"): SessionState => ({
  mode,
  sessionId: "s",
  promptAfterHang: retries === "none" ? undefined : "continue",
  maxHangRetries: 2,
  consecutiveHangs: retries === "spent" ? 2 : 0,
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

describe("nextConsecutiveHangs", () => {
  it("counts retries in a row and starts over after a settled turn", () => {
    const retry = { next: "retry", prompt: "p", attempt: 1, maxAttempts: 2 } as const;
    expect(nextConsecutiveHangs(RESULTS.hang!, retry, 1)).toBe(2);
    expect(nextConsecutiveHangs(RESULTS.completed!, { next: "ask" }, 2)).toBe(0);
    expect(nextConsecutiveHangs(RESULTS.hang!, { next: "ask" }, 2)).toBe(0);
    expect(nextConsecutiveHangs(RESULTS["Ctrl+C"]!, { next: "ask" }, 2)).toBe(2);
  });
});
