import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import {
  completedRun,
  failedRun,
  hangRun,
  hangThenRetryRun,
  hostileRun,
  type RunStep,
  signalRun,
} from "./__fixtures__/runs.js";
import { writeRun } from "./__fixtures__/write-run.js";
import { buildReport, createReportBuilder } from "./report-builder.js";
import { RUN_REPORT_SCHEMA_ID, type RunReport } from "./run-report.js";

const schema = JSON.parse(
  readFileSync(new URL("../run-report.schema.json", import.meta.url), "utf8"),
) as Record<string, unknown>;
const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats.default(ajv);
const validate = ajv.compile(schema);

/** Every report a test makes is held to the published schema. */
function valid(report: RunReport): RunReport {
  const ok = validate(report);
  expect(validate.errors ?? [], JSON.stringify(report, null, 2)).toEqual([]);
  expect(ok).toBe(true);
  return report;
}

const NOW = Date.UTC(2026, 10, 22, 13, 0, 0);
const options = { tool: { name: "cursor-wrap", version: "1.2.3" }, now: () => NOW };

/** The report of a run, built live through the log's tap; the same from the finished file. */
function reportOf(steps: readonly RunStep[]): RunReport {
  const live = createReportBuilder(options);
  const records = writeRun(steps, (message, record) => live.record(message, record));
  const fromFile = buildReport(records, options);
  expect(fromFile).toEqual(live.report());
  return valid(fromFile);
}

