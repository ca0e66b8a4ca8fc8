import {
  type AgentEvent,
  createLineFramer,
  FAILURE_OUTCOMES,
  PENDING_OUTCOMES,
  parseLine,
  recordedTimeline,
  TOOL_KINDS,
} from "@cursor-wrap/events";
import { realCaptures } from "@cursor-wrap/fixtures";
import type { Reason } from "@cursor-wrap/monitor";
import { agentEvents as ev } from "@cursor-wrap/testkit";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { eventSubtype, eventType } from "./__fixtures__/arbitraries.js";
import { createFormatter } from "./create-formatter.js";
import type { FormatterOptions, Output, OutputFormat, WrapperDecision } from "./types.js";

/** An output that collects what is written. */
function sink(isTTY = false) {
  const chunks: Buffer[] = [];
  const out: Output & { bytes(): Buffer; text(): string } = {
    isTTY,
    write(chunk) {
      chunks.push(Buffer.from(chunk));
      return true;
    },
    bytes: () => Buffer.concat(chunks),
    text: () => Buffer.concat(chunks).toString("utf8"),
  };
  return out;
}

/** A capture's events, received at their recorded times (so tool durations are real). */
function captureEvents(bytes: Buffer): AgentEvent[] {
  const framer = createLineFramer();
  const events = [...framer.push(bytes), ...framer.end()];
  const times = recordedTimeline(events);
  for (const [index, event] of events.entries())
    event.recvAt = { mono: times[index]!, epoch: times[index]! };
  return events;
}

function render(
  format: OutputFormat,
  events: AgentEvent[],
  options: FormatterOptions = {},
  isTTY = false,
) {
  const out = sink(isTTY);
  const formatter = createFormatter(format, out, { color: false, ...options });
  for (const event of events) formatter.write(event);
  formatter.flush();
  return { out, formatter };
}

const context = {
  sessionId: "7f1c2d3e-0000-4000-8000-000000000001",
  requestId: "5bf03e32-be64-48d4-a5ed-c4a0a939b88c",
};
const line = (object: Record<string, unknown>, at = 0): AgentEvent =>
  parseLine(`${JSON.stringify(object)}\n`, { mono: at, epoch: at });

const reason: Reason = {
  kind: "idle",
  idleMs: 60_000,
  openCallCount: 0,
  openCalls: [],
  lastEventType: "thinking/delta",
  message: "no output for 1m with no tool running (last event: thinking/delta)",
};

const ADVERSARIAL = [
  "T: Named models unavailable\n",
  '{"type":"brand_new","x":1}\n',
  "[1,2,3]\n",
  '{"type":"user"}\r\n',
  "\n",
  "{oops\n",
  '{"type":"assistant","message":{"content":[{"type":"text","text":"no newline at the end"}]}}',
];

afterEach(() => {
  vi.useRealTimers();
});

