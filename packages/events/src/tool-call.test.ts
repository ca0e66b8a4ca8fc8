import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toMonitorSignal } from "./extract.js";
import { parseLine } from "./parse-line.js";
import { toolSchemas } from "./schemas.js";
import { findToolKey, toolCallInfo, toolOutcome, toolResult } from "./tool-call.js";
import { TOOL_KINDS } from "./tool-kinds.js";
import type { AgentEvent } from "./types.js";

function toolEvent(
  subtype: "started" | "completed",
  key: string,
  tool: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): AgentEvent {
  return parseLine(
    JSON.stringify({
      type: "tool_call",
      subtype,
      call_id: `call-${key}`,
      tool_call: { [key]: tool, ...extra },
      session_id: "s",
    }),
  );
}

interface Case {
  args: Record<string, unknown>;
  info: Record<string, unknown>;
  success: Record<string, unknown>;
  result: Record<string, unknown>;
}

// One case per tool key: realistic args and success payloads (field names from the captures,
// SCHEMA-NOTES.md and the tool's documentation) and what the extractors must make of them.
const CASES: Record<string, Case> = {
  shellToolCall: {
    args: { command: "npm test\n--watch=false", timeout: 30_000, workingDirectory: "/repo" },
    info: {
      kind: "shell",
      label: "npm test …",
      command: "npm test\n--watch=false",
      timeoutMs: 30_000,
      directory: "/repo",
    },
    success: {
      exitCode: 1,
      stdout: "ok\n",
      stderr: "a\nb\nFAIL src/x.test.ts\n",
      executionTime: 4200,
    },
    result: {
      ok: false,
      exitCode: 1,
      summary: "exit 1",
      stderrTail: "a\nb\nFAIL src/x.test.ts",
      executionTimeMs: 4200,
    },
  },
  readToolCall: {
    args: { path: "src/index.ts", offset: 10, limit: 20 },
    info: { kind: "read", label: "src/index.ts:L10-L29", path: "src/index.ts" },
    success: {
      content: "…",
      totalLines: 200,
      readRange: { startLine: 10, endLine: 29 },
      fileSize: 5120,
    },
    result: { ok: true, summary: "lines 10-29 of 200", lineCount: 200, bytes: 5120 },
  },
  lsToolCall: {
    args: { path: "/repo/src", ignore: [] },
    info: { kind: "ls", label: "/repo/src", path: "/repo/src" },
    success: {
      directoryTreeRoot: {
        absPath: "/repo/src",
        childrenDirs: [{}, {}],
        childrenFiles: [{ name: "a.ts" }],
        numFiles: 7,
      },
    },
    result: { ok: true, summary: "7 files, 2 directories", fileCount: 7 },
  },
  grepToolCall: {
    args: { pattern: "TODO", path: "src" },
    info: { kind: "grep", label: '"TODO" in src', pattern: "TODO", directory: "src" },
    success: {
      workspaceResults: {
        "/repo": {
          content: {
            matches: [
              { file: "a.ts", matches: [{ lineNumber: 1, content: "// TODO" }] },
              {
                file: "b.ts",
                matches: [
                  { lineNumber: 3, content: "// TODO" },
                  { lineNumber: 4, content: "x", isContextLine: true },
                ],
              },
            ],
            totalMatchedLines: 2,
          },
        },
      },
    },
    result: { ok: true, summary: "2 matches in 2 files", matchCount: 2, fileCount: 2 },
  },
  globToolCall: {
    args: { targetDirectory: "/repo", globPattern: "**/*.ts" },
    info: { kind: "glob", label: '"**/*.ts" in /repo', pattern: "**/*.ts", directory: "/repo" },
    success: { files: ["a.ts", "b.ts", "c.ts"], totalFiles: 3 },
    result: { ok: true, summary: "3 files", fileCount: 3 },
  },
  semSearchToolCall: {
    args: { query: "where is auth handled", targetDirectories: ["src", "lib"] },
    info: {
      kind: "semSearch",
      label: '"where is auth handled" in src, lib',
      query: "where is auth handled",
    },
    success: { results: [{}, {}, {}, {}] },
    result: { ok: true, summary: "4 results", matchCount: 4 },
  },
  editToolCall: {
    args: { path: "src/a.ts", streamContent: "x", startLine: 3, endLine: 9 },
    info: { kind: "edit", label: "src/a.ts:L3-L9", path: "src/a.ts" },
    success: { path: "src/a.ts", linesAdded: 5, linesRemoved: 2, afterFullFileContent: "héllo" },
    result: { ok: true, summary: "+5 -2", linesAdded: 5, linesRemoved: 2, bytes: 6 },
  },
  writeToolCall: {
    args: { path: "notes.md", fileText: "# héllo\n" },
    info: { kind: "write", label: "notes.md (9 bytes)", path: "notes.md" },
    success: { path: "notes.md", linesCreated: 1, fileSize: 9 },
    result: { ok: true, summary: "1 line, 9 bytes", lineCount: 1, bytes: 9 },
  },
  deleteToolCall: {
    args: { path: "old.txt" },
    info: { kind: "delete", label: "old.txt", path: "old.txt" },
    success: { path: "old.txt", message: "Deleted old.txt" },
    result: { ok: true, summary: "Deleted old.txt" },
  },
  mcpToolCall: {
    args: {
      name: "github-search_issues",
      providerIdentifier: "github",
      toolName: "search_issues",
      args: { q: "x" },
    },
    info: {
      kind: "mcp",
      label: "github/search_issues",
      mcp: { provider: "github", tool: "search_issues" },
    },
    success: { content: [{ text: { text: "3 issues found\nfirst: #12" } }], isError: false },
    result: { ok: true, summary: "3 issues found …" },
  },
  updateTodosToolCall: {
    args: {
      todos: [
        { id: "1", content: "a", status: "TODO_STATUS_COMPLETED" },
        { id: "2", content: "b", status: "TODO_STATUS_IN_PROGRESS" },
        { id: "3", content: "c", status: "TODO_STATUS_PENDING" },
      ],
      merge: true,
    },
    info: { kind: "updateTodos", label: "3 todos (1 done)" },
    success: {
      todos: [
        { id: "1", status: "TODO_STATUS_COMPLETED" },
        { id: "2", status: "TODO_STATUS_COMPLETED" },
      ],
      totalCount: 2,
      wasMerge: true,
    },
    result: { ok: true, summary: "2 todos (2 done)" },
  },
  readTodosToolCall: {
    args: {},
    info: { kind: "readTodos", label: "" },
    success: { todos: [{ id: "1", status: "TODO_STATUS_PENDING" }] },
    result: { ok: true, summary: "1 todo (0 done)" },
  },
  webFetchToolCall: {
    args: { url: "https://example.com/docs" },
    info: { kind: "webFetch", label: "https://example.com/docs", url: "https://example.com/docs" },
    success: { url: "https://example.com/docs", markdown: "# Docs" },
    result: { ok: true, summary: "6 chars", bytes: 6 },
  },
  fetchToolCall: {
    args: { url: "https://example.com" },
    info: { kind: "fetch", label: "https://example.com" },
    success: { content: "ok" },
    result: { ok: true, summary: "2 chars" },
  },
  webSearchToolCall: {
    args: { searchTerm: "node 20 release" },
    info: { kind: "webSearch", label: '"node 20 release"', query: "node 20 release" },
    success: { references: [{}, {}] },
    result: { ok: true, summary: "2 results" },
  },
  taskToolCall: {
    args: { subagentType: "explore", prompt: `Find every caller of ${"x".repeat(100)}` },
    info: { kind: "task", label: `explore: Find every caller of ${"x".repeat(58)}…` },
    success: { result: "Found 3 callers" },
    result: { ok: true, summary: "Found 3 callers" },
  },
  awaitToolCall: {
    args: { taskId: "519707", blockUntilMs: 60_000 },
    info: { kind: "await", label: "519707", timeoutMs: 60_000 },
    success: { message: "shell exited 0" },
    result: { ok: true, summary: "shell exited 0" },
  },
  listMcpResourcesToolCall: {
    args: { server: "docs" },
    info: { kind: "listMcpResources", label: "docs" },
    success: { resources: [{}, {}] },
    result: { ok: true, summary: "2 resources" },
  },
  readMcpResourceToolCall: {
    args: { server: "docs", uri: "doc://intro" },
    info: { kind: "readMcpResource", label: "docs/doc://intro" },
    success: {},
    result: { ok: true, summary: "done" },
  },
  getMcpToolsToolCall: {
    args: { server: "github" },
    info: { kind: "getMcpTools", label: "github" },
    success: { tools: [{}, {}, {}] },
    result: { ok: true, summary: "3 tools" },
  },
  readLintsToolCall: {
    args: { paths: ["src/a.ts", "src/b.ts"] },
    info: { kind: "readLints", label: "src/a.ts, src/b.ts" },
    success: { diagnostics: [{}] },
    result: { ok: true, summary: "1 diagnostic" },
  },
  askQuestionToolCall: {
    args: { questions: [{ prompt: "Which database?" }] },
    info: { kind: "askQuestion", label: "Which database?" },
    success: {
      message: "Questions skipped by the user, continue with the information you already have",
    },
    result: {
      ok: true,
      summary: "Questions skipped by the user, continue with the information you already have",
    },
  },
  createPlanToolCall: {
    args: { name: "Refactor auth", overview: "…" },
    info: { kind: "createPlan", label: "Refactor auth" },
    success: { message: "Plan created" },
    result: { ok: true, summary: "Plan created" },
  },
  switchModeToolCall: {
    args: { targetModeId: "agent" },
    info: { kind: "switchMode", label: "agent" },
    success: {},
    result: { ok: true, summary: "done" },
  },
  writeShellStdinToolCall: {
    args: { shellId: "7", chars: "y\n" },
    info: { kind: "writeShellStdin", label: '7 ← "y\\n"' },
    success: {},
    result: { ok: true, summary: "done" },
  },
  applyAgentDiffToolCall: {
    args: { path: "src/a.ts" },
    info: { kind: "applyAgentDiff", label: "src/a.ts", path: "src/a.ts" },
    success: { message: "applied" },
    result: { ok: true, summary: "applied" },
  },
  blameByFilePathToolCall: {
    args: { filePath: "src/a.ts", startLine: 1, endLine: 5 },
    info: { kind: "blameByFilePath", label: "src/a.ts:L1-L5" },
    success: {},
    result: { ok: true, summary: "done" },
  },
  prManagementToolCall: {
    args: { action: "create" },
    info: { kind: "prManagement", label: "create" },
    success: { url: "https://github.com/o/r/pull/1" },
    result: { ok: true, summary: "https://github.com/o/r/pull/1" },
  },
  recordScreenToolCall: {
    args: { action: "start" },
    info: { kind: "recordScreen", label: "start" },
    success: {},
    result: { ok: true, summary: "done" },
  },
  function: {
    args: { name: "AskQuestion", arguments: '{"question":"Proceed?"}' },
    info: { kind: "function", label: 'AskQuestion {"question":"Proceed?"}' },
    success: {},
    result: { ok: true, summary: "done" },
  },
};

