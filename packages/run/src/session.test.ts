import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { createFormatter } from "@cursor-wrap/format";
import { openSessionLog, type SessionLog } from "@cursor-wrap/logger";
import { DEFAULT_POLICY, failureOf } from "@cursor-wrap/recovery";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { CancelReason } from "./ending.js";
import type { TurnRequest, TurnSettings } from "./run-turn.js";
import {
  type PromptInput,
  type PromptSource,
  runInteractiveSession,
  runPrintSession,
  type SessionContext,
} from "./session.js";
import type { TurnResult } from "./turn-result.js";

let dir: string;
let log: SessionLog;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "session-test-"));
  log = openSessionLog({ dir, retentionMs: 0, fsync: false });
});
afterEach(() => {
  vi.useRealTimers();
  log.close({ outcome: "test", flagged: false, exit_code: 0 });
  rmSync(dir, { recursive: true, force: true });
});

const REASON = {
  kind: "idle" as const,
  idleMs: 9,
  openCallCount: 0,
  openCalls: [],
  message: "idle 9ms",
};
const base = (sessionId: string | undefined) => ({
  sessionId,
  exit: { code: 0, signal: null },
  failure: undefined,
  resultIsError: false,
  durationMs: 5,
  toolCalls: 0,
  usage: undefined,
  lastStderr: undefined,
});

/** A session over scripted turn results; records the requests the turns got. */
function setUp(results: TurnResult[], options: Partial<SessionContext> = {}) {
  const requests: TurnRequest[] = [];
  const errors: string[] = [];
  const chunks: Buffer[] = [];
  const stdout = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(Buffer.from(chunk));
      callback();
    },
  });
  let resolveShutdown: (reason: CancelReason) => void = () => {};
  const context: SessionContext = {
    turn: {
      settings: { agentBin: "/nonexistent/cursor-agent", stderrMode: "errors" } as TurnSettings,
      log,
      formatter: createFormatter("stream-json", stdout),
      stdout,
      stderr: stdout,
    },
    control: {
      turnStarted() {},
      turnEnded() {},
      shutdown: new Promise((resolve) => {
        resolveShutdown = resolve;
      }),
      printError: (message) => errors.push(message),
    },
    resume: undefined,
    promptAfterHang: undefined,
    maxHangRetries: 3,
    async runTurn(_context, request) {
      requests.push(request);
      const result = results.shift();
      if (!result) throw new Error("no more scripted turns");
      return result;
    },
    ...options,
  };
  const wrapperLines = () =>
    Buffer.concat(chunks)
      .toString()
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return {
    context,
    requests,
    errors,
    wrapperLines,
    shutdown: (reason: CancelReason) => resolveShutdown(reason),
  };
}