describe("stream-json", () => {
  it("is byte-identical to the input over every real capture", () => {
    for (const capture of realCaptures()) {
      const { out } = render("stream-json", captureEvents(capture.bytes));
      expect(out.bytes().equals(capture.bytes), capture.name).toBe(true);
    }
  });

  it("is byte-identical over adversarial lines, invalid UTF-8 included", () => {
    const input = Buffer.concat([
      ...ADVERSARIAL.map((text) => Buffer.from(text)),
      Buffer.from([0x7b, 0xff, 0x7d, 0x0a]),
    ]);
    const framer = createLineFramer();
    // The invalid bytes come last, after a line without a newline: frame them separately.
    const events = [...framer.push(input), ...framer.end()];
    const { out } = render("stream-json", events);
    expect(out.bytes().equals(input)).toBe(true);
  });

  it("writes a chunk of small lines with one write, big lines on their own", async () => {
    const writes: number[] = [];
    const out: Output = { write: (chunk) => writes.push(chunk.length) };
    const formatter = createFormatter("stream-json", out);
    const small = createLineFramer().push(Buffer.from('{"a":1}\n{"b":2}\n{"c":3}\n'));
    const big = parseLine(`{"d":"${"x".repeat(70_000)}"}\n`);
    for (const event of [...small, big, ...small]) formatter.write(event);
    expect(writes).toEqual([]); // held until flushed…
    await Promise.resolve(); // …or until the current synchronous run ends
    expect(writes).toEqual([24, 70_009, 24]);
  });

  it("writes the lines of a chunk as one view of the chunk, not a copy", async () => {
    const writes: Buffer[] = [];
    const out: Output = { write: (chunk) => writes.push(chunk as Buffer) };
    const formatter = createFormatter("stream-json", out);
    const chunk = Buffer.from('{"a":1}\n{"b":2}\r\nnot json\n{"c":3}\n');
    for (const event of createLineFramer().push(chunk)) formatter.write(event);
    await Promise.resolve();
    expect(writes).toHaveLength(1);
    expect(writes[0]!.equals(chunk)).toBe(true);
    expect(writes[0]!.buffer).toBe(chunk.buffer);
  });

  it("is byte-identical whatever views of one buffer it is given, in any order", () => {
    const bytes = Buffer.from("0123456789abcdefghijklmnopqrstuvwxyz\n".repeat(4));
    const view = fc
      .tuple(fc.nat(bytes.length), fc.nat(bytes.length))
      .map(([from, to]) => bytes.subarray(Math.min(from, to), Math.max(from, to)));
    fc.assert(
      fc.property(fc.array(view, { maxLength: 12 }), (views) => {
        const out = sink();
        const formatter = createFormatter("stream-json", out);
        for (const raw of views) formatter.write({ ...parseLine(raw), raw });
        formatter.flush();
        expect(out.bytes().equals(Buffer.concat(views))).toBe(true);
      }),
    );
  });

  it("adds one wrapper line per decision, terminal ones with the resume hint and partial result", () => {
    const events = [
      line(ev.init(context)),
      line(ev.assistant(context, "Looking at the build.", { modelCallId: "m-0", timestampMs: 1 })),
      line(ev.toolStarted(context, "c1", "shellToolCall", ev.shellArgs("npm run build", 10_000))),
    ];
    const { out, formatter } = render("stream-json", events);
    const before = out.bytes().length;
    formatter.wrapper({
      kind: "retry",
      attempt: 1,
      maxAttempts: 3,
      prompt: "continue",
      reason,
      sessionId: context.sessionId,
    });
    formatter.wrapper({ kind: "hang", reason, sessionId: context.sessionId, terminal: true });
    const added = out
      .bytes()
      .subarray(before)
      .toString()
      .trimEnd()
      .split("\n")
      .map((text) => JSON.parse(text));
    expect(added).toEqual([
      {
        type: "wrapper",
        subtype: "retry",
        attempt: 1,
        max_attempts: 3,
        prompt: "continue",
        reason: reason.message,
        session_id: context.sessionId,
        timestamp_ms: expect.any(Number),
      },
      {
        type: "wrapper",
        subtype: "hang_detected",
        verdict: "hang",
        reason: reason.message,
        detail: reason,
        session_id: context.sessionId,
        resume: `cursor-wrap --resume ${context.sessionId}`,
        partial_result: "Looking at the build.",
        timestamp_ms: expect.any(Number),
      },
    ]);
  });

  it("says in a retry line what failed and what the next attempt does", () => {
    const out = sink();
    const formatter = createFormatter("stream-json", out);
    formatter.wrapper({
      kind: "retry",
      attempt: 1,
      maxAttempts: 2,
      message: "usage limit on gpt-5: switching to auto, resuming the session",
      sessionId: context.sessionId,
      failure: "usage-limit",
      action: "switch-model",
      model: "auto",
      waitMs: 0,
    });
    expect(JSON.parse(out.text())).toEqual({
      type: "wrapper",
      subtype: "retry",
      attempt: 1,
      max_attempts: 2,
      reason: "usage limit on gpt-5: switching to auto, resuming the session",
      kind: "usage-limit",
      action: "switch-model",
      model: "auto",
      wait_ms: 0,
      session_id: context.sessionId,
      timestamp_ms: expect.any(Number),
    });
  });

  it("starts a wrapper line on a line of its own after a last line without a newline", () => {
    const { out, formatter } = render("stream-json", [parseLine('{"type":"thinking"}')]);
    formatter.wrapper({ kind: "cancelled", signal: "SIGINT", terminal: true });
    const text = out.text();
    expect(text.startsWith('{"type":"thinking"}\n{"type":"wrapper","subtype":"cancelled"')).toBe(
      true,
    );
  });
});