describe("tool extractors", () => {
  it("cover every tool key that has a schema, and nothing else", () => {
    expect(Object.keys(CASES).sort()).toEqual(Object.keys(TOOL_KINDS).sort());
    expect(Object.keys(toolSchemas).sort()).toEqual(Object.keys(TOOL_KINDS).sort());
  });

  for (const [key, testCase] of Object.entries(CASES)) {
    it(`${key}: describes the call and summarises its success`, () => {
      const tool = key === "function" ? testCase.args : { args: testCase.args };
      const started = toolEvent("started", key, tool);
      expect(toolCallInfo(started)).toMatchObject({
        ...testCase.info,
        callId: `call-${key}`,
        key,
        phase: "started",
      });
      expect(toolResult(started)).toBeUndefined();
      const completedTool =
        key === "function"
          ? testCase.args
          : { args: testCase.args, result: { success: testCase.success } };
      const completed = toolEvent("completed", key, completedTool);
      if (key !== "function") {
        expect(toolResult(completed)).toMatchObject({
          ...testCase.result,
          outcome: "success",
          key,
        });
        const valid = toolSchemas[key as keyof typeof toolSchemas].safeParse(completedTool);
        expect(valid.success, valid.error?.message).toBe(true);
      }
    });
  }
});

describe("findToolKey", () => {
  it("finds the tool key among the sibling keys of newer CLI versions", () => {
    const toolCall = {
      hookAdditionalContexts: [],
      toolCallId: "call-1\nfc_1",
      startedAtMs: "1789467333873",
      editToolCall: { args: { path: "a.ts" } },
      completedAtMs: "1789467334000",
    };
    expect(findToolKey(toolCall)).toBe("editToolCall");
    const event = toolEvent(
      "started",
      "editToolCall",
      { args: { path: "a.ts" } },
      { toolCallId: "x", startedAtMs: "1" },
    );
    expect(toolCallInfo(event)).toMatchObject({ key: "editToolCall", path: "a.ts" });
  });

  it("accepts the generic function shape and unknown <name>ToolCall keys", () => {
    expect(findToolKey({ function: { name: "x" } })).toBe("function");
    expect(findToolKey({ reflectToolCall: { args: {} } })).toBe("reflectToolCall");
    expect(findToolKey({ toolCallId: "x" })).toBeUndefined();
    expect(findToolKey(null)).toBeUndefined();
    const unknown = toolEvent("started", "computerUseToolCall", {
      args: { action: "click", x: 1 },
    });
    expect(toolCallInfo(unknown)).toMatchObject({
      kind: "computerUse",
      label: '{"action":"click","x":1}',
    });
  });
});