const records = () =>
  readFileSync(join(dir, readdirSync(dir)[0]!), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

function reader(inputs: PromptInput[]): PromptSource {
  return {
    next: async () => inputs.shift() ?? { kind: "eof" },
    close() {},
  };
}

describe("runPrintSession", () => {
  it("retries hangs with --prompt-after-hang, resuming the session, then exits 0", async () => {
    const { context, requests, wrapperLines } = setUp(
      [
        { ...base("s1"), outcome: "hang", reason: REASON },
        { ...base("s1"), outcome: "hang", reason: REASON },
        { ...base("s1"), outcome: "completed" },
      ],
      { promptAfterHang: "continue" },
    );
    const result = await runPrintSession(context, "build it");
    expect(requests.map((request) => [request.prompt, request.resume])).toEqual([
      ["build it", undefined],
      ["continue", "s1"],
      ["continue", "s1"],
    ]);
    expect(result).toMatchObject({
      ending: { kind: "completed" },
      exitCode: 0,
      outcome: "completed",
      flagged: true,
      turns: 3,
      sessionId: "s1",
      exit: { code: 0, signal: null },
    });
    // The result accounts for every attempt and what ended each.
    expect(result.failures.map((failure) => failure.kind)).toEqual(["hang", "hang"]);
    expect(result.attempts.map((attempt) => [attempt.outcome, attempt.action])).toEqual([
      ["hang", "resume"],
      ["hang", "resume"],
      ["completed", undefined],
    ]);
    expect(wrapperLines().map((line) => [line.subtype, line.attempt])).toEqual([
      ["retry", 1],
      ["retry", 2],
    ]);
    const retries = records().filter((record) => record.msg === "retry");
    expect(retries.map((record) => record.reason)).toEqual([REASON, REASON]);
  });

  it("ends with a hang (exit 2) once the retries in a row are spent", async () => {
    const { context, wrapperLines } = setUp(
      [
        { ...base("s1"), outcome: "hang", reason: REASON },
        { ...base("s1"), outcome: "hang", reason: REASON },
      ],
      { promptAfterHang: "continue", maxHangRetries: 1 },
    );
    const result = await runPrintSession(context, "x");
    expect(result).toMatchObject({ ending: { kind: "hang" }, outcome: "hang", flagged: true });
    expect(wrapperLines().map((line) => line.subtype)).toEqual(["retry", "hang_detected"]);
  });

  it("reports a failure once, never retried, and exits with an error", async () => {
    const { context, errors, wrapperLines } = setUp(
      [
        {
          ...base(undefined),
          outcome: "abnormal",
          exit: { code: 1, signal: null },
          failure: failureOf("auth", "Authentication required"),
        },
      ],
      { promptAfterHang: "continue" },
    );
    const result = await runPrintSession(context, "x");
    expect(result).toMatchObject({ ending: { kind: "error" }, outcome: "failure", flagged: true });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("cursor-agent is not signed in");
    expect(wrapperLines().map((line) => line.subtype)).toEqual(["abnormal_exit"]);
  });
});

describe("runInteractiveSession", () => {
  it("asks for the next prompt after each turn, resuming the session, until end of input", async () => {
    const { context, requests } = setUp([
      { ...base("s1"), outcome: "completed" },
      { ...base("s1"), outcome: "hang", reason: REASON },
      { ...base("s1"), outcome: "completed" },
    ]);
    const result = await runInteractiveSession(
      context,
      reader([
        { kind: "prompt", text: "second" },
        { kind: "prompt", text: "third" },
      ]),
      "first",
    );
    expect(requests.map((request) => [request.prompt, request.resume])).toEqual([
      ["first", undefined],
      ["second", "s1"],
      ["third", "s1"],
    ]);
    expect(result).toMatchObject({
      ending: { kind: "completed" },
      outcome: "completed",
      flagged: true,
      turns: 3,
    });
  });

  it("tells the prompt when Ctrl+C ended the turn before it, cancelled or cut short", async () => {
    const { context } = setUp([
      { ...base("s1"), outcome: "completed" },
      { ...base("s1"), outcome: "cancelled", cancel: { kind: "turn", signal: "SIGINT" } },
      // Ctrl+C while a lingering agent that had answered was waited for.
      { ...base("s1"), outcome: "completed", interrupted: true },
    ]);
    const asked: Array<boolean | undefined> = [];
    const prompts: PromptInput[] = [
      { kind: "prompt", text: "second" },
      { kind: "prompt", text: "third" },
    ];
    await runInteractiveSession(
      context,
      {
        next: async (options) => {
          asked.push(options?.afterCancel);
          return prompts.shift() ?? { kind: "eof" };
        },
        close() {},
      },
      "first",
    );
    expect(asked).toEqual([false, true, true]);
  });

  it("exits 130 on Ctrl+C at an empty prompt", async () => {
    const { context } = setUp([]);
    const result = await runInteractiveSession(context, reader([{ kind: "interrupt" }]), undefined);
    expect(result).toMatchObject({
      ending: { kind: "signal", signal: "SIGINT" },
      outcome: "cancelled",
      turns: 0,
    });
  });
});

describe("recovery", () => {
  const USAGE = { inputTokens: 100, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 };
  const failed = (sessionId: string | undefined, failure: ReturnType<typeof failureOf>) => ({
    ...base(sessionId),
    outcome: "abnormal" as const,
    exit: { code: 1, signal: null },
    failure,
  });
  const CLOCK = { now: () => Date.UTC(2026, 8, 14), random: () => 0.5 };

  it("goes on with the fallback model on a usage limit, resuming the session, and adds up the attempts", async () => {
    const { context, requests, wrapperLines } = setUp(
      [
        failed("s1", failureOf("usage-limit", "Error: You've hit your usage limit")),
        { ...base("s1"), outcome: "completed", usage: USAGE },
      ],
      {
        model: "gpt-5",
        recovery: { ...DEFAULT_POLICY, fallbackModels: ["suggested", "auto"] },
        clock: CLOCK,
      },
    );
    const result = await runPrintSession(context, "build it");
    expect(result).toMatchObject({ ending: { kind: "completed" }, outcome: "completed", turns: 2 });
    expect(requests.map((request) => [request.prompt, request.resume, request.model])).toEqual([
      ["build it", undefined, undefined],
      ["build it", "s1", "auto"],
    ]);
    expect(wrapperLines()).toEqual([
      expect.objectContaining({
        subtype: "retry",
        kind: "usage-limit",
        action: "switch-model",
        model: "auto",
        wait_ms: 0,
        attempt: 1,
        max_attempts: 2,
        session_id: "s1",
        reason: "usage limit on gpt-5: switching to auto, resuming the session with the prompt",
      }),
    ]);
    expect(records().find((record) => record.msg === "attempts_summary")).toMatchObject({
      models: ["gpt-5", "auto"],
      usage: USAGE,
      attempts: [
        { attempt: 1, model: "gpt-5", failure: "usage-limit", action: "switch-model" },
        { attempt: 2, model: "auto", outcome: "completed" },
      ],
    });
  });

  it("retries a transient failure after the backoff, on a fake clock", async () => {
    vi.useFakeTimers();
    const overloaded = failureOf("overloaded", "Provider Error: We're having trouble connecting");
    const { context, requests } = setUp(
      [failed("s1", overloaded), failed("s1", overloaded), { ...base("s1"), outcome: "completed" }],
      { clock: CLOCK },
    );
    const done = runPrintSession(context, "build it");
    await vi.advanceTimersByTimeAsync(1_499);
    expect(requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(requests).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(2_999);
    expect(requests).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    const result = await done;
    expect(result).toMatchObject({ ending: { kind: "completed" }, turns: 3 });
    expect(requests.map((request) => [request.prompt, request.resume])).toEqual([
      ["build it", undefined],
      ["build it", "s1"],
      ["build it", "s1"],
    ]);
    expect(
      records()
        .filter((record) => record.msg === "wait_ended")
        .map((record) => [record.waited_ms, record.cancelled]),
    ).toEqual([
      [1_500, false],
      [3_000, false],
    ]);
    expect(records().find((record) => record.msg === "attempts_summary")).toMatchObject({
      waited_ms: 4_500,
    });
  });

  it("goes on from the work of an earlier attempt, however many failed after it (R-REC2)", async () => {
    vi.useFakeTimers();
    const overloaded = failureOf("overloaded", "Provider Error: We're having trouble connecting");
    const { context, requests } = setUp(
      [
        { ...failed("s1", overloaded), progressed: true },
        failed("s1", overloaded),
        failed("s1", overloaded),
        { ...base("s1"), outcome: "completed" },
      ],
      { clock: CLOCK },
    );
    const done = runPrintSession(context, "build it");
    await vi.runAllTimersAsync();
    expect(await done).toMatchObject({ ending: { kind: "completed" }, turns: 4 });
    const goOn = DEFAULT_POLICY.continuePrompt;
    expect(requests.map((request) => [request.prompt, request.resume])).toEqual([
      ["build it", undefined],
      [goOn, "s1"],
      [goOn, "s1"],
      [goOn, "s1"],
    ]);
  });

  it("ends a wait for a reset on Ctrl+C: no further attempt, the output closed as cancelled", async () => {
    vi.useFakeTimers();
    const now = Date.UTC(2026, 8, 14);
    let waiting: AbortController | undefined;
    const { context, requests, wrapperLines } = setUp(
      [
        failed(
          "s1",
          failureOf("usage-limit", "Error: You've hit your usage limit", {
            resetAt: now + 3_600_000,
            resetText: "in 1h",
          }),
        ),
      ],
      {
        recovery: { ...DEFAULT_POLICY, waitForReset: true },
        clock: { now: () => now, random: () => 0.5 },
      },
    );
    context.control = { ...context.control, turnStarted: (controller) => (waiting = controller) };
    const done = runPrintSession(context, "build it");
    await vi.advanceTimersByTimeAsync(60_000);
    waiting!.abort({ kind: "shutdown", signal: "SIGINT" });
    const result = await done;
    expect(result).toMatchObject({
      ending: { kind: "signal", signal: "SIGINT" },
      outcome: "cancelled",
    });
    expect(requests).toHaveLength(1);
    expect(wrapperLines().map((line) => [line.subtype, line.action ?? line.reason])).toEqual([
      ["retry", "wait-until"],
      ["cancelled", "cancelled by SIGINT"],
    ]);
    expect(records().find((record) => record.msg === "wait_ended")).toMatchObject({
      waited_ms: 60_000,
      cancelled: true,
      signal: "SIGINT",
    });
  });

  it("tries each auth profile once, afresh, then gives up with one message", async () => {
    const auth = failureOf("auth", "Authentication required.");
    const { context, requests, errors } = setUp(
      [failed(undefined, auth), failed(undefined, auth), failed(undefined, auth)],
      { recovery: { ...DEFAULT_POLICY, authProfiles: ["old", "new"] }, clock: CLOCK },
    );
    const result = await runPrintSession(context, "x");
    expect(result).toMatchObject({ ending: { kind: "error" }, outcome: "failure", turns: 3 });
    expect(requests.map((request) => request.profile)).toEqual([undefined, "old", "new"]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("cursor-agent is not signed in");
    expect(errors[0]).toContain("Every --auth-profile was tried.");
  });
});