describe("json", () => {
  it("writes a result line above the parse cap through, byte for byte, in pieces", () => {
    const result = `${JSON.stringify({ type: "result", subtype: "success", is_error: false, result: "y".repeat(300_000), session_id: "s" })}\n`;
    const framer = createLineFramer({ parseCap: 65_536 });
    const events = [
      ...framer.push(
        Buffer.from(`${JSON.stringify({ type: "assistant", text: "z".repeat(100_000) })}\n`),
      ),
      ...framer.push(Buffer.from(result.slice(0, 100_000))),
      ...framer.push(Buffer.from(result.slice(100_000))),
      ...framer.end(),
    ];
    expect(events.filter((event) => event.kind === "oversize").length).toBeGreaterThan(2);
    const { out, formatter } = render("json", events);
    formatter.endTurn({ durationMs: 1, toolCalls: 0, outcome: "completed" });
    expect(out.text()).toBe(result);
  });

  it("ends a result cut off mid-line before the wrapper's line", () => {
    const framer = createLineFramer({ parseCap: 65_536 });
    const events = framer.push(
      Buffer.from(`{"type":"result","subtype":"success","result":"${"y".repeat(100_000)}`),
    );
    const { out, formatter } = render("json", events);
    formatter.endTurn({ durationMs: 1, toolCalls: 0, outcome: "abnormal" });
    expect(out.text().endsWith("\n")).toBe(true);
    expect(out.text().split("\n")).toHaveLength(2);
  });

  it("prints only the result line, as the agent wrote it", () => {
    const capture = realCaptures().find(
      (candidate) => candidate.name === "isomorphx-gump--c2-stream-json-edit",
    )!;
    const { out, formatter } = render("json", captureEvents(capture.bytes));
    expect(out.text()).toBe("");
    formatter.endTurn({ durationMs: 1, toolCalls: 1, outcome: "completed" });
    expect(out.text()).toBe(`${capture.bytes.toString().trimEnd().split("\n").at(-1)}\n`);
  });

  it("prints the terminal wrapper line when the turn ends without a result", () => {
    const { out, formatter } = render("json", [
      line(ev.assistant(context, "Half an answer", { modelCallId: "m", timestampMs: 1 })),
    ]);
    formatter.wrapper({
      kind: "retry",
      attempt: 1,
      maxAttempts: 1,
      prompt: "go on",
      reason,
      sessionId: "s",
    });
    formatter.wrapper({ kind: "hang", reason, sessionId: "s", terminal: true });
    formatter.endTurn({ durationMs: 1, toolCalls: 0, outcome: "hang" });
    const printed = out.text().trimEnd().split("\n");
    expect(printed).toHaveLength(1);
    expect(JSON.parse(printed[0]!)).toMatchObject({
      subtype: "hang_detected",
      partial_result: "Half an answer",
      resume: "cursor-wrap --resume s",
    });
  });

  it("quotes a session id in the resume hint so that pasting it runs nothing else", () => {
    for (const format of ["json", "text"] as const) {
      const { out, formatter } = render(format, []);
      formatter.wrapper({ kind: "hang", reason, sessionId: "x; touch pwned", terminal: true });
      formatter.endTurn({ durationMs: 1, toolCalls: 0, outcome: "hang" });
      expect(out.text()).toContain("cursor-wrap --resume 'x; touch pwned'");
    }
  });

  it("writes the agent's text in a wrapper line with nothing a terminal acts on", () => {
    const hostile = "partial \u009b2J\u009d0;TITLE\u0007 \u202eevil";
    for (const format of ["json", "stream-json"] as const) {
      const { out, formatter } = render(format, [
        line(ev.assistant(context, hostile, { modelCallId: "m", timestampMs: 1 })),
      ]);
      formatter.wrapper({
        kind: "hang",
        reason: { ...reason, message: `quiet ${hostile}` },
        sessionId: "s",
        terminal: true,
      });
      formatter.endTurn({ durationMs: 1, toolCalls: 0, outcome: "hang" });
      const printed = out.text().trimEnd().split("\n").at(-1)!;
      expect(printed).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
      // The same JSON: a reader gets the agent's text as it was.
      expect(JSON.parse(printed)).toMatchObject({
        subtype: "hang_detected",
        partial_result: hostile,
      });
    }
  });

  it("prints an abnormal exit as a terminal wrapper line", () => {
    const { out, formatter } = render("json", []);
    formatter.wrapper({
      kind: "error",
      message: "cursor-agent exited with code 1 without a result",
      terminal: true,
    });
    formatter.endTurn({ durationMs: 1, toolCalls: 0, outcome: "abnormal" });
    expect(JSON.parse(out.text())).toMatchObject({
      type: "wrapper",
      subtype: "abnormal_exit",
      partial_result: "",
    });
  });
});