describe("toolResult outcomes", () => {
  const completed = (result: Record<string, unknown>, key = "shellToolCall") =>
    toolResult(toolEvent("completed", key, { args: { command: "make" }, result }));

  it("renders failures with their message and exit code", () => {
    expect(
      completed({ rejected: { command: "rm -rf /", reason: "blocked by hook" } }),
    ).toMatchObject({
      outcome: "rejected",
      ok: false,
      summary: "rejected: blocked by hook",
      error: "blocked by hook",
    });
    expect(completed({ failure: { exitCode: 2, stderr: "boom\n" } })).toMatchObject({
      ok: false,
      exitCode: 2,
      summary: "failure (exit 2)",
      stderrTail: "boom",
    });
    expect(completed({ timeout: { command: "make", timeoutMs: 30_000 } })).toMatchObject({
      ok: false,
      summary: "timeout after 30.0s",
    });
    expect(
      completed({ error: { error: { message: "no such server" } } }, "mcpToolCall"),
    ).toMatchObject({
      ok: false,
      summary: "error: no such server",
    });
    expect(completed({ permissionDenied: {} }, "readToolCall")).toMatchObject({
      ok: false,
      summary: "permissionDenied",
    });
  });

  it("agrees with toolOutcome, which names the outcome alone", () => {
    const results: Array<Record<string, unknown>> = [
      { rejected: { command: "rm -rf /", reason: "blocked by hook" } },
      { permissionDenied: {} },
      { success: { exitCode: 0 }, isBackground: true },
      { somethingNew: {} },
    ];
    for (const result of results) {
      const event = toolEvent("completed", "shellToolCall", { args: {}, result });
      expect(toolOutcome(event)).toBe(toolResult(event)!.outcome);
    }
    expect(toolOutcome(toolEvent("completed", "shellToolCall", { args: {} }))).toBe("none");
    expect(toolOutcome(toolEvent("started", "shellToolCall", { args: {} }))).toBeUndefined();
    expect(toolOutcome(parseLine('{"type":"assistant"}'))).toBeUndefined();
  });

  it("marks non-terminal outcomes as pending", () => {
    expect(completed({ stillRunning: {} }, "awaitToolCall")).toMatchObject({
      pending: true,
      ok: true,
      summary: "stillRunning",
    });
  });

  it("finds a known outcome after keys of the agent's own (`toString`, `__proto__`)", () => {
    for (const before of ['"toString":"x"', '"__proto__":{"a":1}', '"isBackground":false']) {
      const event = parseLine(
        `{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"readToolCall":{"args":{"path":"a"},"result":{${before},"success":{"content":"x"}}}}}`,
      );
      expect(toolOutcome(event), before).toBe("success");
      expect(toolResult(event)?.ok, before).toBe(true);
    }
  });

  it("reads a declared timeout as a number, or a numeric string in decimal only", () => {
    const timeout = (value: unknown) =>
      toolCallInfo(
        toolEvent("started", "shellToolCall", { args: { command: "x", timeout: value } }),
      )?.timeoutMs;
    expect(timeout(30_000)).toBe(30_000);
    expect(timeout("30000")).toBe(30_000);
    expect(timeout(" 1.5e3 ")).toBe(1_500);
    for (const value of ["0x10", "0b101", "0o17", "Infinity", "1_000", "", " "]) {
      expect(timeout(value), value).toBeUndefined();
    }
  });

  it("renders an unknown outcome key by its name", () => {
    expect(completed({ somethingNew: { x: 1 } })).toMatchObject({
      outcome: "somethingNew",
      ok: false,
      summary: "somethingNew",
    });
  });

  it("reports a backgrounded shell", () => {
    const result = completed({ success: { exitCode: 0 }, isBackground: true });
    expect(result).toMatchObject({ background: true, summary: "exit 0 (backgrounded)" });
  });

  it("treats a shell success with a non-zero exit code as not ok", () => {
    expect(completed({ success: { exitCode: 137, signal: "SIGKILL" } })).toMatchObject({
      outcome: "success",
      ok: false,
      summary: "exit 137 (SIGKILL)",
    });
  });

  it("treats a completion without a result as done", () => {
    expect(
      toolResult(toolEvent("completed", "readToolCall", { args: { path: "x" } })),
    ).toMatchObject({
      outcome: "none",
      ok: true,
    });
  });
});

