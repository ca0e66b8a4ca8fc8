import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { createLineFramer, sessionIdOf } from "@cursor-wrap/events";
import { realCapture } from "@cursor-wrap/fixtures";
import { createFormatter } from "@cursor-wrap/format";
import { openSessionLog, type SessionLog } from "@cursor-wrap/logger";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { CancelReason } from "./ending.js";
import { fakeAgentProcess } from "./fake-agent-process.js";
import { runTurn, type TurnContext, type TurnRequest, type TurnSettings } from "./run-turn.js";

let dir: string;
let log: SessionLog;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "run-turn-test-"));
  log = openSessionLog({ dir, retentionMs: 0, fsync: false });
});
afterEach(() => {
  vi.useRealTimers();
  log.close({ outcome: "test", flagged: false, exit_code: 0 });
  rmSync(dir, { recursive: true, force: true });
});

const SETTINGS: TurnSettings = {
  agentBin: "cursor-agent",
  agentArgs: ({ resume }) => ["--print", ...(resume ? ["--resume", resume] : [])],
  pty: false,
  killGraceMs: 3_000,
  drainGraceMs: 2_000,
  parseCap: 16 * 1024 * 1024,
  stderrMode: "errors",
  monitor: { idleTimeoutMs: 60_000, toolGraceMs: 30_000, exitGraceMs: 10_000 },
};

function sink() {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(Buffer.from(chunk));
      callback();
    },
  });
  return { stream, bytes: () => Buffer.concat(chunks) };
}

function setUp(settings: Partial<TurnSettings> = {}, now?: () => number) {
  const agent = fakeAgentProcess();
  const stdout = sink();
  const stderr = sink();
  const context: TurnContext = {
    settings: { ...SETTINGS, ...settings },
    log,
    formatter: createFormatter("stream-json", stdout.stream),
    stdout: stdout.stream,
    stderr: stderr.stream,
    start: agent.start,
    ...(now ? { now } : {}),
  };
  return { agent, context, stdout, stderr };
}

/** A first turn with prompt "x", unless `request` says otherwise. */
function startTurn(context: TurnContext, request: Partial<TurnRequest> = {}) {
  return runTurn(context, {
    prompt: "x",
    resume: undefined,
    firstTurn: true,
    signal: new AbortController().signal,
    ...request,
  });
}

