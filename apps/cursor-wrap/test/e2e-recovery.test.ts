// The failures that end runs more often than hangs, and what cursor-wrap does about them
// (retries with backoff, fallback models, waits for a reset, auth profiles, the protocol check),
// against the fake agent as a real process, with short real delays. The checks a user would
// run, Ctrl+C during a wait and the countdown on a terminal run the built CLI; the rest run
// the CLI in-process (`runWithFakeAgent`): what it decides does not depend on its own process.

import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_CONTINUE_PROMPT } from "@cursor-wrap/recovery";
import { fakeAgentBin } from "@cursor-wrap/testkit";
import { describe, expect, it } from "vitest";
import {
  checkNoSurvivorsAfterAll,
  invocations,
  logFiles,
  logRecords,
  onTerminal,
  pty,
  run,
  wrap,
  wrapperLines,
} from "./harness.js";
import { runWithFakeAgent } from "./in-process.js";

checkNoSurvivorsAfterAll();

/** The JSON lines of a stream-json output, in order. */
const lines = (stdout: Buffer): Array<Record<string, unknown>> =>
  stdout
    .toString("utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

const OURS = ["--print", "--output-format", "stream-json"];

describe("the checks a user would run", () => {
  it("goes on with Auto when the named model hits its usage limit: one final result, exit 0", async () => {
    const result = await run(
      [
        "-p",
        "--output-format",
        "json",
        "-m",
        "gpt-5",
        "--fallback-model",
        "auto",
        "fix the failing test",
      ],
      { scenario: "usage-limit" },
    );
    expect(result.code).toBe(0);
    const printed = result.stdout.toString().trimEnd().split("\n");
    expect(printed).toHaveLength(1);
    const [first, second] = invocations(result);
    expect(JSON.parse(printed[0]!)).toMatchObject({
      type: "result",
      subtype: "success",
      is_error: false,
      session_id: first!.sessionId,
    });
    // The named model hit the limit; the session went on with Auto, resumed.
    expect([first!.model, second!.model]).toEqual(["gpt-5", "auto"]);
    expect(second!.argv).toEqual([
      ...OURS,
      "--resume",
      first!.sessionId,
      "--force",
      "--model",
      "auto",
    ]);
    expect(logRecords(result).find((record) => record.msg === "attempts_summary")).toMatchObject({
      models: ["gpt-5", "auto"],
      attempts: [
        { model: "gpt-5", failure: "usage-limit", action: "switch-model" },
        { model: "auto", outcome: "completed" },
      ],
    });
  });

  it("with default settings, an agent overloaded twice and then fine ends in exit 0 with one result", async () => {
    const result = await run(["-p", "fix the failing test"], { scenario: "overloaded:2" });
    expect(result.code).toBe(0);
    const stream = lines(result.stdout);
    expect(stream.filter((line) => line.type === "result")).toHaveLength(1);
    // Each attempt's output as the agent wrote it, one retry line between two attempts.
    expect(stream.map((line) => line.type)).toEqual([
      "system",
      "user",
      "wrapper",
      "system",
      "user",
      "wrapper",
      "system",
      "user",
      "assistant",
      "result",
    ]);
    const retries = wrapperLines(result.stdout);
    expect(retries).toEqual([
      expect.objectContaining({
        subtype: "retry",
        kind: "overloaded",
        action: "resume",
        attempt: 1,
      }),
      expect.objectContaining({
        subtype: "retry",
        kind: "overloaded",
        action: "resume",
        attempt: 2,
      }),
    ]);
    // The default backoff: 1–2 s, then 2–4 s, really waited.
    const [firstWait, secondWait] = retries.map((line) => Number(line.wait_ms));
    expect(firstWait).toBeGreaterThanOrEqual(1_000);
    expect(firstWait).toBeLessThanOrEqual(2_000);
    expect(secondWait).toBeGreaterThanOrEqual(2_000);
    expect(secondWait).toBeLessThanOrEqual(4_000);
    expect(result.elapsedMs).toBeGreaterThanOrEqual(firstWait! + secondWait!);
    const calls = invocations(result);
    expect(calls).toHaveLength(3);
    // Nothing was done yet: the same session is resumed with the same prompt.
    expect(calls.map((call) => [call.stdin, call.sessionId])).toEqual(
      [1, 2, 3].map(() => ["fix the failing test", calls[0]!.sessionId]),
    );
    const records = logRecords(result);
    expect(records.filter((record) => record.msg === "wait_ended")).toHaveLength(2);
    expect(records.find((record) => record.msg === "attempts_summary")).toMatchObject({
      models: ["default"],
      usage: { inputTokens: 1200, outputTokens: 80 },
    });
    expect(result.stderr).toContain("cursor-wrap warn: retry: overloaded: retry 1 of 3 in");
  });
});

describe("transient failures", () => {
  it("resumes a session that ended mid-turn after a tool call, asking it to go on: the call is not repeated", async () => {
    const result = await runWithFakeAgent(["-p", "run the tests", "--retry-backoff", "100ms"], {
      scenario: "crash-after-tools",
    });
    expect(result.code).toBe(0);
    const stream = lines(result.stdout);
    expect(stream.filter((line) => line.type === "tool_call")).toHaveLength(2);
    expect(stream.filter((line) => line.type === "result")).toHaveLength(1);
    const [first, second] = invocations(result);
    expect(second!.argv).toEqual([...OURS, "--resume", first!.sessionId, "--force"]);
    expect(second!.stdin).toBe(DEFAULT_CONTINUE_PROMPT);
    expect(wrapperLines(result.stdout)).toEqual([
      expect.objectContaining({
        kind: "ended-mid-turn",
        action: "resume",
        prompt: DEFAULT_CONTINUE_PROMPT,
      }),
    ]);
  });

  it("retries a rate limit and a lost connection", async () => {
    for (const [scenario, kind] of [
      ["rate-limited:1", "rate-limit"],
      ["connection-lost:1", "connection"],
    ] as const) {
      const result = await runWithFakeAgent(["-p", "x", "--retry-backoff", "100ms"], { scenario });
      expect(result.code, scenario).toBe(0);
      expect(wrapperLines(result.stdout).map((line) => line.kind)).toEqual([kind]);
    }
  });

  it("gives up after the retries and says so: the terminal line alone with json, exit 1", async () => {
    const result = await runWithFakeAgent(
      ["-p", "x", "--output-format", "json", "--retry-backoff", "50ms", "--max-retries", "2"],
      { scenario: "overloaded:9" },
    );
    expect(result.code).toBe(1);
    expect(invocations(result)).toHaveLength(3);
    const printed = result.stdout.toString().trimEnd().split("\n");
    expect(printed).toHaveLength(1);
    expect(JSON.parse(printed[0]!)).toMatchObject({
      type: "wrapper",
      subtype: "abnormal_exit",
      attempts: 3,
      reason: expect.stringMatching(
        /^cursor-agent's model is overloaded or unavailable: Provider Error/,
      ),
    });
    expect(result.stderr).toContain(
      "cursor-wrap: cursor-agent's model is overloaded or unavailable: Provider Error: We're having trouble connecting to the model provider.",
    );
    expect(result.stderr).toContain("Gave up after 3 attempts (--max-retries 2).");
    expect(logRecords(result).find((record) => record.msg === "agent_failure")).toMatchObject({
      kind: "overloaded",
      transient: true,
      gave_up: "overloaded: gave up after 2 retries",
    });
  });

  it("says what happened in one line per attempt in the text view", async () => {
    const result = await runWithFakeAgent(["--retry-backoff", "50ms"], {
      scenario: "overloaded:1",
      input: "fix it\n",
    });
    expect(result.code).toBe(0);
    const text = result.stdout.toString();
    expect(text).toMatch(
      /↻ overloaded: retry 1 of 3 in \d+ms, resuming the session with the prompt\n/,
    );
    expect(text).toContain("Done: fix it");
  });
});

describe("limits, models and protocols", () => {
  it("switches a model the plan cannot use, or the agent does not know, to the fallback", async () => {
    for (const [scenario, model] of [
      ["plan-error", "gpt-5"],
      ["unknown-model", "gpt-9"],
    ] as const) {
      const result = await runWithFakeAgent(["-p", "x", "-m", model, "--fallback-model", "auto"], {
        scenario,
      });
      expect(result.code, scenario).toBe(0);
      expect(invocations(result).map((call) => call.model)).toEqual([model, "auto"]);
    }
  });

  it("waits for a usage limit's reset with --wait-for-reset, then resumes", async () => {
    const result = await runWithFakeAgent(["-p", "x", "--wait-for-reset"], {
      scenario: "usage-limit-soon:2",
    });
    expect(result.code).toBe(0);
    expect(invocations(result)).toHaveLength(2);
    const [retry] = wrapperLines(result.stdout);
    expect(retry).toMatchObject({ kind: "usage-limit", action: "wait-until" });
    expect(Number(retry!.wait_ms)).toBeGreaterThan(0);
    const waited = logRecords(result).find((record) => record.msg === "wait_ended");
    expect(waited).toMatchObject({ cancelled: false });
    expect(Number(waited!.waited_ms)).toBeGreaterThanOrEqual(Number(retry!.wait_ms) - 5);
  });

  it("ends a wait cleanly on Ctrl+C: exit 130, and the log says so", async () => {
    const wrapped = wrap(["-p", "x", "--wait-for-reset"], { scenario: "usage-limit-soon:600" });
    await wrapped.stdoutHas('"action":"wait-until"');
    wrapped.child.kill("SIGINT");
    const result = await wrapped.done;
    expect(result.code).toBe(130);
    expect(invocations(result)).toHaveLength(1);
    expect(wrapperLines(result.stdout).map((line) => line.subtype)).toEqual(["retry", "cancelled"]);
    const records = logRecords(result);
    expect(records.find((record) => record.msg === "wait_ended")).toMatchObject({
      cancelled: true,
      signal: "SIGINT",
    });
    expect(records.at(-1)).toMatchObject({
      msg: "session_end",
      outcome: "signal SIGINT",
      exit_code: 130,
    });
  });

  it("fails closed on an unsupported protocol version, or tries the fallback model", async () => {
    const closed = await runWithFakeAgent(["-p", "x"], { scenario: "protocol:2.0" });
    expect(closed.code).toBe(1);
    expect(invocations(closed)).toHaveLength(1);
    expect(closed.stderr).toContain(
      "cursor-wrap: cursor-agent speaks protocol version 2.0, which cursor-wrap does not support (it supports 1.0); the agent was stopped",
    );
    expect(logRecords(closed).find((record) => record.msg === "agent_killed")).toMatchObject({
      reason: "unsupported protocol version 2.0",
    });
    // Failing closed: the version line is forwarded, nothing the agent says after it is.
    expect(lines(closed.stdout).map((line) => line.type)).toEqual(["protocol", "wrapper"]);
    const fallback = await runWithFakeAgent(
      ["-p", "x", "-m", "gpt-5", "--fallback-model", "auto"],
      {
        scenario: "protocol:2.0",
      },
    );
    expect(fallback.code).toBe(0);
    expect(invocations(fallback).map((call) => call.model)).toEqual(["gpt-5", "auto"]);
    const unchanged = await runWithFakeAgent(["-p", "x"], { scenario: "protocol:1.0" });
    expect(unchanged.code).toBe(0);
  });

  it("never retries what no retry can fix", async () => {
    for (const scenario of [
      "trust-required",
      "headless-disabled",
      "bad-session-id",
      "error-event",
    ]) {
      const result = await runWithFakeAgent(
        ["-p", "x", "--fallback-model", "auto", "--auth-profile", "spare"],
        {
          scenario,
          env: { CURSOR_WRAP_AUTH_SPARE: "k" },
        },
      );
      expect(result.code, scenario).toBe(1);
      expect(invocations(result), scenario).toHaveLength(1);
    }
  });
});

describe("auth profiles", () => {
  it("tries each profile in order, once, and never shows or logs their keys", async () => {
    const dir = join(process.env.TMPDIR ?? "/tmp", `cursor-wrap-keys-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    const keyFile = join(dir, "new.key");
    writeFileSync(keyFile, "good-key-8c41f\n", { mode: 0o600 });
    const result = await runWithFakeAgent(["-p", "x", "--auth-profile", "old,new"], {
      scenario: "needs-key:good-key-8c41f",
      env: {
        CURSOR_WRAP_AUTH_OLD: "stale-key-77d2e",
        CURSOR_WRAP_AUTH_NEW_FILE: keyFile,
        // A closed port: refused at once (the agent must not see the URL either way).
        CURSOR_WRAP_NOTIFY: "http://127.0.0.1:9/T0/secret-path",
      },
    });
    expect(result.code).toBe(0);
    expect(invocations(result).map((call) => call.apiKey)).toEqual([
      undefined,
      "stale-key-77d2e",
      "good-key-8c41f",
    ]);
    // The agent and its tools see the key in use only: no profile's variables, no webhook.
    for (const call of invocations(result)) {
      expect(call.wrapperVariables).not.toContainEqual(expect.stringMatching(/AUTH|NOTIFY/));
      expect(call.wrapperVariables).toContain("CURSOR_WRAP_AGENT_TOKEN");
    }
    expect(wrapperLines(result.stdout).map((line) => [line.action, line.profile])).toEqual([
      ["switch-profile", "old"],
      ["switch-profile", "new"],
    ]);
    const everything = [
      result.stdout.toString(),
      result.stderr,
      ...logFiles(result).map((file) => readFileSync(file, "utf8")),
    ].join("\n");
    for (const key of ["stale-key-77d2e", "good-key-8c41f"]) expect(everything).not.toContain(key);
  });

  it("says which variables a profile lacks, before starting the agent", async () => {
    const result = await runWithFakeAgent(["-p", "x", "--auth-profile", "missing"], {
      scenario: "quick",
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'cursor-wrap: auth profile "missing" has no credentials: set CURSOR_WRAP_AUTH_MISSING to an API key, or CURSOR_WRAP_AUTH_MISSING_FILE to a file holding one; see cursor-wrap --help\n',
    );
    expect(invocations(result)).toEqual([]);
  });
});

describe("the agent's version", () => {
  it("notes once, at info with -p, an agent newer than the newest version tested", async () => {
    const dir = join(process.env.TMPDIR ?? "/tmp", `cursor-wrap-versions-${process.pid}`);
    const installed = join(dir, "versions", "2099.01.01-test");
    mkdirSync(installed, { recursive: true });
    const bin = join(installed, "cursor-agent");
    writeFileSync(bin, `#!/bin/sh\nexec "${process.execPath}" "${fakeAgentBin}" "$@"\n`);
    chmodSync(bin, 0o755);
    const result = await runWithFakeAgent(
      ["-p", "x", "--agent-bin", bin, "--retry-backoff", "50ms"],
      {
        scenario: "overloaded:1",
      },
    );
    expect(result.code).toBe(0);
    expect(invocations(result)).toHaveLength(2);
    expect(
      result.stderr.match(/is newer than the newest version cursor-wrap was tested with/g),
    ).toHaveLength(1);
    expect(logRecords(result).filter((record) => record.msg === "agent_version_untested")).toEqual([
      expect.objectContaining({ version: "2099.01.01-test", newest_tested: "2026.09.10" }),
    ]);
  });
});

describe.runIf(pty !== null)("on a terminal", () => {
  it("counts down a wait for a reset on stderr", async () => {
    const session = onTerminal(["-p", "x", "--wait-for-reset"], { scenario: "usage-limit-soon:3" });
    await session.sees("resuming in");
    expect(await session.exited).toBe(0);
    expect(session.output()).toContain("(Ctrl+C to stop)");
  });
});