describe("extractor results", () => {
  // Whoever serialises them (renderers, records) sees the same key order as ever.
  it("keep their key order: the description or summary first, then the call's fields", () => {
    const args = { command: "sleep 1", timeout: 5_000, isBackground: true, workingDirectory: "/r" };
    const info = toolCallInfo(toolEvent("started", "shellToolCall", { args }));
    expect(Object.keys(info ?? {})).toEqual([
      "label",
      "command",
      "timeoutMs",
      "directory",
      "callId",
      "phase",
      "key",
      "kind",
      "background",
      "args",
    ]);
    expect(info?.background).toBe(true);
    const result = toolResult(
      toolEvent("completed", "shellToolCall", {
        args,
        result: { success: { exitCode: 0, stdout: "ok" } },
      }),
    );
    expect(Object.keys(result ?? {})).toEqual([
      "summary",
      "ok",
      "exitCode",
      "stdoutTail",
      "callId",
      "key",
      "kind",
      "background",
      "outcome",
      "pending",
      "command",
    ]);
    const none = toolResult(toolEvent("completed", "readToolCall", { args: { path: "x" } }));
    expect(Object.keys(none ?? {})).toEqual([
      "callId",
      "key",
      "kind",
      "background",
      "outcome",
      "ok",
      "pending",
      "summary",
    ]);
  });
});

