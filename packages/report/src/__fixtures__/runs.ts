// Runs as their session logs record them: the records cursor-wrap writes, in order, with the
// fields it gives them (see apps/cursor-wrap/src/log-records.ts). The tests write these into a
// real session log (through @cursor-wrap/logger) and build reports from them.

/** A record to write: its name, fields and level. */
export interface Step {
  message: string;
  fields: Record<string, unknown>;
  level?: "debug" | "info" | "warn" | "error";
}

/** A line of agent stderr to log (not a decision). */
export interface StderrStep {
  stderr: string;
}

/** What a run writes: decisions, stderr lines, and the end (`log.close`). */
export type RunStep = Step | StderrStep | { close: Record<string, unknown> };

const SESSION = "9e61a1c4-1d7a-4a38-a3f5-0f9ad3a8a1d2";
const USAGE = {
  inputTokens: 4,
  outputTokens: 122,
  cacheReadTokens: 13_535,
  cacheWriteTokens: 15_844,
};

const spawn = (extra: Record<string, unknown> = {}): Step => ({
  message: "agent_spawn",
  fields: {
    bin: "/home/ci/.local/bin/cursor-agent",
    agent_version: "2026.01.28-fd13201",
    args: ["--print", "--output-format", "stream-json", "--model", "gpt-5", "--force"],
    resume: undefined,
    pty: false,
    cwd: "/work",
    prompt_bytes: 18,
    ...extra,
  },
  level: "debug",
});

const opened = (callId: string, kind: string, label: string): Step => ({
  message: "tool_call_opened",
  fields: { call_id: callId, kind, label, timeout_ms: undefined, background: false },
  level: "debug",
});
const closed = (callId: string, outcome: string): Step => ({
  message: "tool_call_closed",
  fields: { call_id: callId, outcome },
  level: "debug",
});

/** A `-p` run: two reads, a refused shell call, a grep that failed; completed. */
export const completedRun: RunStep[] = [
  { message: "options", fields: { mode: "print", output_format: "stream-json" }, level: "debug" },
  spawn(),
  { message: "agent_started", fields: { pid: 4242, agent_token: "t" }, level: "debug" },
  opened("call_1", "read", "src/index.ts"),
  closed("call_1", "success"),
  opened("call_2", "shell", "python3 hello.py"),
  closed("call_2", "rejected"),
  opened("call_3", "grep", '"TODO" in src'),
  closed("call_3", "error"),
  opened("call_4", "read", "README.md"),
  closed("call_4", "success"),
  { stderr: "warning: something odd" },
  {
    message: "result_received",
    fields: { is_error: false, duration_ms: 1000, usage: USAGE },
    level: "debug",
  },
  { message: "agent_exited", fields: { code: 0, signal: null, duration_ms: 1200 }, level: "debug" },
  {
    message: "turn_end",
    fields: {
      turn: 1,
      outcome: "completed",
      duration_ms: 1200,
      tool_calls: 4,
      session_id: SESSION,
      cancel: undefined,
      resources: {},
      attempt: 1,
      usage: USAGE,
    },
  },
  {
    close: {
      outcome: "completed",
      flagged: false,
      exit_code: 0,
      turns: 1,
      duration_ms: 1300,
      session_id: SESSION,
      agent_version: "2026.01.28-fd13201",
    },
  },
];

const HANG_REASON = {
  kind: "tool",
  idleMs: 3002,
  openCallCount: 1,
  message: '1 tool call past its deadline, silent for 3.0s: shell "npm run build" 3.0s of 3.0s',
};

/** A hang in a shell call, a retry with a nudge, a fallback model, then a completed turn. */
export const hangThenRetryRun: RunStep[] = [
  { message: "options", fields: { mode: "print", output_format: "stream-json" }, level: "debug" },
  spawn(),
  opened("call_hang\nfc_1", "shell", "npm run build"),
  {
    message: "hang_detected",
    fields: { verdict: "hang", reason: HANG_REASON, summary: HANG_REASON.message },
    level: "error",
  },
  {
    message: "agent_killed",
    fields: {
      reason: "hang",
      code: null,
      signal: "SIGTERM",
      steps: [],
      survivors: [],
      duration_ms: 310,
    },
  },
  {
    message: "turn_end",
    fields: {
      turn: 1,
      outcome: "hang",
      duration_ms: 3400,
      tool_calls: 1,
      session_id: SESSION,
      resources: {},
      attempt: 1,
    },
  },
  {
    message: "retry",
    fields: {
      attempt: 2,
      max_attempts: 3,
      prompt: "continue",
      session_id: SESSION,
      reason: HANG_REASON,
      summary: HANG_REASON.message,
      kind: "hang",
      action: "resume",
      wait_ms: 0,
    },
    level: "warn",
  },
  spawn({ resume: SESSION, model: "auto" }),
  opened("call_5", "shell", "npm run build"),
  closed("call_5", "success"),
  {
    message: "turn_end",
    fields: {
      turn: 2,
      outcome: "completed",
      duration_ms: 2000,
      tool_calls: 1,
      session_id: SESSION,
      resources: {},
      attempt: 2,
      model: "auto",
      usage: { inputTokens: 100, outputTokens: 10 },
    },
  },
  {
    close: {
      outcome: "completed",
      flagged: true,
      exit_code: 0,
      turns: 2,
      duration_ms: 5600,
      session_id: SESSION,
    },
  },
];