describe("text", () => {
  for (const capture of realCaptures()) {
    it(`renders ${capture.name} as in its golden file`, async () => {
      const { out, formatter } = render("text", captureEvents(capture.bytes));
      formatter.endTurn({ durationMs: 0, toolCalls: 0, outcome: "completed" });
      expect(out.text()).not.toMatch(/\u001b/);
      await expect(out.text()).toMatchFileSnapshot(`./__snapshots__/${capture.name}.txt`);
    });
  }

  it("shows an error result's words unless the turn's text already said them", () => {
    const failed = (result: string) =>
      line({ type: "result", subtype: "error", is_error: true, result, session_id: "s" });
    const alone = render("text", [failed("Provider refused: \u001b]0;x\u0007quota")], {}, true);
    expect(alone.out.text()).toContain("✗ Provider refused: ");
    expect(alone.out.text()).not.toMatch(/\u001b\]/);
    const said = render(
      "text",
      [
        line({ type: "assistant", message: { content: [{ type: "text", text: "It broke." }] } }),
        failed("It broke."),
      ],
      {},
      true,
    );
    expect(said.out.text()).not.toContain("✗");
    // A success result's words are the answer: shown when the turn showed none (a turn answered
    // in its result alone, as two of the real captures are), never twice.
    const success = render("text", [line({ type: "result", subtype: "success", result: "ok" })]);
    expect(success.out.text()).toBe("ok\n");
    const answered = render("text", [
      line({ type: "assistant", message: { content: [{ type: "text", text: "ok" }] } }),
      line({ type: "result", subtype: "success", result: "ok" }),
    ]);
    expect(answered.out.text().match(/ok/g)).toHaveLength(1);
    // An assistant message of a shape not known here is shown as data; the answer comes with
    // the result.
    const odd = render("text", [
      line({ type: "assistant", message: { content: "plain \u001b[2J text" } }),
      line({ type: "result", subtype: "success", result: "the answer" }),
    ]);
    expect(odd.out.text()).toContain("· assistant");
    expect(odd.out.text()).toContain("the answer\n");
    expect(odd.out.text()).not.toMatch(/\u001b/);
  });

  it("renders every tool kind, started and completed, as in its golden file", async () => {
    const samples: Record<string, [Record<string, unknown>, Record<string, unknown>]> = {
      shellToolCall: [
        ev.shellArgs("npm test -- --watch=false", 30_000),
        ev.shellResult("npm test", 0, { executionTime: 4210 }),
      ],
      readToolCall: [
        { path: "src/index.ts", offset: 1, limit: 40 },
        { success: { totalLines: 120, readRange: { startLine: 1, endLine: 40 } } },
      ],
      lsToolCall: [
        { path: "src" },
        {
          success: {
            directoryTreeRoot: {
              childrenDirs: [{}],
              childrenFiles: [{ name: "a.ts" }],
              numFiles: 12,
            },
          },
        },
      ],
      grepToolCall: [
        { pattern: "TODO", path: "src" },
        {
          success: {
            workspaceResults: {
              "/r": {
                content: { matches: [{ file: "a.ts", matches: [{}] }], totalMatchedLines: 1 },
              },
            },
          },
        },
      ],
      globToolCall: [
        { globPattern: "**/*.md", targetDirectory: "/repo" },
        { success: { files: ["README.md"], totalFiles: 1 } },
      ],
      semSearchToolCall: [
        { query: "where are retries decided", targetDirectories: ["apps"] },
        { success: { results: [{}, {}] } },
      ],
      editToolCall: [
        { path: "src/a.ts", streamContent: "x" },
        { success: { linesAdded: 4, linesRemoved: 2 } },
      ],
      writeToolCall: [
        { path: "NOTES.md", fileText: "# Notes\n" },
        { success: { linesCreated: 1, fileSize: 8 } },
      ],
      deleteToolCall: [{ path: "old.log" }, { success: { message: "Deleted old.log" } }],
      mcpToolCall: [
        { providerIdentifier: "github", toolName: "create_issue" },
        { success: { content: [{ text: { text: "Created #42" } }] } },
      ],
      updateTodosToolCall: [
        { todos: [{ status: "TODO_STATUS_COMPLETED" }, { status: "TODO_STATUS_PENDING" }] },
        { success: { totalCount: 2 } },
      ],
      readTodosToolCall: [{}, { success: { todos: [] } }],
      webFetchToolCall: [
        { url: "https://example.com/changelog" },
        { success: { markdown: "# Changelog" } },
      ],
      fetchToolCall: [{ url: "https://example.com/api" }, { success: { content: "{}" } }],
      webSearchToolCall: [{ searchTerm: "cursor cli flags" }, { success: { references: [{}] } }],
      taskToolCall: [
        {
          subagentType: "explore",
          prompt: "Map the modules that touch the session log and say which ones write to it",
        },
        { success: { result: "3 modules" } },
      ],
      awaitToolCall: [
        { taskId: "519707", blockUntilMs: 60_000 },
        { success: { message: "exited 0" } },
      ],
      listMcpResourcesToolCall: [{ server: "docs" }, { success: { resources: [{}] } }],
      readMcpResourceToolCall: [{ server: "docs", uri: "doc://intro" }, { success: {} }],
      getMcpToolsToolCall: [{ server: "github" }, { success: { tools: [{}, {}] } }],
      readLintsToolCall: [{ paths: ["src/a.ts"] }, { success: { diagnostics: [] } }],
      askQuestionToolCall: [
        { questions: [{ prompt: "Which port?" }] },
        { success: { message: "Questions skipped by the user" } },
      ],
      createPlanToolCall: [{ name: "Split the monitor" }, { success: { message: "Plan saved" } }],
      switchModeToolCall: [{ targetModeId: "plan" }, { success: {} }],
      writeShellStdinToolCall: [{ shellId: "3", chars: "q" }, { success: {} }],
      applyAgentDiffToolCall: [{ path: "src/b.ts" }, { success: { message: "applied" } }],
      blameByFilePathToolCall: [
        { filePath: "src/b.ts", startLine: 3, endLine: 9 },
        { success: {} },
      ],
      prManagementToolCall: [
        { action: "create" },
        { success: { url: "https://github.com/o/r/pull/7" } },
      ],
      recordScreenToolCall: [{ action: "start" }, { success: {} }],
      computerUseToolCall: [{ action: "click", x: 10 }, { success: {} }],
    };
    expect(
      Object.keys(samples)
        .filter((key) => key !== "computerUseToolCall")
        .sort(),
    ).toEqual(
      Object.keys(TOOL_KINDS)
        .filter((key) => key !== "function")
        .sort(),
    );
    const events: AgentEvent[] = [];
    let at = 0;
    for (const [key, [args, result]] of Object.entries(samples)) {
      at += 100;
      events.push(line(ev.toolStarted(context, `call-${key}`, key, args), at));
      at += 250;
      events.push(line(ev.toolCompleted(context, `call-${key}`, key, args, result), at));
    }
    events.push(
      line(
        {
          type: "tool_call",
          subtype: "started",
          call_id: "f",
          tool_call: { function: { name: "AskQuestion", arguments: '{"question":"Proceed?"}' } },
        },
        at + 100,
      ),
    );
    events.push(
      line(
        {
          type: "tool_call",
          subtype: "completed",
          call_id: "f",
          tool_call: { function: { name: "AskQuestion", arguments: "{}" } },
        },
        at + 200,
      ),
    );
    const { out } = render("text", events);
    await expect(out.text()).toMatchFileSnapshot("./__snapshots__/tool-kinds.txt");
  });

  it("shows control sequences from the agent escaped, as in its golden file (R-FMT5)", async () => {
    const pwned = "\u001b]0;pwned\u0007\u001b[2J\u001b]52;c;ZXZpbA==\u0007";
    const events: AgentEvent[] = [
      line(
        ev.assistant(context, `Hello ${pwned} and ok\roverwritten`, {
          modelCallId: "m1",
          timestampMs: 1,
        }),
      ),
      line(
        ev.toolStarted(context, "c1", "shellToolCall", ev.shellArgs(`echo ${pwned}`), {
          timestampMs: 1,
        }),
      ),
      line(
        ev.toolCompleted(
          context,
          "c1",
          "shellToolCall",
          ev.shellArgs(`echo ${pwned}`),
          ev.shellResult(`echo ${pwned}`, 1, { stderr: `bad\u202eexe.txt ${pwned}\n` }),
        ),
      ),
      line({ type: "error", message: `boom ${pwned}` }),
      parseLine(`T: plain text ${pwned}\n`),
    ];
    const { out, formatter } = render("text", events);
    formatter.wrapper({
      kind: "hang",
      reason: { ...reason, message: `shell "echo ${pwned}" 3.0s of 3.0s` },
      sessionId: `x${pwned}`,
      terminal: true,
    });
    expect(out.text()).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
    await expect(out.text()).toMatchFileSnapshot("./__snapshots__/escaped-controls.txt");
  });

  it("renders every outcome key as in its golden file", async () => {
    const events: AgentEvent[] = [];
    for (const outcome of ["success", ...FAILURE_OUTCOMES, ...PENDING_OUTCOMES, "somethingNew"]) {
      const payload =
        outcome === "success"
          ? { exitCode: 0, executionTime: 120 }
          : outcome === "failure"
            ? { exitCode: 2, stderr: "make: *** [all] Error 2\n" }
            : outcome === "timeout"
              ? { timeoutMs: 30_000 }
              : outcome === "rejected"
                ? { command: "rm -rf build", reason: "blocked by hook" }
                : outcome === "error"
                  ? { error: "spawn failed" }
                  : {};
      const args = ev.shellArgs("make all", 30_000);
      events.push(
        line(
          ev.toolCompleted(context, `c-${outcome}`, "shellToolCall", args, { [outcome]: payload }),
        ),
      );
    }
    events.push(
      line(
        ev.toolCompleted(
          context,
          "c-exit",
          "shellToolCall",
          ev.shellArgs("npm test"),
          ev.shellResult("npm test", 1, {
            stderr: "1 failing\nexpected 2, got 3\n",
            executionTime: 900,
          }),
        ),
      ),
    );
    const { out } = render("text", events);
    await expect(out.text()).toMatchFileSnapshot("./__snapshots__/outcomes.txt");
  });

  it("never prints text twice with --stream-partial-output", async () => {
    const events = [
      line(ev.assistant(context, "Checking", { timestampMs: 1 })),
      line(ev.assistant(context, " the tests.", { timestampMs: 2 })),
      line(ev.assistant(context, "Checking the tests.", { modelCallId: "m-0" })), // echo
      line(ev.assistant(context, "Checking the tests.", { modelCallId: "m-0", timestampMs: 3 })), // copy
      line(ev.toolStarted(context, "c", "shellToolCall", ev.shellArgs("npm test")), 10),
      line(
        ev.toolCompleted(
          context,
          "c",
          "shellToolCall",
          ev.shellArgs("npm test"),
          ev.shellResult("npm test", 0, { executionTime: 30 }),
        ),
        40,
      ),
      line(ev.assistant(context, "All", { timestampMs: 50 })),
      line(ev.assistant(context, " green", { timestampMs: 51 })),
      line(ev.assistant(context, "All green.")), // final copy: adds only the missing "."
      line(ev.result(context, "Checking the tests.All green.")),
    ];
    const { out, formatter } = render("text", events);
    expect(out.text()).toBe(
      "Checking the tests.\n\n⏳ `npm test`\n✓ `npm test` (30ms, exit 0)\n\nAll green.\n",
    );
    expect(formatter.partialResult()).toBe("Checking the tests.All green.");
    await expect(out.text()).toMatchFileSnapshot("./__snapshots__/partial-output.txt");
  });

  it("says what hung before a retry of a hang it has not shown, once", () => {
    const { out, formatter } = render("text", []);
    // The live run reports a retried hang with the retry alone.
    formatter.wrapper({ kind: "retry", attempt: 1, maxAttempts: 2, prompt: "go on", reason });
    expect(out.text()).toBe(
      `⚠ Hang detected — killed cursor-agent (${reason.message})\n↻ Retrying (1/2): resuming the session with "go on"\n`,
    );
  });

  it("renders wrapper decisions and soft warnings", () => {
    const { out, formatter } = render("text", [
      line(ev.toolStarted(context, "c", "shellToolCall", ev.shellArgs("npm install"))),
    ]);
    formatter.notice("quiet for 30.0s; hang in 30.0s if nothing arrives");
    formatter.wrapper({ kind: "hang", reason, sessionId: "s-1", terminal: true });
    formatter.wrapper({ kind: "retry", attempt: 2, maxAttempts: 3, prompt: "continue", reason });
    formatter.wrapper({
      kind: "linger",
      reason: {
        ...reason,
        kind: "linger",
        message: "process still running 10.0s after its result",
      },
      terminal: false,
    });
    formatter.wrapper({ kind: "cancelled", signal: "SIGINT", terminal: true, sessionId: "s-1" });
    formatter.wrapper({
      kind: "error",
      message: "cursor-agent exited with code 1 without a result",
      terminal: true,
    });
    expect(out.text()).toBe(
      [
        "⏳ `npm install`",
        "… quiet for 30.0s; hang in 30.0s if nothing arrives",
        `⚠ Hang detected — killed cursor-agent (${reason.message})`,
        "  resume with: cursor-wrap --resume s-1",
        '↻ Retrying (2/3): resuming the session with "continue"',
        "⚠ cursor-agent finished but did not exit (process still running 10.0s after its result); killed it",
        "✗ Cancelled (SIGINT)",
        "  resume with: cursor-wrap --resume s-1",
        "✗ cursor-agent exited with code 1 without a result",
        "",
      ].join("\n"),
    );
  });

  it("on a terminal: colour, a live elapsed time for a running tool, and a turn summary", () => {
    vi.useFakeTimers();
    let now = 0;
    const out = sink(true);
    const formatter = createFormatter("text", out, {
      color: true,
      now: () => now,
      refreshMs: 1_000,
    });
    formatter.write(
      line(ev.toolStarted(context, "c", "shellToolCall", ev.shellArgs("sleep 5")), 0),
    );
    expect(out.text()).toContain("⏳");
    now = 3_000;
    vi.advanceTimersByTime(3_000);
    expect(out.text()).toContain("\r\u001b[2K"); // the status line is redrawn in place
    expect(out.text()).toContain("3.0s");
    formatter.write(
      line(
        ev.toolCompleted(
          context,
          "c",
          "shellToolCall",
          ev.shellArgs("sleep 5"),
          ev.shellResult("sleep 5", 0, { executionTime: 5_000 }),
        ),
        5_000,
      ),
    );
    formatter.endTurn({
      durationMs: 5_400,
      toolCalls: 1,
      outcome: "completed",
      usage: { inputTokens: 14_948, outputTokens: 103 },
    });
    formatter.close();
    expect(vi.getTimerCount()).toBe(0);
    const plain = out.text().replace(/\u001b\[[0-9;]*[A-Za-z]/g, "");
    expect(
      plain.endsWith(
        "✓ `sleep 5` (5.0s, exit 0)\n— 5.4s · 1 tool call · 14,948 in / 103 out tokens\n",
      ),
    ).toBe(true);
    expect(out.text()).toMatch(/\u001b\[32m✓/);
  });

  it("says in one line per attempt what the recovery did, and adds up the attempts in the summary", () => {
    vi.useFakeTimers();
    let now = 0;
    const out = sink(true);
    const formatter = createFormatter("text", out, { color: false, now: () => now });
    formatter.wrapper({
      kind: "retry",
      attempt: 1,
      maxAttempts: 3,
      message: "overloaded (HTTP 529): retry 1 of 3 in 1.5s, resuming the session",
      failure: "overloaded",
      action: "resume",
      waitMs: 1_500,
    });
    formatter.notice("usage limit: waiting until it resets", {
      firesAt: 120_000,
      label: "resuming in",
    });
    expect(out.text()).toContain("… usage limit: waiting until it resets · resuming in 2m");
    now = 60_000;
    vi.advanceTimersByTime(60_000);
    expect(out.text()).toContain("resuming in 1m");
    formatter.notice("");
    formatter.endTurn({
      durationMs: 9_000,
      toolCalls: 1,
      outcome: "completed",
      usage: { inputTokens: 1_300, outputTokens: 90 },
      attempts: 3,
      models: ["gpt-5", "auto"],
      waitedMs: 4_500,
    });
    formatter.close();
    const plain = out.text().replace(/\r\u001b\[2K[^\n]*?(?=\r|$)/g, "");
    expect(plain).toContain(
      "↻ overloaded (HTTP 529): retry 1 of 3 in 1.5s, resuming the session\n",
    );
    expect(
      out
        .text()
        .endsWith(
          "— 9.0s · 1 tool call · 1,300 in / 90 out tokens · 3 attempts (gpt-5 → auto) · waited 4.5s\n",
        ),
    ).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("shows every field of an event it does not know, `__proto__` included", () => {
    const { out } = render("text", [
      parseLine('{"type":"mystery","__proto__":{"hidden":1},"b":2}'),
      parseLine('{"type":"mystery","__proto__":{"only":1}}'),
    ]);
    expect(out.text()).toContain('· mystery {"__proto__":{"hidden":1},"b":2}');
    expect(out.text()).toContain('· mystery {"__proto__":{"only":1}}');
  });

  it("prints no control sequences without a terminal or with NO_COLOR", () => {
    const capture = realCaptures().find(
      (candidate) => candidate.name === "reifying-cursor-hack--parallel-sleep",
    )!;
    const previous = process.env.NO_COLOR;
    process.env.NO_COLOR = "1";
    try {
      const out = sink(false);
      const formatter = createFormatter("text", out);
      for (const event of captureEvents(capture.bytes)) formatter.write(event);
      formatter.wrapper({ kind: "hang", reason, terminal: true });
      formatter.endTurn({ durationMs: 1, toolCalls: 2, outcome: "completed" });
      expect(out.text()).not.toMatch(/\u001b/);
      expect(out.text()).toContain("✓ `sleep 4` (4.2s, exit 0)");
    } finally {
      if (previous === undefined) delete process.env.NO_COLOR;
      else process.env.NO_COLOR = previous;
    }
  });
});

describe("every renderer", () => {
  it("never throws on unexpected shapes (property)", () => {
    const toolKey = fc.constantFrom(...Object.keys(TOOL_KINDS), "strangeToolCall");
    const event = fc
      .record({
        type: eventType,
        subtype: eventSubtype,
        extra: fc.dictionary(fc.string(), fc.jsonValue()),
        toolKey,
        args: fc.jsonValue(),
        result: fc.jsonValue(),
        message: fc.jsonValue(),
      })
      .map(({ type, subtype, extra, toolKey, args, result, message }) =>
        parseLine(
          JSON.stringify({
            ...extra,
            type,
            subtype,
            call_id: "c",
            message,
            tool_call: { [toolKey]: { args, result } },
            model_call_id: typeof message === "string" ? message : undefined,
          }),
        ),
      );
    const decision: fc.Arbitrary<WrapperDecision> = fc.constantFrom(
      { kind: "hang", reason, terminal: true } as const,
      { kind: "cancelled", terminal: false } as const,
    );
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 15 }),
        decision,
        fc.boolean(),
        (events, wrapperDecision, tty) => {
          for (const format of ["stream-json", "json", "text"] as const) {
            const out = sink(tty);
            const formatter = createFormatter(format, out, { color: tty });
            expect(() => {
              for (const item of events) formatter.write(item);
              formatter.wrapper(wrapperDecision);
              formatter.endTurn({ durationMs: 0, toolCalls: 0, outcome: "completed" });
              formatter.close();
            }).not.toThrow();
          }
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 300) },
    );
  });
});