describe("toMonitorSignal for tool calls", () => {
  it("marks background shells and maps await waits to declared timeouts", () => {
    expect(
      toMonitorSignal(
        toolEvent("started", "shellToolCall", {
          args: { command: "npm run dev", isBackground: true },
        }),
      ),
    ).toMatchObject({
      type: "toolStart",
      background: true,
    });
    expect(
      toMonitorSignal(
        toolEvent("started", "awaitToolCall", { args: { taskId: "1", blockUntilMs: 5_000 } }),
      ),
    ).toMatchObject({
      type: "toolStart",
      kind: "await",
      timeoutMs: 5_000,
    });
  });

  it("ends calls on completed and failed, and treats unknown subtypes as activity", () => {
    const line = (subtype: string) =>
      parseLine(
        JSON.stringify({
          type: "tool_call",
          subtype,
          call_id: "c",
          tool_call: { readToolCall: { args: { path: "x" } } },
        }),
      );
    expect(toMonitorSignal(line("completed"))).toMatchObject({ type: "toolEnd", id: "c" });
    expect(toMonitorSignal(line("failed"))).toMatchObject({ type: "toolEnd", id: "c" });
    expect(toMonitorSignal(line("progress"))).toEqual({
      type: "activity",
      eventType: "tool_call/progress",
    });
  });

  it("maps every other kind of line to activity", () => {
    expect(toMonitorSignal(parseLine("T: error"))).toEqual({ type: "activity", eventType: "text" });
    expect(toMonitorSignal(parseLine('{"type":"thinking","subtype":"delta","text":""}'))).toEqual({
      type: "activity",
      eventType: "thinking/delta",
      phase: "thinking",
    });
    expect(toMonitorSignal(parseLine('{"type":"connection","subtype":"reconnecting"}'))).toEqual({
      type: "activity",
      eventType: "connection/reconnecting",
    });
    expect(toMonitorSignal(parseLine('{"type":"system","subtype":"init"}'))).toEqual({
      type: "activity",
      eventType: "system/init",
    });
  });
});

describe("extractors on unexpected shapes", () => {
  it("never throw (property)", () => {
    const toolKey = fc.constantFrom(...Object.keys(TOOL_KINDS), "otherToolCall", "function", "x");
    fc.assert(
      fc.property(
        toolKey,
        fc.jsonValue(),
        fc.jsonValue(),
        fc.constantFrom("started", "completed", "failed"),
        (key, args, result, subtype) => {
          const event = parseLine(
            JSON.stringify({
              type: "tool_call",
              subtype,
              call_id: "c",
              tool_call: { [key]: { args, result } },
            }),
          );
          expect(() => {
            toolCallInfo(event);
            toolResult(event);
            toMonitorSignal(event);
          }).not.toThrow();
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 500) },
    );
  });
});
