// Operating cursor-wrap from CI, through the built CLI: the run report (--report) on every
// ending, GitHub's job summary and annotations, the OpenTelemetry trace (--otel, TRACEPARENT),
// and notifications (--on-verdict, --notify) against a local script and a local HTTP server.

import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type OtlpReceiver, startOtlpReceiver } from "@cursor-wrap/otel/testing";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  checkNoSurvivorsAfterAll,
  FAST,
  invocations,
  logFiles,
  loggedUntil,
  logRecords,
  run,
  wrap,
} from "./harness.js";
import { type AgentScript, inMemoryAgent, quickTurn, runInProcess } from "./in-process.js";

checkNoSurvivorsAfterAll();

const require = createRequire(import.meta.url);
const schema = JSON.parse(
  readFileSync(require.resolve("@cursor-wrap/report/run-report.schema.json"), "utf8"),
) as object;
const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats.default(ajv);
const validate = ajv.compile(schema);

const HOOK = fileURLToPath(new URL("./fixtures/notify-hook.mjs", import.meta.url));

interface Failure {
  kind: string;
  summary: string;
  gave_up: string | null;
}

interface Report {
  outcome: string;
  finished: boolean;
  exit_code: number | null;
  session_id: string | null;
  resume_command: string | null;
  log_path: string | null;
  attempts: Array<{
    outcome: string;
    verdict: string | null;
    killed: unknown;
    retry: unknown;
    failure: Failure | null;
  }>;
  failure: Failure | null;
  verdicts: Array<{ verdict: string; summary: string; reason: unknown }>;
  tool_calls: { total: number; by_kind: Array<{ kind: string; count: number }> };
  usage: { input_tokens: number; output_tokens: number } | null;
  interruptions: Array<{ kind: string; detail: string }>;
}

/** The report a run wrote, held to the published schema. */
function readReport(path: string): Report {
  const report = JSON.parse(readFileSync(path, "utf8")) as Report;
  expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
  return report;
}

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** A directory of the test's own (reports, summaries, what the hook was given). */
function scratchDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "cursor-wrap-ops-"));
  scratch.push(dir);
  return dir;
}

const named = (records: Array<Record<string, unknown>>, name: string) =>
  records.filter((record) => record.msg === name);

