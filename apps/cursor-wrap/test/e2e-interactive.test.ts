// End to end, interactive mode and signals: the built executable against the fake agent.

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isAlive } from "@cursor-wrap/testkit";
import { describe, expect, it } from "vitest";
import {
  checkNoSurvivorsAfterAll,
  FAST,
  invocations,
  logRecords,
  onTerminal,
  pty,
  run,
  survivors,
  wrap,
  wrapperLines,
} from "./harness.js";

checkNoSurvivorsAfterAll();

const turnEnds = (target: { logDir: string }) =>
  logRecords(target).filter((record) => record.msg === "turn_end").length;

describe("cursor-wrap (interactive)", () => {
  it("reads one prompt per line, skips blank lines, resumes the session, exits 0 at EOF (AC11, AC14)", async () => {
    const result = await run([], { scenario: "quick", input: "first\n\n  \nsecond\nthird\n" });
    expect(result.code).toBe(0);
    const calls = invocations(result);
    expect(calls.map((call) => call.stdin)).toEqual(["first", "second", "third"]);
    expect(calls[0]!.argv).not.toContain("--resume");
    for (const call of calls.slice(1)) {
      expect(call.argv).toEqual([
        "--print",
        "--output-format",
        "stream-json",
        "--resume",
        calls[0]!.sessionId,
        "--force",
      ]);
    }
    expect(result.stdout.toString()).toBe("Done: first\nDone: second\nDone: third\n");
  });

  it("takes the first prompt from the arguments and the next ones from stdin", async () => {
    const result = await run(["hello", "there"], { scenario: "quick", input: "next\n" });
    expect(invocations(result).map((call) => call.stdin)).toEqual(["hello there", "next"]);
  });

  it("ends a hung turn with an indicator and resumes the session on the next prompt (AC12)", async () => {
    const result = await run([...FAST], { scenario: ["idle-hang", "quick"], input: "one\ntwo\n" });
    expect(result.code).toBe(0);
    const [first, second] = invocations(result);
    expect(second!.argv).toContain(first!.sessionId);
    expect(result.stdout.toString()).toContain(
      "⚠ Hang detected — killed cursor-agent (no output for",
    );
    expect(result.stdout.toString()).toContain(
      `resume with: cursor-wrap --resume ${first!.sessionId}`,
    );
    expect(result.stdout.toString()).toContain("Done: two");
    expect(isAlive(first!.pid)).toBe(false);
  });

  it("sends --prompt-after-hang automatically, at most --max-hang-retries times in a row", async () => {
    const result = await run(
      [
        ...FAST,
        "--prompt-after-hang",
        "continue",
        "--max-hang-retries",
        "1",
        "--output-format",
        "stream-json",
        // The last turn's agent exits by itself: under a heavy load it took longer than FAST's
        // 300 ms after its result, and a linger kill added a line this test is not about.
        "--exit-grace",
        "10s",
      ],
      {
        scenario: ["idle-hang", "idle-hang", "quick"],
        input: "one\ntwo\n",
      },
    );
    expect(result.code).toBe(0);
    expect(invocations(result).map((call) => call.stdin)).toEqual(["one", "continue", "two"]);
    expect(wrapperLines(result.stdout).map((line) => line.subtype)).toEqual([
      "retry",
      "hang_detected",
    ]);
  });

  it("cancels the running turn on Ctrl+C (SIGINT) and goes back to the prompt", async () => {
    const wrapped = wrap(["--idle-timeout", "1m"], {
      scenario: ["tool-hang:60000", "quick"],
      input: null,
    });
    wrapped.child.stdin.write("build it\n");
    await wrapped.stdoutHas("⏳ `npm run build`");
    wrapped.child.kill("SIGINT");
    await wrapped.stdoutHas("✗ Cancelled (SIGINT)");
    wrapped.child.stdin.end("next\n");
    const result = await wrapped.done;
    expect(result.code).toBe(0);
    const [first, second] = invocations(result);
    expect(isAlive(first!.pid)).toBe(false);
    expect(second).toMatchObject({ stdin: "next" });
    expect(second!.argv).toContain(first!.sessionId);
    expect(logRecords(result).find((record) => record.msg === "turn_end")).toMatchObject({
      outcome: "cancelled",
    });
  });

  it("exits 130 on Ctrl+C (SIGINT) at the prompt", async () => {
    const wrapped = wrap([], { scenario: "quick", input: null });
    wrapped.child.stdin.write("one\n");
    await expect.poll(() => turnEnds(wrapped), { timeout: 20_000 }).toBe(1);
    wrapped.child.kill("SIGINT");
    const result = await wrapped.done;
    expect(result.code).toBe(130);
    expect(invocations(result)).toHaveLength(1);
  });
});