/** A hang that is not retried: the run gives up with exit 2, the hung call never finished. */
export const hangRun: RunStep[] = [
  spawn({ args: ["--print"] }),
  opened("call_hang", "shell", "npm run build"),
  { stderr: "fatal: the build server went away" },
  {
    message: "hang_detected",
    fields: { verdict: "hang", reason: HANG_REASON, summary: HANG_REASON.message },
    level: "error",
  },
  {
    message: "agent_killed",
    fields: {
      reason: "hang",
      code: null,
      signal: "SIGKILL",
      steps: [],
      survivors: [77],
      duration_ms: 3100,
    },
  },
  {
    message: "turn_end",
    fields: {
      turn: 1,
      outcome: "hang",
      duration_ms: 6000,
      tool_calls: 1,
      session_id: SESSION,
      resources: {},
      attempt: 1,
      agent_model: "Auto",
    },
  },
  {
    close: {
      outcome: "hang",
      flagged: true,
      exit_code: 2,
      turns: 1,
      duration_ms: 6100,
      session_id: SESSION,
    },
  },
];

/** A run stopped by SIGTERM in the middle of a tool call. */
export const signalRun: RunStep[] = [
  spawn(),
  opened("call_1", "shell", "sleep 600"),
  { message: "signal_received", fields: { signal: "SIGTERM" }, level: "warn" },
  {
    message: "turn_cancel_requested",
    fields: { reason: { kind: "shutdown", signal: "SIGTERM" } },
    level: "warn",
  },
  {
    message: "turn_end",
    fields: {
      turn: 1,
      outcome: "cancelled",
      duration_ms: 900,
      tool_calls: 1,
      session_id: undefined,
      resources: {},
      attempt: 1,
    },
  },
  {
    close: {
      outcome: "signal SIGTERM",
      flagged: false,
      exit_code: 143,
      turns: 1,
      duration_ms: 950,
    },
  },
];

/** A usage limit the recovery could not get past. */
export const failedRun: RunStep[] = [
  spawn(),
  {
    message: "turn_end",
    fields: {
      turn: 1,
      outcome: "failed",
      duration_ms: 800,
      tool_calls: 0,
      session_id: SESSION,
      resources: {},
      attempt: 1,
    },
  },
  {
    message: "agent_failure",
    fields: {
      kind: "usage-limit",
      detail: "You've hit your usage limit",
      summary: "cursor-agent hit a usage limit: You've hit your usage limit",
      gave_up: "no --fallback-model and no --wait-for-reset",
    },
    level: "error",
  },
  {
    close: {
      outcome: "failure",
      flagged: true,
      exit_code: 1,
      turns: 1,
      duration_ms: 900,
      session_id: SESSION,
    },
  },
];

/** Text an agent could print to take over a GitHub Actions log, in every place it can reach. */
export const HOSTILE =
  "done\n::add-mask::hunter2\r\n::set-output name=ok::true%0A::stop-commands::x, a:b | <img src=x onerror=alert(1)> [link](https://evil.example) ```";

/** A hang whose label, reason and stderr carry {@link HOSTILE} text. */
export const hostileRun: RunStep[] = [
  spawn(),
  opened("call_x", "shell", HOSTILE),
  { stderr: HOSTILE },
  {
    message: "hang_detected",
    fields: { verdict: "hang", reason: { kind: "tool", message: HOSTILE }, summary: HOSTILE },
    level: "error",
  },
  {
    message: "turn_end",
    fields: {
      turn: 1,
      outcome: "hang",
      duration_ms: 100,
      tool_calls: 1,
      session_id: "s::1",
      resources: {},
      attempt: 1,
    },
  },
  {
    message: "retry",
    fields: {
      attempt: 2,
      max_attempts: 2,
      prompt: "go",
      session_id: "s::1",
      summary: HOSTILE,
      kind: "hang",
      action: "resume",
    },
    level: "warn",
  },
  spawn(),
  {
    message: "turn_end",
    fields: {
      turn: 2,
      outcome: "hang",
      duration_ms: 100,
      tool_calls: 0,
      session_id: "s::1",
      resources: {},
      attempt: 2,
    },
  },
  {
    close: {
      outcome: "hang",
      flagged: true,
      exit_code: 2,
      turns: 2,
      duration_ms: 300,
      session_id: "s::1",
    },
  },
];
