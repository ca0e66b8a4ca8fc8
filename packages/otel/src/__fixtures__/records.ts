// Records as cursor-wrap's session log writes them, for runs the tests trace.

/** A record: its name and fields. */
export interface Step {
  message: string;
  fields: Record<string, unknown>;
}

export const SESSION = "9e61a1c4-1d7a-4a38-a3f5-0f9ad3a8a1d2";
const T0 = Date.UTC(2026, 10, 24, 3, 0, 0);

const at = (offsetMs: number, message: string, fields: Record<string, unknown> = {}): Step => ({
  message,
  fields: { ...fields, time: T0 + offsetMs },
});

/** Start of the run (before the first record). */
export const RUN_START = T0 - 10;

/** A -p run: the first attempt hangs in a shell call and is killed, the resumed one completes. */
export const hangThenSuccess: Step[] = [
  at(0, "session_start", { pid: 100, log_path: "/logs/run.jsonl" }),
  at(1, "options", { mode: "print" }),
  at(2, "agent_spawn", {
    bin: "cursor-agent",
    agent_version: "2026.01.28-fd13201",
    // The user's own -m: no `model` field (that is for a model cursor-wrap chose).
    args: ["--print", "--model", "gpt-5"],
  }),
  at(3, "agent_started", { pid: 4242 }),
  at(10, "log_renamed", { path: "/logs/run-s.jsonl", session_id: SESSION }),
  at(20, "tool_call_opened", { call_id: "call_1", kind: "read", label: "src/index.ts" }),
  at(30, "tool_call_closed", { call_id: "call_1", outcome: "success" }),
  at(40, "tool_call_opened", { call_id: "call_2", kind: "shell", label: "npm test" }),
  at(1_040, "hang_detected", {
    summary: "Hang detected: shell call open 1.0s past its grace",
    reason: { kind: "tool", call_id: "call_2" },
  }),
  at(1_041, "agent_killed", { reason: "hang", duration_ms: 12, survivors: [] }),
  at(1_060, "turn_end", {
    outcome: "hang",
    duration_ms: 1_058,
    tool_calls: 2,
    attempt: 1,
    session_id: SESSION,
    usage: { inputTokens: 10, outputTokens: 20, cacheReadTokens: 300, cacheWriteTokens: 40 },
  }),
  at(1_061, "retry", {
    action: "resume",
    kind: "hang",
    wait_ms: 0,
    summary: "resuming after a hang",
  }),
  at(1_070, "agent_spawn", {
    bin: "cursor-agent",
    agent_version: "2026.01.28-fd13201",
    args: ["--print", "--resume", SESSION, "--model", "gpt-5"],
    resume: SESSION,
  }),
  at(1_080, "tool_call_opened", { call_id: "call_3", kind: "shell", label: "rm -rf /" }),
  at(1_090, "tool_call_closed", { call_id: "call_3", outcome: "rejected" }),
  at(1_200, "turn_end", {
    outcome: "completed",
    duration_ms: 130,
    tool_calls: 1,
    attempt: 2,
    session_id: SESSION,
    usage: { inputTokens: 1, outputTokens: 2, cacheReadTokens: 3, cacheWriteTokens: 4 },
  }),
  at(1_210, "session_end", {
    outcome: "completed",
    flagged: true,
    exit_code: 0,
    session_id: SESSION,
    log_path: "/logs/run-s.hang.jsonl",
  }),
];

/** A -p run that hangs and gives up: the wrapper exits with the hang's code. */
export const hangGivenUp: Step[] = [
  at(0, "session_start", { pid: 100 }),
  at(2, "agent_spawn", { bin: "cursor-agent", args: ["--print"] }),
  at(500, "hang_detected", {
    summary: "Hang detected: no output for 500ms",
    reason: { kind: "idle" },
  }),
  at(501, "agent_killed", { reason: "hang" }),
  at(510, "turn_end", { outcome: "hang", duration_ms: 508, tool_calls: 0, attempt: 1 }),
  at(511, "gave_up", {
    kind: "hang",
    summary: "no output for 500ms",
    gave_up: "hang: hang retries are off (no prompt to resume with)",
  }),
  at(520, "session_end", { outcome: "hang", flagged: true, exit_code: 3 }),
];

/** A -p run whose first attempt is rate limited (no record of its own: it is retried), then completes. */
export const rateLimitedThenSuccess: Step[] = [
  at(0, "session_start", { pid: 100 }),
  at(2, "agent_spawn", { bin: "cursor-agent", args: ["--print"] }),
  at(3, "agent_started", { pid: 4242 }),
  at(150, "agent_exited", { code: 1 }),
  at(160, "turn_end", { outcome: "abnormal", duration_ms: 158, tool_calls: 0, attempt: 1 }),
  at(161, "retry", {
    action: "resume",
    kind: "rate-limit",
    detail: "Rate limit exceeded, try again in 1 second",
    wait_ms: 1_000,
    summary: "rate limit: retry 1 of 3 in 1.0s, resuming the session",
  }),
  at(1_170, "wait_ended", {}),
  at(1_171, "agent_spawn", { bin: "cursor-agent", args: ["--print", "--resume", SESSION] }),
  at(1_300, "turn_end", {
    outcome: "completed",
    duration_ms: 129,
    tool_calls: 0,
    attempt: 2,
    agent_model: "Auto",
  }),
  at(1_310, "session_end", { outcome: "completed", flagged: false, exit_code: 0 }),
];

/** A -p run that gives up on a usage limit: the failure is recorded after the attempt's turn_end. */
export const usageLimitGivenUp: Step[] = [
  at(0, "session_start", { pid: 100 }),
  at(2, "agent_spawn", { bin: "cursor-agent", args: ["--print"] }),
  at(3, "agent_started", { pid: 4242 }),
  at(150, "agent_exited", { code: 1 }),
  at(160, "turn_end", { outcome: "abnormal", duration_ms: 158, tool_calls: 0, attempt: 1 }),
  at(161, "attempts_summary", { attempts: 1 }),
  at(162, "agent_failure", {
    kind: "usage-limit",
    summary: "cursor-agent has hit a usage limit",
    gave_up: "usage limit: no fallback model is configured",
  }),
  at(170, "session_end", { outcome: "failure", flagged: true, exit_code: 1 }),
];