describe("signals during a turn", () => {
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
    ["SIGHUP", 129],
    ["SIGQUIT", 131],
  ] as const) {
    it(`${signal}: kills the agent's whole tree, flushes the log and exits ${code}`, async () => {
      const wrapped = wrap(["-p", "x", "--idle-timeout", "1m"], { scenario: "descendants" });
      await wrapped.stdoutHas('"subtype":"started"');
      wrapped.child.kill(signal);
      const result = await wrapped.done;
      expect(result.code).toBe(code);
      expect(survivors()).toEqual([]);
      const records = logRecords(result);
      expect(records.find((record) => record.msg === "signal_received")).toMatchObject({ signal });
      expect(records.at(-1)).toMatchObject({
        msg: "session_end",
        outcome: `signal ${signal}`,
        exit_code: code,
      });
      expect(wrapperLines(result.stdout).at(-1)).toMatchObject({
        subtype: "cancelled",
        reason: `cancelled by ${signal}`,
      });
    });
  }

  it("kills at once on a second Ctrl+C while shutting down", async () => {
    const wrapped = wrap(["-p", "x", "--idle-timeout", "1m", "--kill-grace", "20s"], {
      scenario: "ignore-sigterm",
    });
    await wrapped.stdoutHas('"subtype":"completed"');
    wrapped.child.kill("SIGINT");
    await expect
      .poll(() => logRecords(wrapped).some((record) => record.msg === "kill_step"), {
        timeout: 20_000,
      })
      .toBe(true);
    const second = performance.now();
    wrapped.child.kill("SIGINT");
    const result = await wrapped.done;
    expect(result.code).toBe(130);
    expect(performance.now() - second).toBeLessThan(15_000); // well before the 20 s grace
    await expect.poll(() => isAlive(invocations(result)[0]!.pid), { timeout: 20_000 }).toBe(false);
    // Ended as a stopped run: the kill, the turn's end and the session's end are in the log,
    // and stdout's last line says it was cancelled.
    const records = logRecords(wrapped);
    expect(records.some((record) => record.msg === "agent_killed")).toBe(true);
    expect(records.at(-1)).toMatchObject({ msg: "session_end", exit_code: 130 });
    expect(wrapperLines(result.stdout).at(-1)).toMatchObject({ subtype: "cancelled" });
  });
});

