// Faults and crafted input: a full disk, a file-size limit, a stalled reader, a flood on
// stderr, hostile prompts and a log cut short. Each ends in a clear exit, never a hang, a
// silent success or unbounded memory.

import { spawn, spawnSync } from "node:child_process";
import {
  appendFileSync,
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fakeAgentBin, fakeAgentEnv, type Step } from "@cursor-wrap/testkit";
import { describe, expect, it } from "vitest";
import {
  CLI,
  checkNoSurvivorsAfterAll,
  invocations,
  logFiles,
  logRecords,
  pty,
  run,
  survivors,
  wrap,
} from "./harness.js";
import { runInProcess, runWithFakeAgent } from "./in-process.js";

checkNoSurvivorsAfterAll();

const SESSION = "7f1c2d3e-0000-4000-8000-000000000001";
const event = (value: Record<string, unknown>): Step => ({
  type: "line",
  value: { ...value, session_id: SESSION },
});
const INIT = event({ type: "system", subtype: "init", model: "Auto" });
const RESULT = event({ type: "result", subtype: "success", is_error: false, result: "done" });

/** Run cursor-wrap with its stdout on `path` (a device or a file), through `sh` for `prefix`. */
function runToFile(
  args: string[],
  path: string,
  options: { scenario: string; shellPrefix?: string },
): Promise<{ code: number | null; stderr: string; logDir: string; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), "cursor-wrap-out-"));
  const logDir = join(dir, "logs");
  const argv = [CLI, "--agent-bin", fakeAgentBin, "--log-dir", logDir, ...args];
  const env = {
    ...process.env,
    ...fakeAgentEnv({
      scenario: options.scenario,
      record: join(dir, "invocations.jsonl"),
      pidFile: join(dir, "pids"),
      descendantTtlMs: 30_000,
    }),
  };
  const out = openSync(path, "w");
  const child = options.shellPrefix
    ? spawn("sh", ["-c", `${options.shellPrefix}; exec "$0" "$@"`, process.execPath, ...argv], {
        env,
        stdio: ["ignore", out, "pipe"],
      })
    : spawn(process.execPath, argv, { env, stdio: ["ignore", out, "pipe"] });
  closeSync(out);
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  return new Promise((resolve) =>
    child.on("close", (code) => resolve({ code, stderr, logDir, dir })),
  );
}

const sessionEnd = (run: { logDir: string }) =>
  logRecords(run).find((record) => record.msg === "session_end");

describe("stdout write errors other than EPIPE", () => {
  it.each([
    ["a small turn", "quick"],
    ["a large one, with the backpressure pause on", "huge-line:8000000"],
  ])(
    "%s on a full disk (/dev/full): one line naming ENOSPC, the log flagged, exit 1",
    async (_, scenario) => {
      const result = await runToFile(["-p", "x"], "/dev/full", { scenario });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("cannot write to stdout: ENOSPC (no space left on device)");
      expect(result.stderr.match(/cannot write to stdout/g)).toHaveLength(1);
      expect(logRecords(result).find((record) => record.msg === "stdout_closed")).toMatchObject({
        code: "ENOSPC",
      });
      expect(sessionEnd(result)).toMatchObject({
        outcome: "stdout ENOSPC",
        flagged: true,
        exit_code: 1,
      });
      expect(survivors()).toEqual([]);
    },
  );

  it("past a file-size limit (ulimit -f): names EFBIG and exits 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cursor-wrap-fsize-"));
    const out = join(dir, "events.jsonl");
    const result = await runToFile(["-p", "x"], out, {
      scenario: "huge-line:4000000",
      shellPrefix: "ulimit -f 512",
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("cannot write to stdout: EFBIG (file too large)");
    expect(statSync(out).size).toBeLessThanOrEqual(512 * 1024);
    expect(sessionEnd(result)).toMatchObject({ outcome: "stdout EFBIG", exit_code: 1 });
  });
});

