import { describe, expect, it } from "vitest";
import { summarizeAttempts, sumUsage } from "./attempts.js";

describe("summarizeAttempts", () => {
  it("adds up usage, time, waits and tool calls, and lists the models once each", () => {
    expect(
      summarizeAttempts([
        {
          failure: "usage-limit",
          action: "switch-model",
          model: "gpt-5",
          profile: undefined,
          outcome: "abnormal",
          durationMs: 800,
          toolCalls: 0,
          usage: undefined,
          waitedMs: 0,
        },
        {
          failure: "overloaded",
          action: "resume",
          model: "auto",
          profile: undefined,
          outcome: "abnormal",
          durationMs: 1_200,
          toolCalls: 2,
          usage: { inputTokens: 100, outputTokens: 10 },
          waitedMs: 1_500,
        },
        {
          failure: undefined,
          action: undefined,
          model: "auto",
          profile: undefined,
          outcome: "completed",
          durationMs: 3_000,
          toolCalls: 1,
          usage: { inputTokens: 1_000, outputTokens: 80, cacheReadTokens: 300 },
          waitedMs: 0,
        },
      ]),
    ).toEqual({
      attempts: 3,
      usage: { inputTokens: 1_100, outputTokens: 90, cacheReadTokens: 300 },
      models: ["gpt-5", "auto"],
      waitedMs: 1_500,
      durationMs: 5_000,
      toolCalls: 3,
    });
  });

  it("has no usage when no attempt reported any, and names the agent's default model", () => {
    expect(sumUsage([undefined, undefined])).toBeUndefined();
    expect(
      summarizeAttempts([
        {
          failure: undefined,
          action: undefined,
          model: undefined,
          profile: undefined,
          outcome: "completed",
          durationMs: 1,
          toolCalls: 0,
          usage: undefined,
          waitedMs: 0,
        },
      ]).models,
    ).toEqual(["default"]);
  });
});