function records(): Array<Record<string, unknown>> {
  const [file] = readdirSync(dir);
  return readFileSync(join(dir, file!), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const SESSION = "9e61a1c4-1d7a-4a38-a3f5-0f9ad3a8a1d2";
const line = (value: unknown): string => `${JSON.stringify(value)}\n`;

describe("runTurn", () => {
  it("forwards a real capture byte for byte and collects what the turn learnt", async () => {
    const capture = realCapture("reifying-cursor-hack--direct-sleep");
    const events = createLineFramer().push(capture.bytes);
    const { agent, context, stdout } = setUp();
    const controller = new AbortController();
    const turn = startTurn(context, { prompt: "sleep", signal: controller.signal });
    await agent.whenStarted;
    agent.stdout(capture.bytes);
    agent.exit();
    const result = await turn;
    expect(stdout.bytes().equals(capture.bytes)).toBe(true);
    expect(result).toMatchObject({
      outcome: "completed",
      sessionId: events.map(sessionIdOf).find(Boolean),
      toolCalls: events.filter((event) => event.kind === "json" && event.subtype === "started")
        .length,
      exit: { code: 0, signal: null },
      failure: undefined,
    });
    expect(agent.started).toMatchObject({
      bin: "cursor-agent",
      args: ["--print"],
      prompt: "sleep",
    });
    const messages = records().map((record) => record.msg);
    expect(messages.filter((message) => message === "tool_call_opened")).toHaveLength(
      result.toolCalls,
    );
    expect(messages).toContain("result_received");
    expect(messages.at(-1)).toBe("agent_exited");
  });

  it("records how each tool call ended, a refused one included (a real capture)", async () => {
    const capture = realCapture("docs-ZhengyiLuo-AgentsServer");
    const { agent, context } = setUp();
    const turn = startTurn(context);
    await agent.whenStarted;
    agent.stdout(capture.bytes);
    agent.exit();
    await turn;
    const closed = records().filter((record) => record.msg === "tool_call_closed");
    expect(closed.length).toBeGreaterThan(1);
    // The capture's shell call was refused (`result.rejected`); the others succeeded.
    expect(closed.map((record) => record.outcome)).toContain("rejected");
    expect(closed.every((record) => typeof record.outcome === "string")).toBe(true);
  });

  it.each(["stream-json", "text"] as const)(
    "logs a chunk's lines and the decisions they lead to before forwarding any of it (%s)",
    async (format) => {
      const { agent, context } = setUp();
      // Whenever the wrapper's stdout is written, what the log file holds at that moment.
      const seen: string[][] = [];
      const stdout = new Writable({
        write(_chunk: Buffer, _encoding, callback) {
          seen.push(
            records().map((record) =>
              record.msg === "raw_event"
                ? `raw ${(record.raw as { type: string }).type}`
                : String(record.msg),
            ),
          );
          callback();
        },
      });
      context.formatter = createFormatter(format, stdout);
      context.stdout = stdout;
      const turn = startTurn(context);
      await agent.whenStarted;
      agent.stdout(
        line({ type: "system", subtype: "init", session_id: SESSION }) +
          line({
            type: "tool_call",
            subtype: "started",
            call_id: "call-1",
            tool_call: { shellToolCall: { args: { command: "npm test" } } },
            session_id: SESSION,
          }) +
          line({
            type: "tool_call",
            subtype: "completed",
            call_id: "call-1",
            tool_call: {
              shellToolCall: {
                args: { command: "npm test" },
                result: { success: { exitCode: 0 } },
              },
            },
            session_id: SESSION,
          }),
      );
      agent.stdout(line({ type: "result", subtype: "success", is_error: false, result: "ok" }));
      agent.exit();
      await turn;
      expect(seen.length).toBeGreaterThan(0);
      const first = seen[0]!;
      for (const record of [
        "raw system",
        "raw tool_call",
        "tool_call_opened",
        "tool_call_closed",
      ]) {
        expect(first).toContain(record);
      }
      expect(first.indexOf("tool_call_closed")).toBeGreaterThan(first.lastIndexOf("raw tool_call"));
      // The result line's chunk: its record and result_received, before the line is shown.
      const afterResult = seen.find((snapshot) => snapshot.includes("raw result"));
      expect(afterResult ?? records().map((record) => String(record.msg))).toContain(
        "result_received",
      );
    },
  );

  it("kills a silent agent exactly at the idle timeout, with one timer and no polling", async () => {
    vi.useFakeTimers({ now: 0 });
    const { agent, context } = setUp({}, () => Date.now());
    const turn = startTurn(context);
    await agent.whenStarted;
    agent.stdout(line({ type: "system", subtype: "init", session_id: SESSION }));
    await vi.advanceTimersByTimeAsync(59_999);
    expect(agent.kills).toEqual([]);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(agent.kills).toHaveLength(1);
    const result = await turn;
    expect(result.outcome).toBe("hang");
    if (result.outcome !== "hang") throw new Error("unreachable");
    expect(result.reason).toMatchObject({ kind: "idle", idleMs: 60_000 });
    expect(result.sessionId).toBe(SESSION);
    const verdict = records().find((record) => record.msg === "hang_detected");
    expect(verdict).toMatchObject({ verdict: "hang", reason: { kind: "idle" } });
    expect(records().some((record) => record.msg === "stall_warning")).toBe(true);
  });

  it("keeps a quiet agent whose processes work, sampling the tree only when a verdict is near", async () => {
    vi.useFakeTimers({ now: 0 });
    const { agent, context } = setUp(
      { monitor: { idleTimeoutMs: 60_000, liveness: { maxQuietMs: 300_000 } } },
      () => Date.now(),
    );
    let samples = 0;
    const busy = { cpuMs: 6_000, ioBytes: 2_000_000, pids: [4242], costMs: 0.2 };
    agent.process.sampleTree = () => {
      samples += 1;
      return busy;
    };
    const turn = startTurn(context);
    await agent.whenStarted;
    agent.stdout(line({ type: "system", subtype: "init", session_id: SESSION }));
    // A 4-minute silent generation: samples at 30 s (baseline), then one per minute.
    await vi.advanceTimersByTimeAsync(240_000);
    expect(agent.kills).toEqual([]);
    expect(samples).toBe(5);
    expect(vi.getTimerCount()).toBe(1);
    agent.stdout(line({ type: "result", subtype: "success", result: "done", session_id: SESSION }));
    agent.exit();
    const result = await turn;
    expect(result.outcome).toBe("completed");
    const working = records().filter((record) => record.msg === "quiet_but_working");
    expect(working).toHaveLength(4);
    expect(working[0]).toMatchObject({ cpu_ms: 6_000, io_bytes: 2_000_000 });
    expect(records().filter((record) => record.msg === "liveness_sample")).toHaveLength(5);
  });

  /** A turn whose every sample of the agent's tree finds none of its processes. */
  const startTreeGoneTurn = async () => {
    vi.useFakeTimers({ now: 0 });
    const { agent, context } = setUp(
      { monitor: { idleTimeoutMs: 60_000, liveness: { maxQuietMs: 300_000 } } },
      () => Date.now(),
    );
    agent.process.sampleTree = () => ({ cpuMs: 0, ioBytes: 0, pids: [], costMs: 0.1 });
    const turn = startTurn(context);
    await agent.whenStarted;
    agent.stdout(line({ type: "system", subtype: "init", session_id: SESSION }));
    return { agent, turn };
  };

  it("kills no agent whose processes are all gone: its exit, and its last lines, are on the way", async () => {
    // The agent wrote its result and exited; the wrapper (a loaded machine) has read neither.
    const { agent, turn } = await startTreeGoneTurn();
    await vi.advanceTimersByTimeAsync(61_000);
    expect(agent.kills).toEqual([]);
    agent.stdout(line({ type: "result", subtype: "success", result: "done", session_id: SESSION }));
    agent.exit();
    const result = await turn;
    expect(result.outcome).toBe("completed");
    expect(records().filter((record) => record.msg === "hang_detected")).toEqual([]);
  });

  it("still kills a silent agent whose processes the table never shows, an idle timeout later", async () => {
    const { agent, turn } = await startTreeGoneTurn();
    await vi.advanceTimersByTimeAsync(200_000);
    expect(agent.kills).toHaveLength(1);
    expect(agent.kills[0]).toMatch(/^no output for 1m with no tool running/);
    agent.exit({ code: null, signal: "SIGTERM" });
    expect((await turn).outcome).toBe("hang");
  });

  it("still kills a quiet agent whose processes are parked, at the idle timeout", async () => {
    vi.useFakeTimers({ now: 0 });
    const { agent, context } = setUp({ monitor: { idleTimeoutMs: 60_000, liveness: {} } }, () =>
      Date.now(),
    );
    agent.samples = [{ cpuMs: 3, ioBytes: 0, pids: [4242], costMs: 0.2 }];
    const turn = startTurn(context);
    await agent.whenStarted;
    agent.stdout(line({ type: "system", subtype: "init", session_id: SESSION }));
    await vi.advanceTimersByTimeAsync(59_999);
    expect(agent.kills).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(agent.kills).toHaveLength(1);
    const result = await turn;
    expect(result).toMatchObject({
      outcome: "hang",
      reason: { kind: "idle", liveness: { working: false } },
    });
  });

  it("waits out a tool call's own declared timeout plus the grace", async () => {
    vi.useFakeTimers({ now: 0 });
    const { agent, context } = setUp({}, () => Date.now());
    const turn = startTurn(context, { resume: SESSION });
    await agent.whenStarted;
    expect(agent.started?.args).toEqual(["--print", "--resume", SESSION]);
    agent.stdout(
      line({
        type: "tool_call",
        subtype: "started",
        call_id: "call\n1",
        tool_call: { shellToolCall: { args: { command: "npm test", timeout: 120_000 } } },
      }),
    );
    await vi.advanceTimersByTimeAsync(149_999);
    expect(agent.kills).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    const result = await turn;
    expect(result).toMatchObject({ outcome: "hang", reason: { kind: "tool", openCallCount: 1 } });
  });

  it("ends as cancelled when its signal aborts, killing the agent", async () => {
    const { agent, context } = setUp();
    const controller = new AbortController();
    const turn = startTurn(context, { signal: controller.signal });
    await agent.whenStarted;
    const reason: CancelReason = { kind: "turn", signal: "SIGINT" };
    controller.abort(reason);
    const result = await turn;
    expect(agent.kills).toEqual(["cancelled"]);
    expect(result).toMatchObject({ outcome: "cancelled", cancel: reason });
    expect(records().find((record) => record.msg === "agent_killed")).toMatchObject({
      reason: "cancelled",
      signal: "SIGTERM",
    });
  });

  it("ends as completed when Ctrl+C only skips the wait for an agent that answered", async () => {
    const { agent, context } = setUp();
    const controller = new AbortController();
    const turn = startTurn(context, { signal: controller.signal });
    await agent.whenStarted;
    agent.stdout(line({ type: "system", subtype: "init", session_id: SESSION }));
    agent.stdout(line({ type: "result", subtype: "success", result: "done", session_id: SESSION }));
    // The agent lingers; the person at the prompt presses Ctrl+C instead of waiting.
    await vi.waitFor(() => expect(JSON.stringify(records())).toContain('"result":"done"'));
    controller.abort({ kind: "turn", signal: "SIGINT" } satisfies CancelReason);
    const result = await turn;
    expect(agent.kills).toEqual(["cancelled"]);
    expect(result).toMatchObject({ outcome: "completed", answer: "done", interrupted: true });
  });

  it("reports an exit without a result as abnormal, with the agent's last stderr line", async () => {
    const { agent, context, stderr } = setUp();
    const turn = startTurn(context);
    await agent.whenStarted;
    agent.stderr('{"type":"mirror"}\nError: stream closed unexpectedly\n');
    agent.exit({ code: 3, signal: null });
    const result = await turn;
    expect(result).toMatchObject({
      outcome: "abnormal",
      exit: { code: 3 },
      lastStderr: "Error: stream closed unexpectedly",
    });
    // --stderr errors: the JSON mirror is only logged, the error line is shown.
    expect(stderr.bytes().toString()).toBe("Error: stream closed unexpectedly\n");
  });

  it("reads a failure named by an error event on stderr only, or by an error result", async () => {
    const usage = { type: "error", message: "Error: You've hit your usage limit" };
    const onStderr = setUp();
    const first = startTurn(onStderr.context);
    await onStderr.agent.whenStarted;
    onStderr.agent.stdout(line({ type: "system", subtype: "init", session_id: SESSION }));
    onStderr.agent.stderr(`${JSON.stringify(usage)}\n`);
    onStderr.agent.exit({ code: 1, signal: null });
    expect(await first).toMatchObject({
      outcome: "abnormal",
      failure: { kind: "usage-limit", transient: false },
    });
    // Unknown words in an error event on stderr are no failure of their own.
    const unknown = setUp();
    const second = startTurn(unknown.context);
    await unknown.agent.whenStarted;
    unknown.agent.stdout(line({ type: "system", subtype: "init", session_id: SESSION }));
    unknown.agent.stderr(`${JSON.stringify({ type: "error", message: "odd" })}\n`);
    unknown.agent.exit({ code: 1, signal: null });
    expect(await second).toMatchObject({ failure: { kind: "ended-mid-turn" } });
    // An error result whose words name a usage limit is that failure, not just an error.
    const result = setUp();
    const third = startTurn(result.context);
    await result.agent.whenStarted;
    result.agent.stdout(
      line({ type: "result", subtype: "error", is_error: true, result: usage.message }),
    );
    result.agent.exit({ code: 1, signal: null });
    expect(await third).toMatchObject({ outcome: "abnormal", failure: { kind: "usage-limit" } });
    // An error result naming nothing stays a completed turn with an error, whatever was said
    // before it: an error event's unknown words, a dropped connection the agent got past.
    const plain = setUp();
    const fourth = startTurn(plain.context);
    await plain.agent.whenStarted;
    plain.agent.stdout(line({ type: "error", message: "The model returned an error" }));
    plain.agent.stderr("Connection failed: ECONNRESET, reconnecting...\n");
    plain.agent.stdout(line({ type: "result", subtype: "error", is_error: true, result: "no" }));
    plain.agent.exit({ code: 1, signal: null });
    expect(await fourth).toMatchObject({ outcome: "completed", resultIsError: true });
  });

  it("stops the agent when the formatter's notice throws from the watchdog's timer", async () => {
    vi.useFakeTimers({ now: 0 });
    const { agent, context } = setUp({}, () => Date.now());
    context.formatter = {
      ...context.formatter,
      notice() {
        throw new Error("notice failed");
      },
    };
    const turn = startTurn(context);
    const failed = expect(turn).rejects.toThrow("notice failed");
    await agent.whenStarted;
    agent.stdout(line({ type: "system", subtype: "init", session_id: SESSION }));
    // The soft warning comes half-way to the idle timeout: its notice throws.
    await vi.advanceTimersByTimeAsync(31_000);
    expect(agent.kills).toHaveLength(1);
    await failed;
  });

  it("stops an agent whose stream begins with an unsupported protocol version, at once", async () => {
    const { agent, context, stdout } = setUp();
    const turn = startTurn(context);
    await agent.whenStarted;
    // A whole turn in one chunk: nothing after the version line is forwarded or trusted.
    agent.stdout(
      line({ type: "protocol", data: { version: "2.0" } }) +
        line({ type: "system", subtype: "init", session_id: SESSION }) +
        line({
          type: "assistant",
          message: { role: "assistant", content: [{ type: "text", text: "ok" }] },
          session_id: SESSION,
        }) +
        line({ type: "result", subtype: "success", is_error: false, result: "ok" }),
    );
    await vi.waitFor(() => expect(agent.kills).toEqual(["unsupported protocol version 2.0"]));
    const result = await turn;
    expect(result).toMatchObject({
      outcome: "abnormal",
      failure: { kind: "protocol", detail: "protocol version 2.0" },
    });
    // Nor is it read: no session to resume, no work done, no answer (a fallback model starts
    // afresh with the user's prompt).
    expect(result).toMatchObject({ sessionId: undefined, progressed: false, answer: undefined });
    // The line itself is forwarded, as every line is.
    expect(stdout.bytes().toString()).toBe(line({ type: "protocol", data: { version: "2.0" } }));
    expect(records().find((record) => record.msg === "protocol_version")).toMatchObject({
      version: "2.0",
      supported: false,
    });
  });

  it("lets a supported protocol version through, and a stream without one, unchanged", async () => {
    const { agent, context } = setUp();
    const turn = startTurn(context);
    await agent.whenStarted;
    agent.stdout(line({ type: "protocol", data: { version: "1.0" } }));
    agent.stdout(line({ type: "system", subtype: "init", session_id: SESSION }));
    agent.stdout(line({ type: "result", subtype: "success", is_error: false, result: "ok" }));
    agent.exit();
    expect(await turn).toMatchObject({ outcome: "completed", failure: undefined });
    expect(agent.kills).toEqual([]);
    expect(records().find((record) => record.msg === "protocol_version")).toMatchObject({
      version: "1.0",
      supported: true,
    });
  });

  it("calls a non-zero exit after the stream began a stream that ended mid-turn, with the work done", async () => {
    const { agent, context } = setUp();
    const turn = startTurn(context);
    await agent.whenStarted;
    agent.stdout(line({ type: "system", subtype: "init", session_id: SESSION }));
    agent.stdout(
      line({
        type: "tool_call",
        subtype: "started",
        call_id: "c1",
        tool_call: { shellToolCall: { args: { command: "npm test", timeout: 30_000 } } },
      }),
    );
    agent.exit({ code: 1, signal: null });
    expect(await turn).toMatchObject({
      outcome: "abnormal",
      progressed: true,
      failure: { kind: "ended-mid-turn", transient: true },
    });
  });

  it("passes an auth profile's credentials in the environment, and the fallback model to the arguments", async () => {
    const { agent, context } = setUp({
      agentArgs: ({ model }) => ["--print", ...(model ? ["--model", model] : [])],
      profileEnv: () => ({ CURSOR_API_KEY: "k-2", CURSOR_AUTH_TOKEN: undefined }),
    });
    vi.stubEnv("CURSOR_AUTH_TOKEN", "from-the-user");
    try {
      const turn = startTurn(context, { model: "auto", profile: "spare" });
      await agent.whenStarted;
      agent.exit();
      await turn;
    } finally {
      vi.unstubAllEnvs();
    }
    expect(agent.started?.args).toEqual(["--print", "--model", "auto"]);
    expect(agent.started?.env?.CURSOR_API_KEY).toBe("k-2");
    expect(agent.started?.env).not.toHaveProperty("CURSOR_AUTH_TOKEN");
    const spawn = records().find((record) => record.msg === "agent_spawn");
    expect(spawn).toMatchObject({ model: "auto", auth_profile: "spare" });
    expect(JSON.stringify(records())).not.toContain("k-2");
  });
});
