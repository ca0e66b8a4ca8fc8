import { describe, expect, it } from "vitest";
import { ciRunUrl, createNotificationSource, type Notification } from "./notification.js";

const SESSION = "9e61a1c4-1d7a-4a38-a3f5-0f9ad3a8a1d2";
let clock = Date.UTC(2026, 10, 22, 12, 0, 0);

/** Feed records (name, fields) and collect the notifications. */
function notificationsOf(
  records: Array<[string, Record<string, unknown>]>,
  options: Parameters<typeof createNotificationSource>[0] = {},
): Notification[] {
  const source = createNotificationSource({
    tool: { name: "cursor-wrap", version: "1.2.3" },
    ...options,
  });
  return records.flatMap(([message, fields]) => {
    clock += 100;
    return source.record(message, { msg: message, ts: clock, ...fields });
  });
}

const HANG = {
  verdict: "hang",
  summary: "no output for 60.0s",
  reason: { kind: "idle", idleMs: 60_000 },
};

describe("createNotificationSource", () => {
  it("notifies a hang, the retry, and the end, with what an on-call person needs", () => {
    const sent = notificationsOf(
      [
        ["session_start", { log_path: "/logs/a.jsonl" }],
        ["agent_spawn", {}],
        ["log_renamed", { session_id: SESSION, path: `/logs/${SESSION}.jsonl` }],
        ["hang_detected", HANG],
        ["agent_killed", { reason: "hang" }],
        ["turn_end", { session_id: SESSION, attempt: 1, outcome: "hang" }],
        [
          "retry",
          { attempt: 2, action: "resume", kind: "hang", wait_ms: 0, summary: HANG.summary },
        ],
        ["agent_spawn", {}],
        ["turn_end", { session_id: SESSION, attempt: 2, outcome: "completed" }],
        [
          "session_end",
          { outcome: "completed", exit_code: 0, log_path: `/logs/${SESSION}.flagged.jsonl` },
        ],
      ],
      {
        host: "runner-7",
        runUrl: "https://github.com/o/r/actions/runs/1",
        reportPath: "report.json",
      },
    );
    expect(sent.map((notification) => notification.event)).toEqual(["hang", "retry", "done"]);
    const [hang, retry, done] = sent as [Notification, Notification, Notification];
    expect(hang).toEqual({
      version: 1,
      event: "hang",
      text: `cursor-wrap on runner-7: hang detected in turn 1, the agent is killed [session ${SESSION}]: no output for 60.0s. Resume with: cursor-wrap --resume ${SESSION} (https://github.com/o/r/actions/runs/1)`,
      at: expect.any(String),
      summary: "no output for 60.0s",
      session_id: SESSION,
      turn: 1,
      attempt: 1,
      verdict: "hang",
      reason: { kind: "idle", idleMs: 60_000 },
      failure: null,
      retry: null,
      outcome: null,
      exit_code: null,
      resume_command: `cursor-wrap --resume ${SESSION}`,
      log_path: `/logs/${SESSION}.jsonl`,
      report_path: "report.json",
      host: "runner-7",
      run_url: "https://github.com/o/r/actions/runs/1",
      tool: { name: "cursor-wrap", version: "1.2.3" },
    });
    expect(retry).toMatchObject({
      turn: 1,
      retry: { attempt: 2, action: "resume", kind: "hang", wait_ms: 0 },
      text: expect.stringContaining("retrying (attempt 2)"),
    });
    expect(retry.text).not.toContain("Resume with");
    expect(done).toMatchObject({
      turn: 2,
      attempt: 2,
      outcome: "completed",
      exit_code: 0,
      log_path: `/logs/${SESSION}.flagged.jsonl`,
      text: `cursor-wrap on runner-7: done: completed (exit 0) [session ${SESSION}] (https://github.com/o/r/actions/runs/1)`,
    });
  });

  it("gives up once: on the failure the recovery gave up on, or at an unsuccessful end", () => {
    const failure = notificationsOf([
      ["agent_spawn", {}],
      ["turn_end", { session_id: SESSION, outcome: "failed" }],
      [
        "agent_failure",
        { kind: "usage-limit", summary: "hit the usage limit", gave_up: "no --fallback-model" },
      ],
      ["session_end", { outcome: "failure", exit_code: 1 }],
    ]);
    expect(failure.map((notification) => notification.event)).toEqual(["gave-up", "done"]);
    expect(failure[0]).toMatchObject({
      failure: {
        kind: "usage-limit",
        summary: "hit the usage limit",
        gave_up: "no --fallback-model",
      },
    });

    const hang = notificationsOf([
      ["agent_spawn", {}],
      ["hang_detected", HANG],
      ["turn_end", { session_id: SESSION, outcome: "hang" }],
      ["session_end", { outcome: "hang", exit_code: 2 }],
    ]);
    expect(hang.map((notification) => notification.event)).toEqual(["hang", "gave-up", "done"]);
    expect(hang[1]).toMatchObject({
      outcome: "hang",
      exit_code: 2,
      failure: { kind: "hang", summary: "no output for 60.0s", gave_up: null },
    });
    // A log that says why it gave up on the hang: then, with why, and once.
    const said = notificationsOf([
      ["agent_spawn", {}],
      ["hang_detected", HANG],
      ["turn_end", { session_id: SESSION, outcome: "hang" }],
      [
        "gave_up",
        {
          kind: "hang",
          summary: "no output for 60.0s",
          gave_up: "hang: gave up after 1 hang retry",
        },
      ],
      ["session_end", { outcome: "hang", exit_code: 2 }],
    ]);
    expect(said.map((notification) => notification.event)).toEqual(["hang", "gave-up", "done"]);
    expect(said[1]).toMatchObject({
      failure: { kind: "hang", gave_up: "hang: gave up after 1 hang retry" },
    });

    // Stopped from outside: not giving up. A completed run: not either.
    for (const outcome of ["signal SIGTERM", "stdout EPIPE"]) {
      const stopped = notificationsOf([
        ["agent_spawn", {}],
        ["session_end", { outcome, exit_code: outcome.startsWith("signal") ? 143 : 1 }],
      ]);
      expect(stopped.map((notification) => notification.event)).toEqual(["done"]);
    }
  });

  it("makes each notification once, whatever comes after", () => {
    const source = createNotificationSource();
    const end = { msg: "session_end", ts: 1, outcome: "hang", exit_code: 2 };
    expect(source.record("session_end", end)).toHaveLength(2);
    expect(source.record("session_end", end)).toEqual([]);
  });

  it("numbers retries by the run's attempts, and ends a summary with one full stop", () => {
    // Two retries of one kind, a switch of model, and its own retry: each record counts within
    // its kind ("retry 1 of 1", "fallback 1 of 1"); the person reads the run's attempts.
    const retry = (action: string) =>
      ["retry", { attempt: 1, action, kind: "overloaded", summary: "overloaded" }] as [
        string,
        Record<string, unknown>,
      ];
    const sent = notificationsOf([
      ["agent_spawn", {}],
      retry("resume"),
      ["agent_spawn", {}],
      retry("switch-model"),
      ["agent_spawn", {}],
      retry("resume"),
      ["agent_spawn", {}],
      ["turn_end", { session_id: SESSION }],
      [
        "agent_failure",
        {
          kind: "overloaded",
          summary: "Gave up after 4 attempts (--max-retries 3).",
          gave_up: "gave up after 1 retry",
        },
      ],
    ]);
    expect(
      sent.filter((n) => n.event === "retry").map((n) => /\(attempt \d+\)/.exec(n.text)?.[0]),
    ).toEqual(["(attempt 2)", "(attempt 3)", "(attempt 4)"]);
    const gaveUp = sent.find((n) => n.event === "gave-up")!;
    expect(gaveUp.text).toContain("(--max-retries 3). Resume with: cursor-wrap --resume");
    expect(gaveUp.text).not.toContain("..");
  });

  it("offers no resume for a session the agent said it does not know", () => {
    const [gaveUp] = notificationsOf([
      ["agent_spawn", {}],
      ["turn_end", { session_id: SESSION }],
      [
        "agent_failure",
        {
          kind: "unknown-session",
          summary: "cursor-agent does not know session … Start a new session without --resume.",
          gave_up: "unknown-session: final",
        },
      ],
    ]);
    expect(gaveUp).toMatchObject({ event: "gave-up", resume_command: null });
    expect(gaveUp!.text).not.toContain("Resume with");
  });

  it("keeps the summary to one short line", () => {
    const [hang] = notificationsOf([["hang_detected", { summary: `a\nb\r\n${"x".repeat(900)}` }]]);
    expect(hang!.summary.startsWith("a b x")).toBe(true);
    expect(hang!.summary.length).toBeLessThanOrEqual(500);
    expect(hang!.text.length).toBeLessThanOrEqual(1_000);
  });

  it("links the CI run on GitHub Actions", () => {
    expect(
      ciRunUrl({
        GITHUB_SERVER_URL: "https://github.com",
        GITHUB_REPOSITORY: "o/r",
        GITHUB_RUN_ID: "42",
      }),
    ).toBe("https://github.com/o/r/actions/runs/42");
    expect(ciRunUrl({})).toBeUndefined();
  });
});