describe("createReportBuilder", () => {
  it("reports a completed run: outcome, usage, tool calls per kind, refused and failed ones", () => {
    const report = reportOf(completedRun);
    expect(report).toMatchObject({
      $schema: RUN_REPORT_SCHEMA_ID,
      schema_version: 1,
      tool: { name: "cursor-wrap", version: "1.2.3" },
      outcome: "completed",
      finished: true,
      exit_code: 0,
      flagged: false,
      duration_ms: 1300,
      mode: "print",
      session_id: "9e61a1c4-1d7a-4a38-a3f5-0f9ad3a8a1d2",
      resume_command: "cursor-wrap --resume 9e61a1c4-1d7a-4a38-a3f5-0f9ad3a8a1d2",
      agent: { bin: "/home/ci/.local/bin/cursor-agent", version: "2026.01.28-fd13201" },
      models: ["gpt-5"],
      turns: 1,
      usage: {
        input_tokens: 4,
        output_tokens: 122,
        cache_read_tokens: 13_535,
        cache_write_tokens: 15_844,
      },
      stderr_tail: ["warning: something odd"],
      failure: null,
      interruptions: [],
      verdicts: [],
      updated_at: new Date(NOW).toISOString(),
    });
    expect(report.log_path).toMatch(/cursor-wrap-2026-11-22T12-00-00-000Z-unknown\.jsonl$/);
    // A flagged log is renamed before its last record: the report names its final file.
    expect(reportOf(hangRun).log_path).toMatch(/\.flagged\.jsonl$/);
    expect(report.attempts).toEqual([
      expect.objectContaining({
        turn: 1,
        attempt: 1,
        model: "gpt-5",
        outcome: "completed",
        tool_calls: 4,
        duration_ms: 1200,
        verdict: null,
        failure: null,
        retry: null,
      }),
    ]);
    expect(report.tool_calls).toMatchObject({ total: 4, failed: 1, denied: 1, unfinished: 0 });
    expect(report.tool_calls.by_kind).toEqual([
      { kind: "read", count: 2, failed: 0, denied: 0, unfinished: 0, total_ms: 200, max_ms: 100 },
      { kind: "shell", count: 1, failed: 0, denied: 1, unfinished: 0, total_ms: 100, max_ms: 100 },
      { kind: "grep", count: 1, failed: 1, denied: 0, unfinished: 0, total_ms: 100, max_ms: 100 },
    ]);
    expect(report.tool_calls.denied_calls).toEqual([
      expect.objectContaining({
        call_id: "call_2",
        kind: "shell",
        label: "python3 hello.py",
        outcome: "rejected",
        finished: true,
      }),
    ]);
  });

  it("reports attempts, the verdict that ended one, the retry and the models in order", () => {
    const report = reportOf(hangThenRetryRun);
    expect(report).toMatchObject({
      outcome: "completed",
      exit_code: 0,
      flagged: true,
      models: ["gpt-5", "auto"],
      turns: 2,
      failure: null,
      usage: { input_tokens: 100, output_tokens: 10, cache_read_tokens: 0, cache_write_tokens: 0 },
    });
    expect(report.attempts).toMatchObject([
      {
        turn: 1,
        attempt: 1,
        model: "gpt-5",
        outcome: "hang",
        verdict: "hang",
        killed: { reason: "hang", duration_ms: 310, survivors: 0 },
        usage: null,
        retry: { action: "resume", kind: "hang", wait_ms: 0 },
        // Recovered from: its failure is reported all the same (the run's own stays null).
        failure: { kind: "hang", summary: expect.stringContaining("npm run build"), gave_up: null },
      },
      {
        turn: 2,
        attempt: 2,
        model: "auto",
        outcome: "completed",
        verdict: null,
        retry: null,
        failure: null,
      },
    ]);
    expect(report.verdicts).toEqual([
      {
        verdict: "hang",
        turn: 1,
        at: expect.any(String),
        summary: expect.stringContaining('shell "npm run build"'),
        reason: expect.objectContaining({ kind: "tool", idleMs: 3002 }),
      },
    ]);
    // The hung call never finished: it ran until its turn ended, and it is the slowest.
    expect(report.tool_calls.slowest[0]).toMatchObject({
      call_id: "call_hang\nfc_1",
      finished: false,
      outcome: null,
      duration_ms: 300,
    });
    expect(report.tool_calls.unfinished).toBe(1);
  });

  it("says what a run that failed failed on: the verdict, the failure the recovery gave up on, the signal", () => {
    const hang = reportOf(hangRun);
    expect(hang).toMatchObject({
      outcome: "hang",
      exit_code: 2,
      failure: { kind: "hang", summary: expect.stringContaining("past its deadline") },
      stderr_tail: ["fatal: the build server went away"],
      // No -m: the model the agent's init named.
      models: ["Auto"],
    });
    expect(hang.attempts[0]!.killed).toEqual({ reason: "hang", duration_ms: 3100, survivors: 1 });

    expect(reportOf(failedRun)).toMatchObject({
      outcome: "failure",
      exit_code: 1,
      failure: {
        kind: "usage-limit",
        detail: "You've hit your usage limit",
        gave_up: "no --fallback-model and no --wait-for-reset",
      },
    });

    const signal = reportOf(signalRun);
    expect(signal).toMatchObject({
      outcome: "signal SIGTERM",
      exit_code: 143,
      failure: { kind: "signal", summary: "SIGTERM" },
      interruptions: [{ kind: "signal", detail: "SIGTERM" }],
      session_id: null,
      resume_command: null,
    });
    expect(signal.tool_calls.slowest[0]).toMatchObject({ label: "sleep 600", finished: false });
  });

  it("says running until the log ends, and what was known so far", () => {
    const builder = createReportBuilder(options);
    const records = writeRun(hangThenRetryRun);
    for (const record of records.slice(0, 5)) builder.record(String(record.msg), record);
    const running = valid(builder.report());
    expect(running).toMatchObject({
      outcome: "running",
      finished: false,
      exit_code: null,
      ended_at: null,
      duration_ms: null,
      pid: process.pid,
      verdicts: [{ verdict: "hang" }],
      attempts: [{ outcome: "running" }],
    });
    expect(builder.finished).toBe(false);
  });

  it("ends a run whose log was never closed with the exit code it exited with", () => {
    const builder = createReportBuilder(options);
    const records = writeRun(signalRun);
    for (const record of records.slice(0, -1)) builder.record(String(record.msg), record);
    builder.end(130);
    const report = valid(builder.report());
    expect(report).toMatchObject({ outcome: "interrupted", finished: true, exit_code: 130 });
    expect(report.attempts[0]!.outcome).toBe("cancelled");
    // The log's own end, once seen, is not overridden.
    const closedBuilder = createReportBuilder(options);
    for (const record of records) closedBuilder.record(String(record.msg), record);
    closedBuilder.end(1);
    expect(closedBuilder.report()).toMatchObject({ outcome: "signal SIGTERM", exit_code: 143 });
  });

  it("keeps the lists bounded and every line short", () => {
    const steps: RunStep[] = [
      ...Array.from({ length: 30 }, (_, index) => ({ stderr: `line ${index} ${"x".repeat(50)}` })),
      ...hostileRun,
    ];
    const live = createReportBuilder({ ...options, limits: { stderrLines: 5, lineLength: 40 } });
    writeRun(steps, (message, record) => live.record(message, record));
    const report = valid(live.report());
    expect(report.stderr_tail).toHaveLength(5);
    expect(report.stderr_tail.every((line) => line.length <= 40)).toBe(true);
    expect(report.verdicts[0]!.summary.length).toBeLessThanOrEqual(40);
  });

  it("ignores records it does not know and fields of the wrong type", () => {
    const report = valid(
      buildReport([
        { msg: "session_start", ts: 1, pid: "not a number" },
        { msg: "something_new", ts: 2, whatever: true },
        { msg: "agent_spawn", ts: 3, args: [1, "--model", "x"] },
        { msg: "tool_call_closed", ts: 4, call_id: "never opened" },
        { msg: "turn_end", ts: 5, outcome: 7, usage: "lots" },
      ]),
    );
    expect(report).toMatchObject({ pid: null, turns: 1, models: ["x"], tool_calls: { total: 0 } });
    expect(report.attempts[0]).toMatchObject({ outcome: "running", usage: null });
  });
});
