// What goes wrong, and what cursor-wrap does about it (docs/requirements.md §9): the built
// executable for what only its process shows (spawn failures, a closed stdout, kills, exit
// codes), the CLI in-process for how it reads a command line and names the agent's failures.

import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { realCapture } from "@cursor-wrap/fixtures";
import { isAlive, readPids } from "@cursor-wrap/testkit";
import { describe, expect, it } from "vitest";
import {
  checkNoSurvivorsAfterAll,
  FAST,
  invocations,
  logFiles,
  logRecords,
  run,
  wrap,
  wrapperLines,
} from "./harness.js";
import { inMemoryAgent, runInProcess, runWithFakeAgent } from "./in-process.js";

checkNoSurvivorsAfterAll();

describe("failures", () => {
  it("reports a missing agent binary in one line and exits 1", async () => {
    const result = await run(["-p", "x", "--agent-bin", "no-such-cursor-agent"], {
      defaults: false,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'cursor-wrap: cannot start "no-such-cursor-agent": not found on PATH (install the Cursor CLI or set --agent-bin)\n',
    );
    expect(result.stdout.length).toBe(0);
  });

  it("reports an unwritable log directory before starting anything, exit 1", async () => {
    const blocker = join(process.env.TMPDIR ?? "/tmp", `cursor-wrap-not-a-dir-${process.pid}`);
    writeFileSync(blocker, "");
    const result = await run(["-p", "x", "--log-dir", join(blocker, "logs")], {
      scenario: "quick",
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^cursor-wrap: cannot write logs to .*: ENOTDIR \(set --log-dir to a writable directory\)\n$/,
    );
    expect(invocations(result)).toEqual([]);
  });

  it("exits 1 when the agent exits without a result, saying how", async () => {
    // No retries: how the end is reported (retries after such an end: e2e-recovery).
    const result = await run(["-p", "x", "--max-retries", "0"], { scenario: "abnormal:3" });
    expect(result.code).toBe(1);
    // The agent's own stderr line, shown once; then cursor-wrap's line, which does not repeat it.
    expect(result.stderr.match(/Error: stream closed unexpectedly/g)).toHaveLength(1);
    expect(result.stderr).toMatch(
      /Error: stream closed unexpectedly\n(.*\n)*cursor-wrap: cursor-agent exited with code 3 without a result\n$/,
    );
    // The wrapper line, data for a consumer, keeps the agent's words.
    expect(wrapperLines(result.stdout).at(-1)).toMatchObject({
      subtype: "abnormal_exit",
      reason: "cursor-agent exited with code 3 without a result: Error: stream closed unexpectedly",
    });
    expect(logRecords(result).at(-1)).toMatchObject({
      msg: "session_end",
      outcome: "abnormal",
      flagged: true,
      exit_code: 1,
    });
  });

  for (const [scenario, expected] of [
    ["auth-error", "cursor-agent is not signed in: Authentication required."],
    ["unauthenticated", "cursor-agent is not signed in: ConnectError: [unauthenticated] Error"],
    [
      "plan-error",
      "cursor-agent refused the request for your plan: ActionRequiredError: Named models unavailable",
    ],
    [
      "plan-error-text",
      "cursor-agent refused the request for your plan: T: Named models unavailable",
    ],
    ["usage-limit", "cursor-agent has hit a usage limit: Error: You've hit your usage limit"],
  ] as const) {
    it(`shows ${scenario} as one clear message, never retries it, exits 1`, async () => {
      const result = await runWithFakeAgent(
        ["-p", "x", "--prompt-after-hang", "continue", ...FAST],
        {
          scenario,
        },
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`cursor-wrap: ${expected}`);
      expect(result.stderr.match(/cursor-wrap: /g)).toHaveLength(1);
      // One turn; an auth failure is explained by the agent's own status command afterwards.
      const turns = invocations(result).filter((call) => !call.scenario.startsWith("command:"));
      expect(turns).toHaveLength(1);
      expect(logRecords(result).find((record) => record.msg === "agent_failure")).toBeDefined();
    });
  }

  it("asks the agent's status about the turn's own sign-in: its flags, or the profile's key", async () => {
    // Real processes: the agent's own commands get the fake's record only through the CLI's env.
    const statusOf = (result: Awaited<ReturnType<typeof run>>) =>
      invocations(result).filter((call) => call.scenario === "command:status");
    const env = { FAKE_AGENT_STATUS_JSON: '{"isAuthenticated":false,"endpoint":"e1"}' };
    const flags = ["--api-key", "user-key-3f1", "-e", "https://api.example", "-H", "X-Team: t"];
    const withFlags = await run(["-p", "x", ...flags, ...FAST], {
      scenario: "auth-error",
      env,
    });
    expect(withFlags.code).toBe(1);
    expect(withFlags.stderr).toContain("(cursor-agent status: isAuthenticated=false, endpoint=e1)");
    expect(statusOf(withFlags).map((call) => call.argv)).toEqual([
      [...flags, "status", "--format", "json"],
    ]);

    // The profile's key replaced the user's for the last attempt: status hears the same.
    const withProfile = await run(["-p", "x", ...flags, "--auth-profile", "spare", ...FAST], {
      scenario: "auth-error",
      env: { ...env, CURSOR_WRAP_AUTH_SPARE: "spare-key-9c2" },
    });
    expect(withProfile.code).toBe(1);
    expect(statusOf(withProfile).map((call) => [call.argv, call.apiKey])).toEqual([
      [
        ["-e", "https://api.example", "-H", "X-Team: t", "status", "--format", "json"],
        "spare-key-9c2",
      ],
    ]);
  });

  it("reports a --resume of a session the agent no longer knows as such", async () => {
    const result = await runWithFakeAgent(["-p", "x", "--resume", "gone-session"], {
      scenario: "unknown-session",
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "cursor-wrap: cursor-agent does not know session gone-session (it may have expired)",
    );
    expect(result.stderr).toContain("Start a new session without --resume.");
    // Nor is that session offered to resume, in any output.
    expect(result.stderr).not.toContain("resume with");
    expect(result.stdout.toString()).not.toContain("--resume");
    for (const format of ["text", "json"]) {
      const other = await runWithFakeAgent(
        ["-p", "x", "--resume", "gone-session", "--output-format", format],
        { scenario: "unknown-session" },
      );
      expect(other.code).toBe(1);
      expect(`${other.stdout}${other.stderr}`).not.toMatch(/resume with|"resume"/);
    }
    // Nor in the report (and the job summary, the notifications built like it).
    const report = join(mkdtempSync(join(tmpdir(), "unknown-session-")), "report.json");
    await runWithFakeAgent(["-p", "x", "--resume", "gone-session", "--report", report], {
      scenario: "unknown-session",
    });
    expect(JSON.parse(readFileSync(report, "utf8"))).toMatchObject({
      session_id: "gone-session",
      resume_command: null,
    });
    const interactive = await runWithFakeAgent(["--resume", "gone-session"], {
      scenario: "unknown-session",
      input: "x\n",
    });
    const shown = `${interactive.stdout}${interactive.stderr}`;
    expect(shown).toContain("Start a new session without --resume.");
    expect(shown).not.toContain("resume with");
  });

  it("kills the agent tree and exits 1 quietly when its stdout reader goes away (EPIPE)", async () => {
    const wrapped = wrap(["-p", "x", "--idle-timeout", "1m"], { scenario: "slow:20000" });
    await wrapped.stdoutHas('"subtype":"delta"');
    wrapped.child.stdout.destroy();
    const result = await wrapped.done;
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("");
    expect(isAlive(invocations(result)[0]!.pid)).toBe(false);
    expect(logRecords(result).find((record) => record.msg === "stdout_closed")).toMatchObject({
      code: "EPIPE",
    });
  });

  it("SIGKILLs descendants that ignore SIGTERM or left the process group after a hang", async () => {
    const result = await run(["-p", "x", ...FAST], { scenario: "descendants" });
    expect(result.code).toBe(2);
    const pids = readPids(join(result.dir, "pids"));
    expect(pids).toHaveLength(3);
    expect(pids.filter(isAlive)).toEqual([]);
    const killed = logRecords(result).find((record) => record.msg === "agent_killed")!;
    expect((killed.steps as Array<{ signal: string }>).map((step) => step.signal)).toEqual([
      "SIGTERM",
      "SIGKILL",
    ]);
  });

  it("ends the turn drainGrace after the agent exits when a descendant holds stdout open", async () => {
    const result = await run(["-p", "x"], { scenario: "background-hold" });
    expect(result.code).toBe(0);
    // The holder lives 30 s; the wrapper is done long before.
    expect(result.elapsedMs).toBeLessThan(20_000);
    const [holder] = readPids(join(result.dir, "pids"));
    expect(isAlive(holder!)).toBe(true); // a normal exit leaves background processes alone
    process.kill(holder!, "SIGKILL");
  });

  it("shows agent stderr per --stderr: errors (default), all, none", async () => {
    const errors = await runWithFakeAgent(["-p", "x"], { scenario: "stderr-mirror" });
    expect(errors.stderr).toContain("Warning: rate limited, retrying in 1s\n");
    expect(errors.stderr).not.toContain('{"type"');
    const all = await runWithFakeAgent(["-p", "x", "--stderr", "all"], {
      scenario: "stderr-mirror",
    });
    expect(all.stderr).toContain('{"type":"system"');
    const none = await runWithFakeAgent(["-p", "x", "--stderr", "none", "--log-level", "silent"], {
      scenario: "stderr-mirror",
    });
    expect(none.stderr).toBe("");
    expect(logRecords(none).filter((record) => record.stream === "stderr").length).toBeGreaterThan(
      3,
    );
  });

  it("tolerates an unmatched completion with a warning record, not a hang", async () => {
    const result = await runWithFakeAgent(["-p", "x", "--idle-timeout", "30s"], {
      scenario: `replay:${realCapture("xpadev-net-agentic-automation--sample-log-TAIL-excerpt").path}`,
      speed: 1000,
    });
    expect(result.code).toBe(0);
    expect(logRecords(result).find((record) => record.msg === "monitor_warning")).toMatchObject({
      code: "unmatched-end",
    });
  });
});

describe("the command line", () => {
  // What the command line is taken to mean is decided before any process starts: these run
  // in-process, with an agent in memory that records whether it was started at all.
  it("says when the word meant as the prompt was passed to the agent as a flag, and how to send it", async () => {
    for (const word of ["-dash-prompt", "--dash-prompt", "-x is broken"]) {
      const agent = inMemoryAgent();
      const result = await runInProcess(["-p", word], { startAgent: agent.start });
      expect(result.code, word).toBe(1);
      expect(result.stderr, word).toBe(
        `cursor-wrap: no prompt: stdin was empty; ${JSON.stringify(word)} was passed to cursor-agent as a flag: a prompt that starts with - goes after --, as in cursor-wrap -p -- ${JSON.stringify(word)}; see cursor-wrap --help\n`,
      );
      expect(agent.starts).toEqual([]);
    }
    // Given the way it says, it is the prompt.
    const agent = inMemoryAgent();
    const sent = await runInProcess(["-p", "--", "-dash-prompt"], { startAgent: agent.start });
    expect(sent.code).toBe(0);
    expect(agent.starts[0]?.prompt).toBe("-dash-prompt");
    // A known flag of the agent is not taken for a prompt.
    const known = await runInProcess(["-p", "--trust"], { startAgent: inMemoryAgent().start });
    expect(known.stderr).toBe("cursor-wrap: no prompt: stdin was empty; see cursor-wrap --help\n");
  });

  it("rejects an unknown flag with a suggestion, exit 1", async () => {
    const agent = inMemoryAgent();
    const result = await runInProcess(["-p", "x", "--idel-timeout", "5s"], {
      startAgent: agent.start,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "cursor-wrap: unknown option --idel-timeout (did you mean --idle-timeout?); a prompt that starts with - goes after --; see cursor-wrap --help\n",
    );
    expect(agent.starts).toEqual([]);
  });

  it("rejects a duration without a unit", async () => {
    const result = await runInProcess(["-p", "x", "--idle-timeout", "60"], {
      startAgent: inMemoryAgent().start,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      '--idle-timeout takes a duration such as 500ms, 30s, 5m or 1h, not "60"',
    );
  });

  it("falls back to CURSOR_WRAP_* environment variables, flags winning", async () => {
    const result = await run(["-p", "x", "--tool-grace", "300ms"], {
      scenario: "idle-hang",
      env: {
        CURSOR_WRAP_IDLE_TIMEOUT: "400ms",
        CURSOR_WRAP_OUTPUT_FORMAT: "json",
        CURSOR_WRAP_TOOL_GRACE: "5m",
      },
    });
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout.toString())).toMatchObject({ subtype: "hang_detected" });
    expect(logRecords(result).find((record) => record.msg === "options")).toMatchObject({
      monitor: { idleTimeoutMs: 400, toolGraceMs: 300 },
    });
  });

  it("prints --help and --version", async () => {
    const help = await run(["--help"], { defaults: false });
    expect(help.code).toBe(0);
    for (const flag of [
      "--idle-timeout",
      "--prompt-after-hang",
      "--max-hang-retries",
      "--max-retries",
      "--fallback-model",
      "--wait-for-reset",
      "--auth-profile",
      "--tool-timeout",
      "--pty",
      "--no-redact",
      "--parse-cap",
    ]) {
      expect(help.stdout.toString()).toContain(flag);
    }
    expect(help.stdout.toString()).toContain("env CURSOR_WRAP_IDLE_TIMEOUT");
    const version = await run(["--version"], { defaults: false });
    expect(version.stdout.toString()).toMatch(/^cursor-wrap\/\d+\.\d+\.\d+/);
  });

  it("lists the exit codes, and says what each --no- form does without a default of its own", async () => {
    const help = (await run(["--help"], { defaults: false })).stdout.toString();
    const exitCodes = help.slice(help.indexOf("Exit codes:"));
    for (const code of ["0", "1", "2", "129", "130", "143"]) {
      expect(exitCodes).toMatch(new RegExp(`^  ${code} `, "m"));
    }
    const lineOf = (flag: string) => help.split("\n").find((line) => line.trim().startsWith(flag));
    expect(lineOf("--force")).toContain("(default: on; env CURSOR_WRAP_FORCE)");
    expect(lineOf("--no-force")).toContain("Leave --force out");
    expect(lineOf("--no-redact")).toContain("Keep secrets in the log file");
    expect(help).not.toContain("(default: true)");
  });

  it("gives each command help of its own: mcp lists its actions, none repeats the agent's flags", async () => {
    const mcp = await run(["mcp", "--help"], { defaults: false });
    expect(mcp.code).toBe(0);
    const mcpHelp = mcp.stdout.toString();
    expect(mcpHelp).toContain("$ cursor-wrap mcp <action>");
    for (const action of ["proxy [options] --", "wrap [options]", "unwrap", "status"]) {
      expect(mcpHelp).toContain(`  ${action}`);
    }
    for (const option of ["--request-timeout", "--tool-timeout", "--global", "--dry-run"]) {
      expect(mcpHelp).toContain(option);
    }
    expect(mcpHelp).not.toContain("Commands:");
    for (const command of [["mcp"], ["logs"], ["replay"], ["demo"], ["acp"]]) {
      const own = (await run([...command, "--help"], { defaults: false })).stdout.toString();
      expect(own, command[0]).toContain(`$ cursor-wrap ${command[0]}`);
      expect(own, command[0]).not.toContain("cursor-agent's flags and subcommands");
      expect(own, command[0]).not.toContain("Exit codes:");
    }
  });

  it("says what the run flags `acp` reuses mean under ACP", async () => {
    const help = (await run(["acp", "--help"], { defaults: false })).stdout.toString();
    const lineOf = (flag: string) => help.split("\n").find((line) => line.trim().startsWith(flag));
    expect(lineOf("--exit-grace")).toContain("after session/cancel");
    expect(lineOf("--exit-grace")).toContain('answers the prompt "cancelled"');
    expect(lineOf("--max-hang-retries")).toContain("Restarts of the agent in a row");
    expect(lineOf("--first-output-timeout")).toContain("other than a prompt (initialize");
    expect(lineOf("--tool-timeout")).toContain("ACP tool kind");
    expect(lineOf("--idle-timeout")).toContain("(default: 60s; env CURSOR_WRAP_IDLE_TIMEOUT)");
    expect(help).not.toContain("after its result before it is killed");
  });
});

const canMount = (() => {
  if (process.platform !== "linux" || process.getuid?.() !== 0) return false;
  const target = join(process.env.TMPDIR ?? "/tmp", `cursor-wrap-mount-probe-${process.pid}`);
  mkdirSync(target, { recursive: true });
  const mounted =
    spawnSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", target]).status === 0;
  if (mounted) spawnSync("umount", [target]);
  return mounted;
})();
if (!canMount)
  console.warn(
    "disk-full test skipped: mounting a small tmpfs needs root on Linux (covered by the logger's injected-failure test)",
  );

describe.runIf(canMount)("a full disk", () => {
  it("keeps proxying, warns once, marks the log incomplete", async () => {
    const dir = join(process.env.TMPDIR ?? "/tmp", `cursor-wrap-full-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    expect(spawnSync("mount", ["-t", "tmpfs", "-o", "size=48k", "tmpfs", dir]).status).toBe(0);
    try {
      chmodSync(dir, 0o777);
      const result = await run(["-p", "x", "--log-dir", dir], { scenario: "huge-line:300000" });
      expect(result.code).toBe(0);
      expect(result.stdout.length).toBeGreaterThan(300_000);
      expect(result.stderr.match(/log write failed/g)).toHaveLength(1);
      const [file] = logFiles({ logDir: dir });
      expect(file).toMatch(/\.incomplete\.jsonl$/);
    } finally {
      spawnSync("umount", [dir]);
    }
  });
});