describe("a stalled stdout reader", () => {
  it("does not keep SIGTERM from ending the run", async () => {
    const wrapped = wrap(["-p", "x", "--idle-timeout", "1m"], { scenario: "huge-line:50000000" });
    wrapped.child.stdout.pause();
    await expect
      .poll(() => logRecords(wrapped).some((record) => record.oversize === true), {
        timeout: 30_000,
      })
      .toBe(true);
    wrapped.child.kill("SIGTERM");
    const result = await wrapped.done;
    expect(result.code).toBe(143);
    expect(sessionEnd(result)).toMatchObject({ outcome: "signal SIGTERM" });
  });

  it("does not hold off --max-turn-duration", async () => {
    const wrapped = wrap(["-p", "x", "--idle-timeout", "10m", "--max-turn-duration", "2s"], {
      scenario: "huge-line:50000000",
    });
    wrapped.child.stdout.pause();
    const record = (name: string) => logRecords(wrapped).find((entry) => entry.msg === name);
    await expect.poll(() => record("budget_exceeded"), { timeout: 30_000 }).toBeDefined();
    // The budget is enforced while the reader is stalled, not when it catches up.
    expect(
      Number(record("budget_exceeded")!.ts) - Number(record("agent_started")!.ts),
    ).toBeLessThan(10_000);
    wrapped.child.stdout.resume();
    const result = await wrapped.done;
    expect(result.code).toBe(2);
  });
});

describe("agent stderr", () => {
  it("is shown once and logged once by default", async () => {
    const result = await runWithFakeAgent(["-p", "x"], { scenario: "stderr-mirror" });
    expect(result.code).toBe(0);
    expect(result.stderr.match(/rate limited/g)).toHaveLength(1);
    const logged = readFileSync(logFiles(result)[0]!, "utf8").match(/rate limited/g);
    expect(logged).toHaveLength(1);
  });

  it("keeps memory bounded while the wrapper's stderr is not read, and exits all the same", async () => {
    const wrapped = wrap(["-p", "x"], { scenario: "stderr-flood:200000000" });
    wrapped.child.stderr.pause();
    // The wrapper ends with its stderr still unread: a caller that reads stderr only after the
    // end of stdout does not deadlock with it.
    await new Promise((resolve) => wrapped.child.once("exit", resolve));
    wrapped.child.stderr.resume();
    const result = await wrapped.done;
    expect(result.code).toBe(0);
    const records = logRecords(result);
    const end = records.find((record) => record.msg === "turn_end")!;
    const resources = end.resources as { maxRss: number };
    // 200 MB went by; without the bound it queued in memory (2 GB for 600 MB).
    expect(resources.maxRss).toBeLessThan(400 * 2 ** 20);
    const notShown = records.find((record) => record.msg === "agent_stderr_not_shown");
    expect(notShown?.lines).toBeGreaterThan(0);
    const logged = records.filter((record) => record.msg === "agent_stderr").length;
    expect(logged).toBe(Math.ceil(200_000_000 / 1024));
  });
});

describe("a result line longer than --parse-cap", () => {
  it("is the turn's result: exit 0, and json output holds it byte for byte", async () => {
    // Under the 128 KiB an environment variable can hold: the scenario travels in one.
    const answer = "y".repeat(100_000);
    const resultLine = {
      type: "result",
      subtype: "success",
      is_error: false,
      result: answer,
      session_id: SESSION,
    };
    const result = await runWithFakeAgent(
      ["-p", "x", "--output-format", "json", "--parse-cap", "64KiB"],
      {
        scenario: [INIT, { type: "line", value: resultLine }],
      },
    );
    expect(result.code).toBe(0);
    expect(result.stdout.toString("utf8")).toBe(`${JSON.stringify(resultLine)}\n`);
  });
});

