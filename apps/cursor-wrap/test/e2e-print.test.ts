// Print mode (-p) against the fake agent. What only the CLI's own process shows (the prompt on
// a real stdin, byte-identical output through a pipe, the hangs, kills and lingers of the
// acceptance checks) runs the built executable; what the CLI decides from the agent's output
// (deadlines that must not fire, retries, arguments, output formats) runs it in-process
// (`runWithFakeAgent`), the fake agent still a real process.

import { createLineFramer } from "@cursor-wrap/events";
import { realCapture } from "@cursor-wrap/fixtures";
import { agentEvents, type Step } from "@cursor-wrap/testkit";
import { describe, expect, it } from "vitest";
import {
  checkNoSurvivorsAfterAll,
  FAST,
  invocations,
  logRecords,
  run,
  wrapperLines,
} from "./harness.js";
import { type AgentScript, inMemoryAgent, runInProcess, runWithFakeAgent } from "./in-process.js";

checkNoSurvivorsAfterAll();

describe("cursor-wrap -p", () => {
  it("exits 0 when the agent completes, with the prompt on its stdin (AC1, AC14)", async () => {
    const result = await run(["-p", "fix", "the", "tests"], { scenario: "normal:50" });
    expect(result.code).toBe(0);
    const [invocation] = invocations(result);
    expect(invocations(result)).toHaveLength(1);
    expect(invocation).toMatchObject({
      stdin: "fix the tests",
      argv: ["--print", "--output-format", "stream-json", "--force"],
    });
    expect(result.stdout.toString()).toContain('"type":"result"');
  });

  it("reads the prompt from stdin to EOF when none is given", async () => {
    const result = await run(["-p"], { scenario: "quick", input: "line one\nline two\n" });
    expect(result.code).toBe(0);
    // Byte for byte, as cursor-agent would read it without the wrapper.
    expect(invocations(result)[0]?.stdin).toBe("line one\nline two\n");
  });

  it("is byte-identical to the agent's stream-json (AC8)", async () => {
    for (const name of [
      "reifying-cursor-hack--parallel-sleep",
      "isomorphx-gump--c2-stream-json-edit",
      "xpadev-net-agentic-automation--sample-log-TAIL-excerpt",
    ]) {
      const capture = realCapture(name);
      const result = await run(["-p", "go"], { scenario: `replay:${capture.path}`, speed: 1000 });
      expect(result.code, name).toBe(0);
      expect(result.stdout.equals(capture.bytes), name).toBe(true);
    }
  });

  it("forwards bare text, invalid UTF-8, non-objects and CRLF verbatim and logs them", async () => {
    const garbage = await run(["-p", "x"], { scenario: "garbage" });
    expect(garbage.code).toBe(0);
    expect(garbage.stdout.includes(Buffer.from([0xff, 0xfe]))).toBe(true);
    expect(garbage.stdout.toString("latin1")).toContain("\r\n");
    const texts = logRecords(garbage).filter(
      (record) => record.msg === "raw_event" && "raw_text" in record,
    );
    expect(texts.map((record) => [record.level, record.reason])).toEqual([
      [40, "not-json"],
      [40, "invalid-utf8"],
      [40, "not-object"],
      [40, "not-json"],
    ]);
    expect(
      logRecords(garbage).find(
        (record) => (record.raw as { type?: string })?.type === "brand_new_event",
      ),
    ).toBeDefined();
  });

  it("logs every raw event with recv_ts before forwarding it (AC6)", async () => {
    const result = await run(["-p", "x"], { scenario: "normal:20" });
    const stdoutLines = result.stdout.toString().trimEnd().split("\n");
    const raw = logRecords(result).filter((record) => record.msg === "raw_event");
    expect(raw).toHaveLength(stdoutLines.length);
    expect(raw.every((record) => typeof record.recv_ts === "number")).toBe(true);
    expect(raw.map((record) => JSON.stringify(record.raw))).toEqual(
      stdoutLines.map((line) => JSON.stringify(JSON.parse(line))),
    );
  });

  it("detects an idle hang at the idle timeout, kills the agent, exits 2 with a terminal wrapper line (AC2, AC7)", async () => {
    // A kill grace no loaded machine runs out of, for the agent to die of the SIGTERM.
    const result = await run(["-p", "x", ...FAST, "--kill-grace", "30s"], {
      scenario: "idle-hang",
    });
    expect(result.code).toBe(2);
    const [line] = wrapperLines(result.stdout);
    const sessionId = invocations(result)[0]!.sessionId;
    expect(line).toMatchObject({
      type: "wrapper",
      subtype: "hang_detected",
      verdict: "hang",
      session_id: sessionId,
      resume: `cursor-wrap --resume ${sessionId}`,
      partial_result: "",
    });
    expect(result.stdout.toString().trimEnd().split("\n").at(-1)).toContain(
      '"subtype":"hang_detected"',
    );
    const records = logRecords(result);
    const lastRaw = records.filter((record) => record.msg === "raw_event").at(-1)!;
    const hang = records.find((record) => record.msg === "hang_detected")!;
    expect(hang.reason).toMatchObject({
      kind: "idle",
      openCallCount: 0,
      lastEventType: "thinking/completed",
      openCalls: [],
    });
    expect((hang.ts as number) - (lastRaw.recv_ts as number)).toBeGreaterThanOrEqual(499);
    expect(records.find((record) => record.msg === "agent_killed")).toMatchObject({
      signal: "SIGTERM",
    });
  });

  it("detects a tool-timeout hang at declared timeout + grace (AC3)", async () => {
    const result = await run(["-p", "x", ...FAST], { scenario: "tool-hang:400" });
    expect(result.code).toBe(2);
    const records = logRecords(result);
    const opened = records.find((record) => record.msg === "tool_call_opened")!;
    const hang = records.find((record) => record.msg === "hang_detected")!;
    expect(opened).toMatchObject({ kind: "shell", timeout_ms: 400, label: "npm run build" });
    expect(hang.reason).toMatchObject({
      kind: "tool",
      openCallCount: 1,
      openCalls: [{ id: "call_hang\nfc_1", timeoutMs: 400, limitMs: 700 }],
    });
    // Measured from the receive time of the started line (the decision record is written just after).
    const started = records.find(
      (record) => (record.raw as { subtype?: string } | undefined)?.subtype === "started",
    )!;
    expect((hang.ts as number) - (started.recv_ts as number)).toBeGreaterThanOrEqual(699);
    expect(wrapperLines(result.stdout)[0]).toMatchObject({
      subtype: "hang_detected",
      partial_result: "Running the build.",
    });
  });

  it("does not kill a long tool call within its declared timeout (AC4)", async () => {
    // The tool runs 2 s in silence, far past the 700 ms idle timeout, but inside its declared 5 s.
    const result = await runWithFakeAgent(
      ["-p", "x", "--idle-timeout", "700ms", "--tool-grace", "300ms"],
      {
        scenario: "long-tool:2000",
      },
    );
    expect(result.code).toBe(0);
    expect(wrapperLines(result.stdout)).toEqual([]);
  });

  it("does not kill parallel calls when one finishes first (AC5)", async () => {
    // 2.4 s of silence while two calls run, one finishing after 0.8 s: far past the idle timeout.
    const result = await runWithFakeAgent(
      ["-p", "x", "--idle-timeout", "700ms", "--tool-grace", "300ms"],
      {
        scenario: "parallel:2400",
      },
    );
    expect(result.code).toBe(0);
  });

  it("uses per-kind defaults for MCP, background shells and await calls: no false hang", async () => {
    const started = (id: string, key: string, args: Record<string, unknown>): Step => ({
      type: "line",
      value: {
        type: "tool_call",
        subtype: "started",
        call_id: id,
        tool_call: { [key]: { args } },
        session_id: "s",
      },
    });
    const completed = (id: string, key: string): Step => ({
      type: "line",
      value: {
        type: "tool_call",
        subtype: "completed",
        call_id: id,
        tool_call: { [key]: { args: {}, result: { success: {} } } },
        session_id: "s",
      },
    });
    const scenario: Step[] = [
      { type: "line", value: { type: "system", subtype: "init", session_id: "s" } },
      started("mcp", "mcpToolCall", { providerIdentifier: "github", toolName: "search" }),
      { type: "sleep", ms: 1500 },
      completed("mcp", "mcpToolCall"),
      started("bg", "shellToolCall", { command: "npm run dev", isBackground: true }),
      completed("bg", "shellToolCall"),
      started("wait", "awaitToolCall", { taskId: "1", blockUntilMs: 5000 }),
      { type: "sleep", ms: 1500 },
      completed("wait", "awaitToolCall"),
      {
        type: "line",
        value: {
          type: "result",
          subtype: "success",
          is_error: false,
          result: "ok",
          session_id: "s",
        },
      },
    ];
    const result = await runWithFakeAgent(
      ["-p", "x", "--idle-timeout", "700ms", "--tool-grace", "200ms"],
      {
        scenario,
      },
    );
    expect(result.code).toBe(0);
    expect(logRecords(result).filter((record) => record.msg === "hang_detected")).toEqual([]);
  });

  it("kills a lingering agent after the exit grace and still exits 0", async () => {
    const result = await run(["-p", "x", ...FAST], { scenario: "linger" });
    expect(result.code).toBe(0);
    expect(wrapperLines(result.stdout)).toEqual([
      expect.objectContaining({ subtype: "linger_killed", verdict: "linger" }),
    ]);
    const records = logRecords(result);
    const received = records.find(
      (record) => (record.raw as { type?: string } | undefined)?.type === "result",
    )!;
    const linger = records.find((record) => record.msg === "linger_detected")!;
    expect((linger.ts as number) - (received.recv_ts as number)).toBeGreaterThanOrEqual(299);
    expect(records.at(-1)).toMatchObject({
      msg: "session_end",
      outcome: "linger",
      flagged: true,
      exit_code: 0,
    });
  });

  it("stops a turn past its budget with exit 2", async () => {
    const result = await runWithFakeAgent(["-p", "x", "--max-turn-duration", "600ms"], {
      scenario: "slow:5000",
    });
    expect(result.code).toBe(2);
    expect(wrapperLines(result.stdout)[0]).toMatchObject({
      subtype: "budget_exceeded",
      verdict: "budget",
    });
  });

  it("retries a hang by resuming the session with --prompt-after-hang, then succeeds", async () => {
    // The exit grace of FAST (300 ms) is shorter than a loaded machine may take to end the
    // second attempt after its result: that would add a linger verdict this test is not about.
    const flags = [...FAST.filter((_, index) => index < 4), "--exit-grace", "30s"];
    const result = await runWithFakeAgent(
      ["-p", "x", ...flags, "--prompt-after-hang", "continue please"],
      {
        scenario: ["tool-hang:200", "quick"],
      },
    );
    expect(result.code).toBe(0);
    const [first, second] = invocations(result);
    expect(second).toMatchObject({ stdin: "continue please", sessionId: first!.sessionId });
    expect(second!.argv).toEqual([
      "--print",
      "--output-format",
      "stream-json",
      "--resume",
      first!.sessionId,
      "--force",
    ]);
    expect(wrapperLines(result.stdout)).toEqual([
      expect.objectContaining({
        subtype: "retry",
        attempt: 1,
        max_attempts: 3,
        prompt: "continue please",
        session_id: first!.sessionId,
      }),
    ]);
    expect(logRecords(result).filter((record) => record.msg === "retry")).toHaveLength(1);
  });

  it("gives up after --max-hang-retries hangs in a row and exits 2", async () => {
    const result = await runWithFakeAgent(
      ["-p", "x", ...FAST, "--prompt-after-hang", "go on", "--max-hang-retries", "2"],
      { scenario: "idle-hang" },
    );
    expect(result.code).toBe(2);
    expect(invocations(result)).toHaveLength(3);
    expect(wrapperLines(result.stdout).map((line) => line.subtype)).toEqual([
      "retry",
      "retry",
      "hang_detected",
    ]);
  });

  it("resumes the session given with --resume on the first turn", async () => {
    const result = await runWithFakeAgent(["-p", "x", "--resume", "abc-123"], {
      scenario: "quick",
    });
    expect(result.code).toBe(0);
    expect(invocations(result)[0]?.argv).toEqual([
      "--print",
      "--output-format",
      "stream-json",
      "--force",
      "--resume",
      "abc-123",
    ]);
  });

  it("passes the agent's flags on in order, and after a prompt everything after -- unchanged", async () => {
    const result = await runWithFakeAgent(
      [
        "-p",
        "x",
        "--model",
        "gpt-5",
        "--workspace",
        "/tmp",
        "--no-force",
        "--",
        "--stream-partial-output",
        "-p",
        "--weird=1",
      ],
      {
        scenario: "quick",
      },
    );
    expect(invocations(result)[0]?.argv).toEqual([
      "--print",
      "--output-format",
      "stream-json",
      "--model",
      "gpt-5",
      "--workspace",
      "/tmp",
      "--stream-partial-output",
      "--weird=1",
    ]);
  });

  it("prints only the result object with --output-format json", async () => {
    const result = await runWithFakeAgent(["-p", "x", "--output-format", "json"], {
      scenario: "normal:10",
    });
    const lines = result.stdout.toString().trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ type: "result", subtype: "success" });
    const hang = await runWithFakeAgent(["-p", "x", "--output-format", "json", ...FAST], {
      scenario: "idle-hang",
    });
    expect(hang.code).toBe(2);
    expect(JSON.parse(hang.stdout.toString())).toMatchObject({
      type: "wrapper",
      subtype: "hang_detected",
    });
  });

  it("prints the final answer only with --output-format text to a pipe, as cursor-agent does", async () => {
    const result = await runWithFakeAgent(["-p", "x", "--output-format", "text"], {
      scenario: "normal:10",
    });
    expect(result.code).toBe(0);
    expect(result.stdout.toString()).toBe("All tests pass.\n");
  });

  // In-process: where the hint goes is decided by the format and the ending; agents in memory
  // (a hang is one that prints its start and then nothing until it is killed). The hang, the
  // exit without a result and the kill themselves are shown by real processes above.
  it("says how to resume after every abnormal ending: in the output, else once on stderr", async () => {
    const sessionId = "5d2c7a1e-0b6f-4d7e-9a43-3f1f0e8c2b11";
    const context = { sessionId, requestId: "req-hint" };
    const lines = (...events: Array<Record<string, unknown>>): string =>
      events.map((event) => `${JSON.stringify(event)}\n`).join("");
    const opening = lines(
      agentEvents.init(context),
      agentEvents.user(context, "x"),
      agentEvents.thinkingDelta(context, "Let me", Date.now()),
    );
    const hang: AgentScript = () => ({ stdout: opening, code: null });
    const abnormal: AgentScript = () => ({
      stdout: opening,
      stderr: "Error: stream closed unexpectedly\n",
      code: 3,
    });
    const errorResult: AgentScript = () => ({
      stdout: lines(
        { type: "system", subtype: "init", session_id: sessionId },
        {
          type: "result",
          subtype: "error",
          is_error: true,
          result: "failed",
          session_id: sessionId,
        },
      ),
      code: 0,
    });
    const cases: Array<[string, string, AgentScript, "output" | "stderr"]> = [
      // With neither stdout nor stderr a terminal, text is the final answer alone: no place for it.
      ["text", "a hang", hang, "stderr"],
      ["text", "an exit without a result", abnormal, "stderr"],
      ["text", "an is_error result", errorResult, "stderr"],
      ["stream-json", "a hang", hang, "output"],
      ["stream-json", "an is_error result", errorResult, "stderr"],
      ["json", "a hang", hang, "output"],
      ["json", "an is_error result", errorResult, "stderr"],
    ];
    for (const [format, what, script, where] of cases) {
      const label = `${format}, ${what}`;
      const agent = inMemoryAgent(script);
      // The exit without a result is retried (and fails each time): no need to wait long.
      const args = ["-p", "x", "--output-format", format, "--retry-backoff", "10ms", ...FAST];
      const result = await runInProcess(args, { startAgent: agent.start });
      expect(result.code, label).not.toBe(0);
      const hints = result.stderr.split("\n").filter((line) => line.includes("resume with:"));
      if (where === "stderr") {
        expect(hints, label).toEqual([`resume with: cursor-wrap --resume ${sessionId}`]);
        expect(result.stdout.toString(), label).not.toContain("--resume");
      } else {
        expect(hints, label).toEqual([]);
        expect(result.stdout.toString(), label).toContain(
          `"resume":"cursor-wrap --resume ${sessionId}"`,
        );
      }
    }
    // A turn that went well needs no hint.
    const fine = await runInProcess(["-p", "x", "--output-format", "text"], {
      startAgent: inMemoryAgent().start,
    });
    expect(fine.code).toBe(0);
    expect(fine.stderr).not.toContain("resume with:");
  });

  it("forwards a line above the parse cap and logs its length, not its content", async () => {
    const result = await run(["-p", "x", "--parse-cap", "64KiB"], {
      scenario: "huge-line:3000000",
    });
    expect(result.code).toBe(0);
    const framer = createLineFramer({ parseCap: Number.MAX_SAFE_INTEGER });
    const longest = Math.max(...framer.push(result.stdout).map((event) => event.line.length));
    expect(longest).toBeGreaterThan(3_000_000);
    const records = logRecords(result);
    expect(records.find((record) => record.msg === "raw_event_end")).toMatchObject({
      oversize: true,
      bytes: longest,
    });
    expect(records.find((record) => record.truncated === true)?.raw_head).toHaveLength(4096);
  });
});