describe.runIf(pty !== null)("on a terminal", () => {
  it("shows a > prompt, runs a turn per line, exits 130 on Ctrl+C at an empty prompt", async () => {
    const session = onTerminal([], "quick");
    await session.sees("> ");
    session.terminal.write("hello\r");
    await session.sees("Done: hello");
    await session.sees("> ");
    session.terminal.write("\u0003");
    expect(await session.exited).toBe(130);
  });

  it("exits 0 on Ctrl+D, ending the prompt's line first", async () => {
    const session = onTerminal([], "quick");
    await session.sees("> ");
    session.terminal.write("\u0004");
    expect(await session.exited).toBe(0);
    // What the shell prints next starts on a line of its own (escape sequences aside).
    const after = session.output().slice(session.output().lastIndexOf("> ") + 2);
    expect(after.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "")).toBe("\r\n");
  });

  /** A session on a terminal whose turn Ctrl+C cancelled, at the prompt again. */
  const afterCancelledTurn = async () => {
    const session = onTerminal(["--idle-timeout", "1m"], "tool-hang:60000");
    await session.sees("> ");
    session.terminal.write("build\r");
    await session.sees("npm run build");
    session.terminal.write("\u0003");
    await session.sees("Cancelled");
    await session.sees("> ");
    return session;
  };

  it("cancels a turn on Ctrl+C and asks again", async () => {
    const session = await afterCancelledTurn();
    // One clean line: no log lines glued to the status line.
    expect(session.output()).not.toContain("cursor-wrap warn");
    session.terminal.write("\u0004");
    expect(await session.exited).toBe(0);
  });

  it("leaves nothing typed during its last turn to the shell: a turn that ends the session", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cursor-wrap-typed-ahead-"));
    const go = join(dir, "go");
    const session = "11111111-2222-3333-4444-555555555558";
    const steps = [
      { type: "line", value: { type: "system", subtype: "init", session_id: session } },
      {
        type: "line",
        value: {
          type: "assistant",
          message: { role: "assistant", content: [{ type: "text", text: "working on it" }] },
          session_id: session,
        },
      },
      { type: "waitForFile", path: go },
      // A failure that ends the session (R-CLI4: shown, exit 1).
      {
        type: "line",
        value: { type: "error", message: "Unexpected response", session_id: session },
      },
      { type: "exit", code: 1 },
    ];
    const running = onTerminal([], {
      env: { FAKE_AGENT_SCENARIO_JSON: JSON.stringify(steps) },
      shellReadsAfter: true,
    });
    await running.sees("> ");
    running.terminal.write("refactor the module\r");
    await running.sees("working on it");
    // Typed ahead for the next prompt, which never comes.
    running.terminal.write("touch typed-ahead\r");
    await running.sees("touch typed-ahead");
    writeFileSync(go, "");
    await running.sees("shell read: [");
    expect(await running.exited).toBe(1);
    expect(running.output()).toContain("shell read: []");
  });

  it("takes a Ctrl+C right after a cancel for a second tap of it, not for the end", async () => {
    const session = await afterCancelledTurn();
    // The second tap lands on the new prompt: it is asked again, and Ctrl+D ends the session
    // (a Ctrl+C taken for the end would have exited 130 already).
    session.terminal.write("\u0003");
    session.terminal.write("\u0004");
    expect(await session.exited).toBe(0);
  });

  it("goes on at the prompt after Ctrl+Z and fg", async () => {
    const session = onTerminal([], { scenario: "quick", jobControl: true });
    await session.sees("> ");
    session.terminal.write("\u001a");
    // Stopped; the shell says so and brings it back with `fg` (SIGCONT).
    await session.sees("stopped");
    await session.sees("> ");
    session.terminal.write("hello\r");
    await session.sees("Done: hello");
    await session.sees("> ");
    session.terminal.write("\u0004");
    expect(await session.exited).toBe(0);
    expect(logRecords(session).at(-1)).toMatchObject({ msg: "session_end", exit_code: 0 });
  });

  it("draws no prompt over a turn's output when the terminal is resized", async () => {
    const session = onTerminal(["--idle-timeout", "1m"], "tool-hang:60000");
    await session.sees("> ");
    session.terminal.write("build\r");
    await session.sees("npm run build");
    const from = session.output().length;
    // One change of size (SIGWINCHes coalesce: a size changed and changed back is none).
    session.terminal.resize(90, 24);
    session.terminal.write("\u0003");
    await session.sees("Cancelled");
    const during = session.output().slice(from, session.output().indexOf("Cancelled", from));
    expect(during).not.toContain("> ");
    await session.sees("> ");
    session.terminal.write("\u0004");
    expect(await session.exited).toBe(0);
  });

  it("ends like a hangup, not a crash, when the terminal is closed at the prompt, with a line half typed, or mid-turn", async () => {
    for (const when of ["at the prompt", "half typed", "mid-turn"] as const) {
      const home = mkdtempSync(join(tmpdir(), "cursor-wrap-hangup-home-"));
      const session = onTerminal(["--idle-timeout", "1m"], {
        scenario: when === "mid-turn" ? "tool-hang:60000" : "quick",
        env: { HOME: home },
      });
      await session.sees("> ");
      if (when === "mid-turn") {
        session.terminal.write("build\r");
        await session.sees("npm run build");
      }
      if (when === "half typed") {
        // Typed without Enter: readline has it once the terminal echoes it back.
        session.terminal.write("rm -rf half typed");
        await session.sees("rm -rf half typed");
      }
      // Close the terminal's master side, then SIGHUP: what closing a window or an SSH session does.
      (session.terminal as unknown as { destroy(): void }).destroy();
      // 129, not an abort in Node's own exit path (a hung-up terminal cannot be restored).
      expect(await session.exited).toBe(129);
      await expect
        .poll(() => logRecords(session).some((record) => record.msg === "session_end"), {
          timeout: 20_000,
        })
        .toBe(true);
      const records = logRecords(session);
      expect(records.some((record) => record.msg === "wrapper_crashed")).toBe(false);
      expect(records.at(-1), when).toMatchObject({
        msg: "session_end",
        outcome: "signal SIGHUP",
        exit_code: 129,
        flagged: false,
      });
      // A line nobody sent is never a prompt: no agent starts for it, and history keeps nothing.
      expect(invocations(session).map((call) => call.prompt)).toEqual(
        when === "mid-turn" ? ["build"] : [],
      );
      expect(records.some((record) => record.msg === "agent_spawn")).toBe(when === "mid-turn");
      const history = join(home, ".cursor-wrap", "history");
      expect(existsSync(history) ? readFileSync(history, "utf8") : "").not.toContain("half");
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("mcp proxy on a terminal: shows the server's stderr escaped, and a closed terminal shuts the server down", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cursor-wrap-mcp-pty-"));
    const logDir = join(dir, "logs");
    const pidFile = join(dir, "server.pid");
    const proxy = onTerminal(
      [
        "mcp",
        "proxy",
        "--server-id",
        "chatty",
        "--log-dir",
        logDir,
        "--",
        "sh",
        "-c",
        `echo $$ > ${pidFile}; while true; do printf '\\033]0;pwned\\007tick\\n' >&2; sleep 0.05; done`,
      ],
      { defaults: false },
    );
    await proxy.sees("tick");
    expect(proxy.output()).toContain("\\x1b]0;pwned\\x07tick");
    expect(proxy.output()).not.toContain("\u001b]0;pwned");
    const server = Number(readFileSync(pidFile, "utf8"));
    (proxy.terminal as unknown as { destroy(): void }).destroy();
    // The server ignores its stdin's end: the proxy's staged shutdown ends it, and the proxy
    // exits by itself, not by an abort in Node's exit path.
    expect(await proxy.exited).toBe(0);
    const records = logRecords({ logDir });
    expect(records.map((record) => record.msg)).toEqual(
      expect.arrayContaining(["mcp_shutdown", "mcp_proxy_end"]),
    );
    expect(isAlive(server)).toBe(false);
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses -p without a prompt on a terminal", async () => {
    const session = onTerminal(["-p"], "quick");
    expect(await session.exited).toBe(1);
    expect(session.output()).toContain("no prompt: give it as an argument or pipe it on stdin");
  });

  it("runs the agent on a pseudo-terminal with --pty", async () => {
    const result = await run(["-p", "hi", "--pty"], { scenario: "quick" });
    expect(result.code).toBe(0);
    expect(result.stdout.toString()).toContain('"type":"result"');
    expect(invocations(result)[0]).toMatchObject({ stdinIsTTY: true, prompt: "hi" });
    // A prompt that looks like a flag reaches the agent as the prompt, after `--`.
    const dashed = await run(["-p", "--pty", "--", "-x is broken"], { scenario: "quick" });
    expect(dashed.code).toBe(0);
    expect(invocations(dashed)[0]).toMatchObject({ prompt: "-x is broken" });
    expect(invocations(dashed)[0]!.argv.slice(-2)).toEqual(["--", "-x is broken"]);
  });
});