describe("noise", () => {
  it("shows the first three unmatched completions of a turn and counts the rest", async () => {
    const ends: Step[] = Array.from({ length: 10 }, (_, index) =>
      event({
        type: "tool_call",
        subtype: "completed",
        call_id: `never-started-${index}`,
        tool_call: { readToolCall: { args: { path: "a" }, result: { success: {} } } },
      }),
    );
    const result = await runWithFakeAgent(["-p", "x"], { scenario: [INIT, ...ends, RESULT] });
    expect(result.code).toBe(0);
    const warnings = logRecords(result).filter((record) => record.msg === "monitor_warning");
    expect(warnings).toHaveLength(10);
    expect(result.stderr.match(/monitor warning:/g) ?? []).toHaveLength(3);
    expect(
      logRecords(result).find((record) => record.msg === "monitor_warnings_repeated"),
    ).toMatchObject({ counts: { "unmatched-end": 10 } });
  });
});

describe("prompts", () => {
  it("passes a binary prompt on stdin through byte for byte", async () => {
    const bytes = Buffer.from([0x41, 0xff, 0x00, 0xfe, 0x20, 0x0a, 0x0a]);
    const wrapped = wrap(["-p"], { scenario: "quick", input: null });
    wrapped.child.stdin.end(bytes);
    const result = await wrapped.done;
    expect(result.code).toBe(0);
    expect(Buffer.from(invocations(result)[0]!.stdinBase64!, "base64")).toEqual(bytes);
  });

  it("takes a prompt that starts with - after --, and says so when it is taken as an option", async () => {
    const taken = await runWithFakeAgent(["-p", "-x is the wrong flag"]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain("a prompt that starts with - goes after --");
    const given = await runWithFakeAgent(["-p", "--", "-x is the wrong flag"], {
      scenario: "quick",
    });
    expect(given.code).toBe(0);
    expect(invocations(given)[0]!.prompt).toBe("-x is the wrong flag");
  });

  it.skipIf(!pty)(
    "explains a --pty prompt over the argument limit instead of a bare exit code",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "cursor-wrap-long-"));
      const prompt = join(dir, "prompt.txt");
      appendFileSync(prompt, "z".repeat(200 * 1024));
      const result = spawnSync(
        "sh",
        [
          "-c",
          `"$0" "$1" --agent-bin "$2" --log-dir "$3" --pty -p < "$4"`,
          process.execPath,
          CLI,
          fakeAgentBin,
          join(dir, "logs"),
          prompt,
        ],
        { encoding: "utf8" },
      );
      expect(result.status).toBe(1);
      expect(result.stderr).toContain("with a pty the prompt is passed as an argument");
      expect(result.stderr).toContain("run without a pty");
    },
  );
});

describe("a log whose last record was cut short (SIGKILL during a large write)", () => {
  it("is read by logs, logs show and replay, which say so and go on", async () => {
    const result = await run(["-p", "x"], { scenario: "quick" });
    const [file] = logFiles(result);
    appendFileSync(file!, '{"level":20,"time":1,"msg":"raw_event","recv_ts":1,"raw":{"type":"assi');
    const logs = await runInProcess(["logs", "--log-dir", result.logDir]);
    expect(logs.code).toBe(0);
    expect(logs.stdout.toString()).toContain("(truncated record)");
    const show = await runInProcess(["logs", "show", file!]);
    expect(show.code).toBe(0);
    expect(show.stdout.toString()).toContain("[truncated record: ");
    expect(show.stdout.toString()).toContain("Done: x");
    const replay = await runInProcess(["replay", file!]);
    expect(replay.code).toBe(0);
    expect(replay.stdout.toString()).toContain("a truncated record at the end");
    expect(replay.stdout.toString()).toContain("turn 1");
  });
});

describe("a log whose first line was damaged", () => {
  it("is still replayed as a session log, with its recorded decisions", async () => {
    const result = await run(["-p", "x"], { scenario: "quick" });
    const [file] = logFiles(result);
    writeFileSync(file!, `\u0000garbage\n${readFileSync(file!, "utf8")}`);
    const replay = await runInProcess(["replay", file!]);
    expect(replay.code).toBe(0);
    expect(replay.stdout.toString()).toMatch(/^session log /);
  });
});
