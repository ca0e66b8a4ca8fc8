// The logs, replay and demo commands: `logs` and `replay` in-process over logs real runs wrote
// (they read files and print), the demo and a closed pipe end to end.

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { realCapture } from "@cursor-wrap/fixtures";
import { openSessionLog } from "@cursor-wrap/logger";
import { describe, expect, it } from "vitest";
import { CLI, checkNoSurvivorsAfterAll, invocations, logFiles, run, wrap } from "./harness.js";
import { runInProcess } from "./in-process.js";

checkNoSurvivorsAfterAll();

describe("cursor-wrap logs", () => {
  it("lists sessions with outcome, turns and file; --flagged; --json; and shows one", async () => {
    const hang = await run(["-p", "x", "--idle-timeout", "500ms"], { scenario: "idle-hang" });
    const logDir = hang.logDir;
    const done = await run(["-p", "y", "--log-dir", logDir], { scenario: "normal:10" });
    expect(done.code).toBe(0);
    const files = logFiles({ logDir });
    const hangFile = files.find((file) => file.includes(".flagged."));
    const doneFile = files.find((file) => !file.includes(".flagged."));
    expect(hangFile).toBeDefined();

    const list = await runInProcess(["logs", "--log-dir", logDir]);
    expect(list.code).toBe(0);
    const lines = list.stdout.toString().trimEnd().split("\n");
    expect(lines[0]).toMatch(/^START\s+SESSION\s+OUTCOME\s+TURNS\s+DURATION\s+AGENT\s+FILE$/);
    expect(lines).toHaveLength(3);
    expect(list.stdout.toString()).toContain("hang (flagged)");
    expect(list.stdout.toString()).toContain(basename(doneFile!));

    const flagged = await runInProcess(["logs", "--flagged", "--json", "--log-dir", logDir]);
    const sessions = JSON.parse(flagged.stdout.toString()) as Array<Record<string, unknown>>;
    expect(sessions).toEqual([
      expect.objectContaining({
        outcome: "hang",
        flagged: true,
        turns: 1,
        exitCode: 2,
        path: hangFile,
      }),
    ]);

    const sessionId = String(sessions[0]!.sessionId);
    const shown = await runInProcess(["logs", "show", sessionId.slice(0, 8), "--log-dir", logDir]);
    expect(shown.code).toBe(0);
    expect(shown.stdout.toString()).toContain("── turn 1");
    expect(shown.stdout.toString()).toContain(
      "⚠ Hang detected — killed cursor-agent (no output for",
    );
    const byFile = await runInProcess(["logs", "show", doneFile!]);
    expect(byFile.stdout.toString()).toContain("All tests pass.");
  });

  it("offers no resume command for a hang the run went on from by itself", async () => {
    const retried = await run(
      ["-p", "x", "--idle-timeout", "500ms", "--prompt-after-hang", "go on"],
      { scenario: ["idle-hang", "quick"] },
    );
    expect(retried.code).toBe(0);
    const [file] = logFiles(retried);
    const shown = (await runInProcess(["logs", "show", file!])).stdout.toString();
    expect(shown).toContain("⚠ Hang detected");
    expect(shown).not.toContain("resume with:");
    // One the run gave up on still offers it.
    const given = await run(["-p", "x", "--idle-timeout", "500ms"], { scenario: "idle-hang" });
    const [hung] = logFiles(given);
    expect((await runInProcess(["logs", "show", hung!])).stdout.toString()).toContain(
      "resume with: cursor-wrap --resume",
    );
  });

  it("shows a capture of agent output as such: its events, no session header", async () => {
    const capture = realCapture("reifying-cursor-hack--direct-sleep");
    const shown = await runInProcess(["logs", "show", capture.path]);
    expect(shown.code).toBe(0);
    const out = shown.stdout.toString();
    expect(out).toContain("(agent output only: no decisions of cursor-wrap)");
    expect(out).toContain("`sleep 5`");
    expect(out).not.toContain("unfinished");
    expect(out).not.toContain("the log ends here");
  });

  it("shows a session as a story: a header, each turn, and records in words", async () => {
    const hang = await run(["-p", "fix the build", "--idle-timeout", "500ms"], {
      scenario: "idle-hang",
    });
    const sessionId = invocations(hang)[0]!.sessionId;
    const shown = (await runInProcess(["logs", "show", sessionId, "--log-dir", hang.logDir]))
      .stdout;
    const [file] = logFiles(hang);
    expect(shown.toString().split("\n").slice(0, 7)).toEqual([
      `session  ${sessionId} (print, stream-json)`,
      expect.stringMatching(/^started {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      "prompt   fix the build",
      expect.stringMatching(/^outcome {2}hang \(flagged\) · exit 2 · 1 turn · \d/),
      "agent    version not known (its install path did not tell)",
      `log      ${file}`,
      "",
    ]);
    expect(shown.toString()).toMatch(/^— turn 1: hang · [\d.]+m?s · 0 tool calls$/m);

    // The agent's stderr and a cancel, in words: no record's bookkeeping on show.
    const mirror = await run(["-p", "x", "--log-dir", hang.logDir], { scenario: "stderr-mirror" });
    const stopped = wrap(["-p", "build it", "--log-dir", hang.logDir], {
      scenario: "tool-hang:60000",
    });
    await stopped.stdoutHas("npm run build");
    stopped.child.kill("SIGTERM");
    expect((await stopped.done).code).toBe(143);
    const told = [mirror, await stopped.done].map(async (session) => {
      const id = invocations(session)[0]!.sessionId;
      const file = logFiles(hang).find((path) => path.includes(id))!;
      return (await runInProcess(["logs", "show", file])).stdout.toString();
    });
    const [mirrorShown, stoppedShown] = await Promise.all(told);
    expect(mirrorShown).toContain("  agent stderr │ Warning: rate limited, retrying in 1s\n");
    expect(stoppedShown).toContain("⚠ SIGTERM received\n");
    expect(stoppedShown).toContain("✗ turn cancelled by SIGTERM; the session ended\n");
    expect(stoppedShown).toContain("outcome  signal SIGTERM · exit 143");
    for (const text of [mirrorShown, stoppedShown]) {
      expect(text).not.toMatch(/level=|time=|msg=|recv_ts/);
    }
  });

  it("shows what a log says, and its file name, as text: never as a terminal's commands", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cursor-wrap-logs-hostile-"));
    // A name and an options record anything could have written.
    const file = join(dir, "cursor-wrap-2026-11-24T23-42-03-819Z-\u001b]0;T\u0007x.jsonl");
    const record = (fields: Record<string, unknown>) =>
      `${JSON.stringify({ level: 30, time: 1, ...fields })}\n`;
    writeFileSync(
      file,
      record({ msg: "session_start", pid: 1 }) +
        record({
          msg: "options",
          mode: "print\u001b]52;c;SGVsbG8=\u0007",
          output_format: "\u009b2J",
        }) +
        record({ msg: "session_end", outcome: "completed", exit_code: 0 }),
    );
    try {
      for (const command of [
        ["logs", "show", file],
        ["replay", file],
      ]) {
        const shown = await runInProcess(command);
        expect(shown.stdout.toString(), command[0]).not.toMatch(/[\u001b\u0007\u009b]/);
      }
      // Listed as JSON: C1 controls and bidi marks, which JSON.stringify leaves, are escaped.
      writeFileSync(join(dir, "cursor-wrap-2026-11-24T23-42-05-819Z-\u009b2J\u202e.jsonl"), "");
      const listed = await runInProcess(["logs", "--json", "--log-dir", dir]);
      expect(listed.stdout.toString()).not.toMatch(/[\u001b\u0007\u009b\u202e]/);
      // The same value, read back.
      expect(
        (JSON.parse(listed.stdout.toString()) as Array<{ sessionId: string }>).map(
          (session) => session.sessionId,
        ),
      ).toContain("\u009b2J\u202e");
      // Without its final record (a SIGKILL), the end says so.
      const cut = join(dir, "cursor-wrap-2026-11-24T23-42-04-819Z-cut.jsonl");
      writeFileSync(cut, record({ msg: "session_start", pid: 1 }));
      expect((await runInProcess(["logs", "show", cut])).stdout.toString()).toMatch(
        /\[the log ends here, without its final record: .*\]\n$/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("lists the sessions an id prefix matches instead of picking one", async () => {
    const first = await run(["-p", "x"], {
      scenario: "quick",
      env: { FAKE_AGENT_SESSION_ID: "aaaa1111-0000-4000-8000-000000000001" },
    });
    await run(["-p", "y", "--log-dir", first.logDir], {
      scenario: "quick",
      env: { FAKE_AGENT_SESSION_ID: "aaaa2222-0000-4000-8000-000000000002" },
    });
    const several = await runInProcess(["logs", "show", "aaaa", "--log-dir", first.logDir]);
    expect(several.code).toBe(1);
    expect(several.stdout.toString()).toBe("");
    expect(several.stderr).toContain(`"aaaa" matches 2 session logs in ${first.logDir}`);
    expect(several.stderr).toContain("aaaa1111-0000-4000-8000-000000000001");
    expect(several.stderr).toContain("aaaa2222-0000-4000-8000-000000000002");
    const one = await runInProcess(["logs", "show", "aaaa2", "--log-dir", first.logDir]);
    expect(one.code).toBe(0);
    expect(one.stdout.toString()).toContain("prompt   y");
  });

  it("says so when there are no logs, and rejects an unknown target", async () => {
    const empty = await runInProcess(["logs", "--log-dir", "/nonexistent/cursor-wrap-logs"]);
    expect(empty.stdout.toString()).toBe("no session logs in /nonexistent/cursor-wrap-logs\n");
    const missing = await runInProcess([
      "logs",
      "show",
      "nope",
      "--log-dir",
      "/nonexistent/cursor-wrap-logs",
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no log for "nope"');
  });
});

describe("cursor-wrap replay", () => {
  it("replays a real capture: no verdict at the defaults, a hang with a tighter idle timeout", async () => {
    const capture = realCapture("reifying-cursor-hack--direct-sleep");
    const defaults = await runInProcess(["replay", capture.path]);
    expect(defaults.code).toBe(0);
    expect(defaults.stdout.toString()).toContain(
      "turn 1 · session d43015b9-0707-43f4-b2df-0bcea7891654 · 220 lines over 15.2s",
    );
    expect(defaults.stdout.toString()).toContain("no verdict: nothing would have been killed");

    const tight = await runInProcess([
      "replay",
      capture.path,
      "--idle-timeout",
      "2s",
      "--tool-grace",
      "1s",
      "--json",
    ]);
    const [turn] = JSON.parse(tight.stdout.toString()) as Array<{
      verdict: { at_ms: number; verdict: string };
    }>;
    // 2.8 s of silence between the first completion and the next start, past a 2 s idle timeout.
    expect(turn!.verdict).toMatchObject({ verdict: "hang" });

    const silent = await runInProcess(["replay", capture.path, "--tail", "1m", "--json"]);
    const [tail] = JSON.parse(silent.stdout.toString()) as Array<{
      verdict: { verdict: string; at_ms: number };
    }>;
    expect(tail!.verdict.verdict).toBe("linger");
  });

  it("replays a log the CLI wrote and shows the recorded decision beside the simulated one", async () => {
    const hang = await run(["-p", "x", "--idle-timeout", "600ms"], { scenario: "idle-hang" });
    const [file] = logFiles(hang);
    const replay = await runInProcess(["replay", file!, "--idle-timeout", "600ms", "--json"]);
    const [turn] = JSON.parse(replay.stdout.toString()) as Array<{
      verdict: { verdict: string; at_ms: number };
      recorded: Array<{ message: string; at_ms: number }>;
    }>;
    expect(turn!.verdict.verdict).toBe("hang");
    const recorded = turn!.recorded.find((item) => item.message.startsWith("hang_detected"))!;
    expect(Math.abs(recorded.at_ms - turn!.verdict.at_ms)).toBeLessThan(1_000);
    const looser = await runInProcess(["replay", file!, "--idle-timeout", "1h"]);
    expect(looser.stdout.toString()).toContain("no verdict");
  });

  it("does not assume silence after a turn the agent ended by exiting (a usage limit)", async () => {
    const limited = await run(["-p", "x"], { scenario: "usage-limit" });
    const [file] = logFiles(limited);
    const replay = await runInProcess(["replay", file!, "--json"]);
    const turns = JSON.parse(replay.stdout.toString()) as Array<{
      assumed_silence_after_end: boolean;
      verdict: unknown;
    }>;
    expect(turns.length).toBeGreaterThan(0);
    for (const turn of turns) {
      expect(turn.assumed_silence_after_end).toBe(false);
      expect(turn.verdict).toBeNull();
    }
  });
});

const T0 = Date.UTC(2026, 10, 25, 12, 0, 0);

/**
 * A session log in `dir` as a run writes it: the agent's spawn and its init line, then `later`
 * (offsets from the start, ms; a raw line's receive time is its record's).
 */
function writeSessionLog(dir: string, later: Array<[number, string, object?]>): string {
  const record = ([offset, msg, fields = {}]: [number, string, object?]) =>
    JSON.stringify({
      level: 20,
      time: T0 + offset,
      ts: T0 + offset,
      msg,
      ...(msg.startsWith("raw_event") ? { recv_ts: T0 + offset } : {}),
      ...fields,
    });
  const file = join(dir, "cursor-wrap-2026-11-25T12-00-00-000Z-s.jsonl");
  const opening: Array<[number, string, object?]> = [
    [0, "agent_spawn", { bin: "cursor-agent", args: ["--print"] }],
    [100, "raw_event", { raw: { type: "system", subtype: "init", session_id: "s" } }],
  ];
  writeFileSync(file, `${[...opening, ...later].map(record).join("\n")}\n`);
  return file;
}

describe("replay and logs at their edges", () => {
  it("says a sample that could not look at the processes was none, not 0 ms of CPU", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cursor-wrap-unmeasured-"));
    try {
      const file = writeSessionLog(dir, [
        // A system without a process table: the run logged samples with no figures.
        [30_100, "liveness_sample", { processes: 0 }],
        [60_100, "liveness_sample", { processes: 0 }],
        [60_200, "agent_killed", { reason: "hang" }],
      ]);
      const replay = await runInProcess(["replay", file, "--idle-timeout", "1m"]);
      const out = replay.stdout.toString();
      expect(out).toContain("the agent's processes could not be looked at (taken as parked)");
      expect(out).not.toContain("0ms CPU");
      // A measured sample that found none of them: the agent had exited, its end was coming
      // (the run did not take it for silence, and neither does replay).
      writeFileSync(
        file,
        readFileSync(file, "utf8").replaceAll(
          '"processes":0',
          '"cpu_ms":0,"io_bytes":0,"processes":0',
        ),
      );
      const gone = (await runInProcess(["replay", file, "--idle-timeout", "1m"])).stdout.toString();
      expect(gone).toContain("no verdict: nothing would have been killed");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("counts a line above the parse cap once, in a capture and in a log", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cursor-wrap-oversize-replay-"));
    try {
      // 17 MiB of one line, past the 16 MiB parse cap: it is read in many pieces.
      const huge = JSON.stringify({
        type: "tool_call",
        subtype: "completed",
        call_id: "c1",
        text: "x".repeat(17 * 1024 * 1024),
      });
      const capture = join(dir, "capture.jsonl");
      writeFileSync(
        capture,
        `{"type":"system","subtype":"init","session_id":"s"}\n${huge}\n{"type":"result","subtype":"success","session_id":"s"}\n`,
      );
      const fromCapture = await runInProcess(["replay", capture]);
      expect(fromCapture.stdout.toString()).toContain("turn 1 · session s · 3 lines over");

      const file = writeSessionLog(dir, [
        [200, "raw_event", { oversize: true, truncated: true, raw_head: huge.slice(0, 4096) }],
        [900, "raw_event_end", { oversize: true, bytes: huge.length }],
        [1_000, "raw_event", { raw: { type: "result", subtype: "success", session_id: "s" } }],
      ]);
      const fromLog = await runInProcess(["replay", file]);
      expect(fromLog.stdout.toString()).toContain("turn 1 · session s · 3 lines over");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("says an MCP or ACP proxy's log is not one it replays, and exits 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cursor-wrap-proxy-log-"));
    try {
      const log = openSessionLog({ dir, kind: "mcp", name: "tracker", retentionMs: 0 });
      log.decision("mcp_proxy_start", { server_id: "tracker" }, "info");
      log.close({ outcome: "completed", flagged: false, exit_code: 0 });
      const replay = await runInProcess(["replay", log.path]);
      expect(replay.code).toBe(1);
      expect(replay.stderr).toContain("is an MCP proxy's log (cursor-wrap logs show");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("carries the silence on after a capture cut off in a tool call, unless --tail 0", async () => {
    const capture = realCapture("reifying-cursor-hack--direct-sleep");
    const lines = readFileSync(capture.path, "utf8").split("\n");
    const started = lines.findIndex((line) => line.includes('"subtype":"started"'));
    const dir = mkdtempSync(join(tmpdir(), "cursor-wrap-cut-"));
    const cut = join(dir, "cut.jsonl");
    writeFileSync(cut, `${lines.slice(0, started + 1).join("\n")}\n`);
    const replay = await runInProcess(["replay", cut]);
    expect(replay.stdout.toString()).toContain(
      "the capture ends without a result; assuming silence after its end",
    );
    // The shell call declared 10 s: its deadline is 10 s + the 30 s grace after its start.
    expect(replay.stdout.toString()).toMatch(/\+\d+\.\ds\s+HANG\s+1 tool call past its deadline/);
    const stopped = await runInProcess(["replay", cut, "--tail", "0"]);
    expect(stopped.stdout.toString()).toContain("no verdict");
    rmSync(dir, { recursive: true, force: true });
  });

  it("replays a session log with the thresholds it recorded, flags first", async () => {
    const hang = await run(["-p", "x", "--idle-timeout", "700ms"], { scenario: "idle-hang" });
    const [file] = logFiles(hang);
    const recorded = await runInProcess(["replay", file!]);
    expect(recorded.stdout.toString()).toContain("idle 700ms");
    expect(recorded.stdout.toString()).toContain("as the log recorded them");
    expect(recorded.stdout.toString()).toMatch(/HANG/);
    const flags = await runInProcess(["replay", file!, "--idle-timeout", "1h", "--tail", "0"]);
    expect(flags.stdout.toString()).toContain("idle 1h");
    expect(flags.stdout.toString()).toContain("no verdict");
  });

  it("lists a session whose only turn hung as a hang", async () => {
    const hang = await run(["--idle-timeout", "500ms"], { scenario: "idle-hang", input: "go\n" });
    expect(hang.code).toBe(0);
    const list = await runInProcess(["logs", "--log-dir", hang.logDir]);
    expect(list.stdout.toString()).toContain("hang (flagged)");
  });

  it("reports a missing or unreadable file in one line, and ends quietly on a closed pipe", async () => {
    const missing = await runInProcess(["replay", "/no/such/file"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      'cursor-wrap: cannot read the log or capture "/no/such/file": ENOENT (no such file or directory); see cursor-wrap --help\n',
    );
    const directory = await runInProcess(["logs", "show", tmpdir()]);
    expect(directory.code).toBe(1);
    expect(directory.stderr).toMatch(
      /^cursor-wrap: cannot read the log .*: is a directory; see cursor-wrap --help\n$/,
    );
    // Both commands read a file twice, which a named pipe cannot serve: said so at once, and
    // the pipe is never opened (that would wait for a writer).
    const fifoDir = mkdtempSync(join(tmpdir(), "cursor-wrap-fifo-"));
    try {
      const fifo = join(fifoDir, "capture");
      expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
      for (const args of [
        ["replay", fifo],
        ["logs", "show", fifo],
      ]) {
        const piped = await runInProcess(args);
        expect(piped.code).toBe(1);
        expect(piped.stderr).toContain(
          ": a FIFO (named pipe), not a regular file: save it to a file first;",
        );
      }
    } finally {
      rmSync(fifoDir, { recursive: true, force: true });
    }

    const capture = realCapture("reifying-cursor-hack--testdata-full-session");
    const piped = spawnSync(
      "sh",
      ["-c", `"${process.execPath}" "${CLI}" logs show "${capture.path}" | head -c 10 > /dev/null`],
      { encoding: "utf8" },
    );
    expect(piped.stderr).toBe("");
    expect(piped.status).toBe(0);
  });

  it("arms timers for any duration: a 60-day idle timeout neither spins nor warns", async () => {
    const result = await run(["-p", "x", "--idle-timeout", "60d", "--tool-timeout", "mcp=off"], {
      scenario: "slow:600",
    });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toContain("TimeoutOverflowWarning");
    const refused = await run(["-p", "x", "--kill-grace", "30d"], { scenario: "quick" });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("--kill-grace must be at most 24 days");
  });
});

describe("cursor-wrap demo", () => {
  it("shows a normal turn, three hangs and a hung MCP call, each introduced by one line, and exits 0", async () => {
    const demo = await run(["demo"]);
    expect(demo.code).toBe(0);
    const text = demo.stdout.toString();
    expect(text.match(/^▶ /gm)).toHaveLength(5);
    expect(text).toContain("All tests pass.");
    expect(text.match(/⚠ Hang detected/g)).toHaveLength(2);
    expect(text).toContain("did not exit");
    // The MCP watchdog answered the hung call; the agent went on to its answer.
    expect(text).toContain('MCP server "tracker" did not answer tools/call "hang" within 2.0s');
    expect(text).toContain("The issue tracker gave no answer, so this comes from the code alone.");
    expect(text.match(/^ {2}exit \d/gm)).toEqual([
      "  exit 0",
      "  exit 2",
      "  exit 2",
      "  exit 0",
      "  exit 0",
    ]);
    expect(demo.elapsedMs).toBeLessThan(45_000);
    // The closing hint names a command that works where the demo ran: here no cursor-wrap is
    // on PATH, so it is node and the script.
    const hint = /^ {2}(.+ logs --log-dir .+)$/m.exec(text)?.[1];
    expect(hint).toMatch(/^node \S*bin\/cursor-wrap\.js logs --log-dir /);
    const listed = spawnSync("sh", ["-c", hint!], { encoding: "utf8" });
    expect(listed.status).toBe(0);
    expect(listed.stdout).toMatch(/^START\s+SESSION/);
    expect(listed.stdout.trimEnd().split("\n")).toHaveLength(6);
  });
});