describe("--report", () => {
  it("writes the report of a completed run: outcome, tool calls, usage, the log", async () => {
    const cwd = scratchDir();
    const result = await run(["-p", "x", "--report", "report.json", ...FAST], {
      scenario: "tools",
      cwd,
    });
    expect(result.code).toBe(0);
    // A relative path is the wrapper's working directory's.
    const report = readReport(join(cwd, "report.json"));
    expect(report).toMatchObject({ outcome: "completed", finished: true, exit_code: 0 });
    expect(report.tool_calls.total).toBeGreaterThan(1);
    expect(report.usage).not.toBeNull();
    expect(logFiles(result)).toContain(report.log_path);
  });

  it("after a hang that retries did not recover: the verdict, its reason, the kill, how to resume", async () => {
    const dir = scratchDir();
    // The path is given through its variable here, as a CI job would.
    const result = await run(
      ["-p", "x", "--prompt-after-hang", "go on", "--max-hang-retries", "1", ...FAST],
      {
        scenario: "tool-hang:200",
        env: { CURSOR_WRAP_REPORT: join(dir, "report.json") },
      },
    );
    expect(result.code).toBe(2);
    const report = readReport(join(dir, "report.json"));
    expect(report).toMatchObject({ outcome: "hang", finished: true, exit_code: 2 });
    expect(report.attempts.map((attempt) => attempt.verdict)).toEqual(["hang", "hang"]);
    expect(report.attempts[0]!.killed).not.toBeNull();
    expect(report.attempts[0]!.retry).not.toBeNull();
    expect(report.verdicts).toHaveLength(2);
    expect(report.verdicts[0]!.reason).toMatchObject({ kind: "tool" });
    expect(report.resume_command).toBe(`cursor-wrap --resume ${report.session_id}`);
    expect(logFiles(result)).toContain(report.log_path);
    // Given up on: the last attempt's failure says why, as a failure the agent named would.
    const gaveUp = { kind: "hang", gave_up: "hang: gave up after 1 hang retry" };
    expect(report.failure).toMatchObject(gaveUp);
    expect(report.attempts.at(-1)!.failure).toMatchObject(gaveUp);
  });

  it("after a linger kill and after SIGTERM, the report says so", async () => {
    const dir = scratchDir();
    const linger = await run(["-p", "x", "--report", join(dir, "linger.json"), ...FAST], {
      scenario: "linger",
    });
    expect(linger.code).toBe(0);
    const lingerReport = readReport(join(dir, "linger.json"));
    expect(lingerReport.verdicts.map((verdict) => verdict.verdict)).toEqual(["linger"]);

    const path = join(dir, "report.json");
    const signalled = wrap(["-p", "x", "--report", path, ...FAST], { scenario: "slow:60000" });
    await signalled.stdoutHas("thinking");
    signalled.child.kill("SIGTERM");
    const result = await signalled.done;
    expect(result.code).toBe(143);
    const report = readReport(path);
    expect(report).toMatchObject({ outcome: "signal SIGTERM", finished: true, exit_code: 143 });
    expect(report.interruptions).toEqual([
      expect.objectContaining({ kind: "signal", detail: "SIGTERM" }),
    ]);
  });
  it("an agent that cannot be found still gets its report, job summary and annotation", async () => {
    const dir = scratchDir();
    const summary = join(dir, "summary.md");
    const result = await run(
      [
        "-p",
        "x",
        "--agent-bin",
        join(dir, "no-such-agent"),
        "--log-dir",
        join(dir, "logs"),
        "--report",
        join(dir, "report.json"),
      ],
      { defaults: false, env: { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: summary } },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("no such file (set --agent-bin to the cursor-agent binary)");
    expect(readReport(join(dir, "report.json"))).toMatchObject({
      outcome: "error",
      finished: true,
      exit_code: 1,
    });
    expect(readFileSync(summary, "utf8")).toContain("cursor-wrap: error (exit 1)");
    expect(result.stderr).toMatch(/^::error title=cursor-wrap%3A error \(exit 1\)::/m);
  });

  it("an API key the agent repeats is redacted everywhere: log, report, summary, annotation", async () => {
    const dir = scratchDir();
    const summary = join(dir, "summary.md");
    // Keys with no shape a redaction could know: from the environment, a flag, a profile.
    const keys = {
      env: `key_${"0123456789abcdef".repeat(4)}`,
      flag: "crsr_flagGivenKeyValue42",
      profile: "cur_profileKeyValue4242",
    };
    const agent = join(dir, "agent.sh");
    writeFileSync(
      agent,
      `#!/bin/sh
echo '{"type":"system","subtype":"init","session_id":"s-1"}'
echo "{\\"type\\":\\"assistant\\",\\"message\\":{\\"role\\":\\"assistant\\",\\"content\\":[{\\"type\\":\\"text\\",\\"text\\":\\"using $CURSOR_API_KEY and ${keys.flag}\\"}]},\\"session_id\\":\\"s-1\\"}"
echo "Error: invalid API key $CURSOR_API_KEY (also tried ${keys.flag}, ${keys.profile})" >&2
exit 1
`,
    );
    chmodSync(agent, 0o755);
    const result = await run(
      [
        "-p",
        "x",
        "--agent-bin",
        agent,
        "--api-key",
        keys.flag,
        "--max-retries",
        "0",
        "--log-dir",
        join(dir, "logs"),
        "--report",
        join(dir, "report.json"),
      ],
      {
        defaults: false,
        env: {
          CURSOR_API_KEY: keys.env,
          CURSOR_WRAP_AUTH_SPARE: keys.profile,
          GITHUB_ACTIONS: "true",
          GITHUB_STEP_SUMMARY: summary,
        },
      },
    );
    expect(result.code).not.toBe(0);
    const [log] = readdirSync(join(dir, "logs")).map((name) => join(dir, "logs", name));
    const outputs = {
      log: readFileSync(log!, "utf8"),
      report: readFileSync(join(dir, "report.json"), "utf8"),
      summary: readFileSync(summary, "utf8"),
      annotations: result.stderr
        .split("\n")
        .filter((line) => line.startsWith("::"))
        .join("\n"),
      // cursor-wrap's own words (the agent's stderr lines pass through as they are).
      ownLines: result.stderr
        .split("\n")
        .filter((line) => line.startsWith("cursor-wrap"))
        .join("\n"),
      // The reason a wrapper line gives (its partial_result is the agent's text, passed on
      // as the agent's own events on stdout are).
      wrapperReasons: result.stdout
        .toString()
        .split("\n")
        .filter((line) => line.includes('"type":"wrapper"'))
        .map((line) => String((JSON.parse(line) as { reason?: unknown }).reason))
        .join("\n"),
    };
    expect(outputs.ownLines).toContain("[REDACTED]");
    expect(outputs.wrapperReasons).toContain("[REDACTED]");
    // The agent's words are there, its keys are not: in its stderr and in its JSON events.
    expect(outputs.log).toContain("Error: invalid API key [REDACTED]");
    expect(outputs.log).toMatch(
      /"raw":\{"type":"assistant".*"using \[REDACTED\] and \[REDACTED\]"/,
    );
    expect(outputs.report).toContain("invalid API key [REDACTED]");
    for (const [where, text] of Object.entries(outputs)) {
      for (const key of Object.values(keys)) expect(text, where).not.toContain(key);
    }
  });

  it("a report that cannot be written is said once, and the run's exit code is its own", async () => {
    const missing = join(scratchDir(), "no-such-dir", "report.json");
    // In-process: what is said about the report is the CLI's decision, not a process's.
    const result = await runInProcess(["-p", "x", "--report", missing, ...FAST], {
      startAgent: inMemoryAgent().start,
    });
    expect(result.code).toBe(0);
    expect(result.stderr.match(/could not write the report/g)).toHaveLength(1);
  });
});

describe("GitHub Actions", () => {
  it("appends a job summary and writes escaped annotations, with the agent's commands off", async () => {
    const summary = join(scratchDir(), "summary.md");
    const steps = [
      { type: "line", value: { type: "system", subtype: "init", session_id: "s-gh" } },
      // What the agent prints must never become a workflow command.
      { type: "stderr", text: "::error title=pwned::from the agent\n" },
      { type: "silence" },
    ];
    const result = await run(["-p", "x", "--max-hang-retries", "0", ...FAST], {
      scenario: steps as never,
      env: { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: summary },
    });
    expect(result.code).toBe(2);
    const lines = result.stderr.split("\n");
    const stop = lines.findIndex((line) => line.startsWith("::stop-commands::"));
    expect(stop).toBeGreaterThanOrEqual(0);
    const token = lines[stop]!.slice("::stop-commands::".length);
    expect(token).toMatch(/^cursor-wrap-[0-9a-f-]{36}$/);
    const resumed = lines.indexOf(`::${token}::`);
    const injected = lines.findIndex((line) => line.includes("pwned"));
    // The agent's line came while commands were stopped; ours after they resumed.
    if (injected !== -1) expect(injected).toBeGreaterThan(stop);
    if (injected !== -1) expect(injected).toBeLessThan(resumed);
    const annotations = lines.slice(resumed + 1).filter((line) => line.startsWith("::"));
    expect(annotations.some((line) => line.startsWith("::error title="))).toBe(true);
    // One line each, escaped: no annotation carries a raw newline's worth of a second command.
    for (const line of annotations) expect(line).toMatch(/^::(error|warning)( [^:]*)?::[^\r\n]*$/);
    const markdown = readFileSync(summary, "utf8");
    expect(markdown).toContain("cursor-wrap --resume s-gh");
    expect(markdown).toMatch(/hang/i);
  });

  it("--report-format github without GITHUB_ACTIONS, and json turns it off under GitHub", async () => {
    // In-process, with an agent in memory that lingers after its result (it never exits, so
    // the exit grace runs out and it is killed): the annotation is the CLI's to write or not.
    const lingering: AgentScript = (start) => ({ ...quickTurn(start), code: null });
    const github = await runInProcess(["-p", "x", "--report-format", "github", ...FAST], {
      startAgent: inMemoryAgent(lingering).start,
    });
    expect(github.stderr).toMatch(/^::warning/m);
    const json = await runInProcess(["-p", "x", "--report-format", "json", ...FAST], {
      startAgent: inMemoryAgent(lingering).start,
      env: { GITHUB_ACTIONS: "true" },
    });
    expect(json.stderr).not.toContain("::");
  });
});

describe("--otel", () => {
  let receiver: OtlpReceiver;
  beforeEach(async () => {
    receiver = await startOtlpReceiver();
  });
  afterEach(async () => {
    await receiver.close();
  });

  const CALLER = "4bf92f3577b34da6a3ce929d0e0e4736";
  const CALLER_SPAN = "00f067aa0ba902b7";

  it("exports the run as a child of TRACEPARENT, and hands each agent its attempt's context", async () => {
    const result = await run(
      ["-p", "x", "--otel", "--prompt-after-hang", "go on", "--max-hang-retries", "1", ...FAST],
      {
        scenario: ["tool-hang:200", "normal:50"],
        env: {
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.endpoint,
          TRACEPARENT: `00-${CALLER}-${CALLER_SPAN}-01`,
        },
      },
    );
    expect(result.code).toBe(0);
    // The wrapper exported before it exited: everything is there already.
    const spans = receiver.spans;
    const [root] = spans.filter((span) => span.name === "invoke_agent cursor-agent");
    expect(root).toBeDefined();
    expect(root!.traceId).toBe(CALLER);
    expect(root!.parentSpanId).toBe(CALLER_SPAN);
    expect(root!.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.provider.name": "cursor",
      "cursor_wrap.exit_code": 0,
    });
    expect(root!.attributes["gen_ai.conversation.id"]).toBe(invocations(result)[0]!.sessionId);
    const attempts = spans
      .filter((span) => span.name === "attempt")
      .sort((a, b) => a.startMs - b.startMs);
    expect(attempts).toHaveLength(2);
    expect(attempts.every((span) => span.parentSpanId === root!.spanId)).toBe(true);
    expect(attempts[0]!.attributes["error.type"]).toBe("timeout");
    expect(attempts[0]!.events.map((event) => event.name)).toContain("hang");
    const tools = spans.filter((span) => span.name === "execute_tool shell");
    expect(tools.length).toBeGreaterThanOrEqual(2);
    expect(tools.every((span) => attempts.some((a) => a.spanId === span.parentSpanId))).toBe(true);
    // Each agent was started in its attempt's span.
    expect(invocations(result).map((invocation) => invocation.traceparent)).toEqual(
      attempts.map((span) => `00-${CALLER}-${span.spanId}-01`),
    );
    expect(named(logRecords(result), "operations")[0]).toMatchObject({
      otel: { trace_id: CALLER, endpoint: new URL(receiver.endpoint).origin },
    });
  });

  it("a collector that is down is logged once, and the run's outcome is its own", async () => {
    // Port 1: nothing listens there, and no test's server can be given it (the port of a
    // receiver just closed could be handed to another test's server meanwhile).
    const result = await run(["-p", "x", ...FAST], {
      scenario: "quick",
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:1" },
    });
    expect(result.code).toBe(0);
    // The export comes after the log is closed: said once on stderr.
    expect(result.stderr.match(/could not export the trace/g)).toHaveLength(1);
  });

  it("an endpoint that is not an http URL is a warning, not a crash: the run and its report go on", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cursor-wrap-otel-bad-"));
    try {
      const report = join(dir, "report.json");
      for (const endpoint of ["127.0.0.1:4318", "http://[::1"]) {
        const result = await run(["-p", "x", ...FAST, "--report", report], {
          scenario: "quick",
          env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint },
        });
        expect(result.code, result.stderr).toBe(0);
        expect(result.stderr).toContain(
          "cursor-wrap: warning: OTEL_EXPORTER_OTLP_ENDPOINT is not an http:// or https:// URL",
        );
        expect(result.stderr).not.toContain("internal error");
        expect(JSON.parse(readFileSync(report, "utf8"))).toMatchObject({ outcome: "completed" });
        expect(named(logRecords(result), "operations")[0]).toMatchObject({ otel: null });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("off by default: the agent's environment has no trace context of cursor-wrap's", async () => {
    const result = await run(["-p", "x", ...FAST], { scenario: "quick" });
    expect(invocations(result)[0]!.traceparent).toBeUndefined();
    expect(named(logRecords(result), "operations")).toEqual([]);
  });
});

describe("notifications", () => {
  let server: Server;
  let url: string;
  const bodies: Array<{ path: string; body: Record<string, unknown> }> = [];
  let respond: (request: IncomingMessage) => number | "never" = () => 200;
  beforeEach(async () => {
    bodies.length = 0;
    respond = () => 200;
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        bodies.push({
          path: request.url ?? "",
          body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>,
        });
        const status = respond(request);
        if (status !== "never") response.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/services/T000/B000/s3cr3tPath`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("runs the command and posts the webhook once per event: hang, retry, done", async () => {
    const out = join(scratchDir(), "hook.jsonl");
    const release = join(scratchDir(), "release");
    const wrapped = wrap(
      [
        "-p",
        "x",
        "--prompt-after-hang",
        "go on",
        "--max-hang-retries",
        "1",
        "--on-verdict",
        `${process.execPath} ${HOOK} ok ${out}`,
        "--notify",
        url,
        ...FAST,
      ],
      // The second attempt waits, keeping the log open, until the first notifications are in it.
      { scenario: ["tool-hang:200", `after-file:${release}|normal`] },
    );
    await loggedUntil(wrapped, (records) => named(records, "notify_sent").length >= 4);
    writeFileSync(release, "");
    const result = await wrapped.done;
    expect(result.code).toBe(0);
    const calls = readFileSync(out, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { stdin: string; variables: Record<string, string> });
    const events = calls.map((call) => (JSON.parse(call.stdin) as { event: string }).event);
    expect(events).toEqual(["hang", "retry", "done"]);
    const sessionId = invocations(result)[0]!.sessionId;
    expect(calls[0]!.variables).toMatchObject({
      CURSOR_WRAP_EVENT: "hang",
      CURSOR_WRAP_SESSION_ID: sessionId,
    });
    expect(calls[2]!.variables).toMatchObject({
      CURSOR_WRAP_EVENT: "done",
      CURSOR_WRAP_EXIT_CODE: "0",
    });
    // The webhook got the same, each once, with a readable text.
    expect(bodies.map((posted) => posted.body.event)).toEqual(["hang", "retry", "done"]);
    expect(bodies.every((posted) => typeof posted.body.text === "string")).toBe(true);
    expect(bodies[0]!.body.text).toMatch(/hang/i);
    // The log has the deliveries made while it was open, and never the webhook's path.
    const log = readFileSync(logFiles(result)[0]!, "utf8");
    const sent = named(logRecords(result), "notify_sent");
    expect(sent.map((record) => `${record.channel} ${record.event}`).sort()).toEqual([
      "command hang",
      "command retry",
      "webhook hang",
      "webhook retry",
    ]);
    expect(log).not.toContain("s3cr3tPath");
    expect(log).not.toContain("T000");
  });

  it("--on-verdict-events filters; a failing command and a webhook that never answers are not fatal", async () => {
    const out = join(scratchDir(), "hook.jsonl");
    respond = () => "never";
    const release = join(scratchDir(), "release");
    const wrapped = wrap(
      [
        "-p",
        "x",
        "--prompt-after-hang",
        "go on",
        "--max-hang-retries",
        "1",
        "--on-verdict",
        `${process.execPath} ${HOOK} fail ${out}`,
        "--on-verdict-events",
        "hang,gave-up",
        "--notify",
        url,
        "--notify-timeout",
        "1s",
        ...FAST,
      ],
      // The second attempt hangs only once the first hang's notifications have failed in the log.
      { scenario: ["tool-hang:200", `after-file:${release}|tool-hang:200`] },
    );
    await loggedUntil(wrapped, (records) => {
      const failed = named(records, "notify_failed");
      return (
        failed.some((record) => record.channel === "command") &&
        failed.some((record) => record.channel === "webhook" && record.timed_out === true)
      );
    });
    writeFileSync(release, "");
    const result = await wrapped.done;
    // Two hangs, then it gave up: the exit code is the run's, not the notifications'.
    expect(result.code).toBe(2);
    const events = readFileSync(out, "utf8")
      .split("\n")
      .filter(Boolean)
      .map(
        (line) =>
          (JSON.parse((JSON.parse(line) as { stdin: string }).stdin) as { event: string }).event,
      );
    expect(events).toEqual(["hang", "hang", "gave-up"]);
    const failed = named(logRecords(result), "notify_failed");
    const command = failed.find((record) => record.channel === "command")!;
    expect(command).toMatchObject({ ok: false, code: 3 });
    // The command's output is in the log, its secret redacted.
    expect(String(command.output)).toContain("rejected");
    expect(readFileSync(logFiles(result)[0]!, "utf8")).not.toContain(
      "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    );
    expect(failed.some((record) => record.channel === "webhook" && record.timed_out === true)).toBe(
      true,
    );
    // gave-up comes at the end, after the log: its failure is said on stderr, without the URL's path.
    expect(result.stderr).toMatch(/the gave-up notification \(command .*\) failed/);
    expect(result.stderr).not.toContain("s3cr3tPath");
  });

  it("a gave-up notification names the log file as it stays (flagged), not as it was", async () => {
    const out = join(scratchDir(), "hook.jsonl");
    const result = await run(
      [
        "-p",
        "x",
        "--max-retries",
        "0",
        "--on-verdict",
        `${process.execPath} ${HOOK} ok ${out}`,
        "--on-verdict-events",
        "gave-up",
        ...FAST,
      ],
      { scenario: "abnormal" },
    );
    expect(result.code).not.toBe(0);
    const [call] = readFileSync(out, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { stdin: string; variables: Record<string, string> });
    const notification = JSON.parse(call!.stdin) as { event: string; log_path: string };
    expect(notification.event).toBe("gave-up");
    const [file] = logFiles(result);
    expect(file).toMatch(/\.flagged\.jsonl$/);
    expect(notification.log_path).toBe(file);
    expect(call!.variables.CURSOR_WRAP_LOG_PATH).toBe(file);
  });

  it("after SIGTERM, a webhook that never answers holds the exit up 2 s, not its timeout", async () => {
    respond = () => "never";
    const wrapped = wrap(["-p", "x", "--notify", url, "--notify-timeout", "5m", ...FAST], {
      scenario: "slow:60000",
    });
    await wrapped.stdoutHas("thinking");
    const signalledAt = performance.now();
    wrapped.child.kill("SIGTERM");
    const result = await wrapped.done;
    expect(result.code).toBe(143);
    // The done notification was sent and never answered; the exit came anyway (the agent's
    // kill, then at most 2 s), far before the 5-minute timeout.
    await expect.poll(() => bodies.some((entry) => entry.body.event === "done")).toBe(true);
    expect(performance.now() - signalledAt).toBeLessThan(60_000);
  });

  it("after SIGTERM, a collector that never answers is said once, and the exit is not held", async () => {
    respond = () => "never";
    const collector = `${new URL(url).origin}/v1/traces`;
    const wrapped = wrap(["-p", "x", ...FAST], {
      scenario: "slow:60000",
      env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: collector },
    });
    await wrapped.stdoutHas("thinking");
    const signalledAt = performance.now();
    wrapped.child.kill("SIGTERM");
    const result = await wrapped.done;
    expect(result.code).toBe(143);
    expect(performance.now() - signalledAt).toBeLessThan(60_000);
    expect(
      result.stderr.match(/could not export the trace to http:\/\/127\.0\.0\.1:\d+: /g),
    ).toHaveLength(1);
    expect(result.stderr).toContain("not done within 2000 ms of the stop");
  });

  it("refuses shell syntax in --on-verdict, and a --notify that is not a URL", async () => {
    // In-process: refused before anything starts, as the agent in memory records.
    const agent = inMemoryAgent();
    const piped = await runInProcess(["-p", "x", "--on-verdict", "notify | tee log"], {
      startAgent: agent.start,
    });
    expect(piped.code).toBe(1);
    expect(piped.stderr).toContain("sh -c");
    const notUrl = await runInProcess(["-p", "x", "--notify", "ftp://example.com/x"], {
      startAgent: agent.start,
    });
    expect(notUrl.code).toBe(1);
    expect(notUrl.stderr).toContain("--notify takes an http:// or https:// URL");
    expect(agent.starts).toEqual([]);
  });
});
