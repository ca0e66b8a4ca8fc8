// End to end, cursor-wrap as a drop-in for cursor-agent (R-CLI1b–e, R-CLI5b): every documented
// flag reaches the agent as given, its subcommands run it directly, discovery, text to a pipe,
// prompt history and pasting on a terminal, and which agent version ran.

import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fakeAgentBin } from "@cursor-wrap/testkit";
import { describe, expect, it } from "vitest";
import {
  checkNoSurvivorsAfterAll,
  invocations,
  logFiles,
  logRecords,
  onTerminal,
  pty,
  run,
  wrap,
} from "./harness.js";
import { inMemoryAgent, runInProcess } from "./in-process.js";

checkNoSurvivorsAfterAll();

const OURS = ["--print", "--output-format", "stream-json"];

/**
 * One row per flag of Cursor's CLI parameter reference (and 2026 additions), plus realistic
 * combinations: the command line, what the agent must receive after cursor-wrap's own
 * `--print --output-format stream-json`, and the prompt it must read.
 */
const FLAG_ROWS: Array<[string[], string[], string]> = [
  [["-p", "-m", "gpt-5", "fix it"], ["--force", "-m", "gpt-5"], "fix it"],
  [["-p", "--model", "sonnet-4.5", "q"], ["--force", "--model", "sonnet-4.5"], "q"],
  [["-p", "--api-key", "key-1", "q"], ["--force", "--api-key", "key-1"], "q"],
  [["-p", "--auth-token=tok", "q"], ["--force", "--auth-token=tok"], "q"],
  [
    ["-p", "-H", "X-Team: a", "-H", "X-Env: b", "q"],
    ["--force", "-H", "X-Team: a", "-H", "X-Env: b"],
    "q",
  ],
  [["-p", "--stream-partial-output", "q"], ["--force", "--stream-partial-output"], "q"],
  [
    ["-p", "--sandbox", "enabled", "--trust", "fix it"],
    ["--force", "--sandbox", "enabled", "--trust"],
    "fix it",
  ],
  [["-p", "--mode", "plan", "q"], ["--force", "--mode", "plan"], "q"],
  [["-p", "--plan", "q"], ["--force", "--plan"], "q"],
  [["-p", "--continue", "q"], ["--force", "--continue"], "q"],
  [["-p", "--resume=6b0f-1", "q"], ["--force", "--resume=6b0f-1"], "q"],
  [["-p", "--resume=-2", "q"], ["--force", "--resume=-2"], "q"],
  [["-p", "--resume", "--trust", "q"], ["--force", "--resume", "--trust"], "q"],
  [["-p", "-f", "q"], ["-f"], "q"],
  [["-p", "--yolo", "q"], ["--yolo"], "q"],
  [["-p", "--no-force", "q"], [], "q"],
  [["-p", "--approve-mcps", "q"], ["--force", "--approve-mcps"], "q"],
  [["-p", "--auto-review", "q"], ["--force", "--auto-review"], "q"],
  [["-p", "--workspace", "/srv/app", "q"], ["--force", "--workspace", "/srv/app"], "q"],
  [
    ["-p", "--add-dir", "/a", "--add-dir", "/b", "q"],
    ["--force", "--add-dir", "/a", "--add-dir", "/b"],
    "q",
  ],
  [["-p", "--plugin-dir", "/plugins", "q"], ["--force", "--plugin-dir", "/plugins"], "q"],
  [["-p", "-e", "https://api2.cursor.sh", "q"], ["--force", "-e", "https://api2.cursor.sh"], "q"],
  [["-p", "-w", "feature-x", "q"], ["--force", "-w", "feature-x"], "q"],
  [
    ["-p", "--worktree", "--worktree-base", "main", "q"],
    ["--force", "--worktree", "--worktree-base", "main"],
    "q",
  ],
  [["-p", "--skip-worktree-setup", "q"], ["--force", "--skip-worktree-setup"], "q"],
  [["-p", "-n", "nightly", "q"], ["--force", "-n", "nightly"], "q"],
  [["-p", "--disable-auto-update", "q"], ["--force", "--disable-auto-update"], "q"],
  [["-p", "-c", "q"], ["--force", "-c"], "q"],
  [["-p", "--output-format", "json", "q"], ["--force"], "q"],
  [
    ["-p", "--brand-new-flag", "--with=value", "q"],
    ["--force", "--brand-new-flag", "--with=value"],
    "q",
  ],
  [["-p", "--", "-x is broken", "again"], ["--force"], "-x is broken again"],
  [
    ["-p", "q", "--", "--stream-partial-output", "--later=1"],
    ["--force", "--stream-partial-output", "--later=1"],
    "q",
  ],
  [["-p", "--model", "3.10", "0x10"], ["--force", "--model", "3.10"], "0x10"],
  [["-p", "1e3"], ["--force"], "1e3"],
  [
    [
      "-p",
      "--trust",
      "--model",
      "gpt-5",
      "--sandbox",
      "disabled",
      "-H",
      "X-CI: 1",
      "--idle-timeout",
      "2m",
      "review the diff",
    ],
    ["--force", "--trust", "--model", "gpt-5", "--sandbox", "disabled", "-H", "X-CI: 1"],
    "review the diff",
  ],
  // `agent [prompt…]`, the agent's default command named: neither cursor-wrap's own `logs`
  // nor the agent's `status` runs; they are the prompts.
  [["-p", "agent", "logs"], ["--force"], "logs"],
  [["agent", "-p", "--model", "gpt-5", "status"], ["--force", "--model", "gpt-5"], "status"],
  // After one of cursor-agent's flags, a word only cursor-wrap uses as a command is the prompt,
  // as it is for cursor-agent (`cursor-wrap logs` alone is still cursor-wrap's own command).
  [["-p", "logs"], ["--force"], "logs"],
  [["-p", "--model", "gpt-5", "demo", "it"], ["--force", "--model", "gpt-5"], "demo it"],
  [["--print", "replay", "the", "failing", "test"], ["--force"], "replay the failing test"],
];

/** Rows also run through the built executable and the fake agent as real processes. */
const REAL_ROWS = new Set([
  "-p -H X-Team: a -H X-Env: b q",
  "-p -- -x is broken again",
  "-p q -- --stream-partial-output --later=1",
  "-p --trust --model gpt-5 --sandbox disabled -H X-CI: 1 --idle-timeout 2m review the diff",
  "-p agent logs",
  "-p logs",
]);

const ROWS = FLAG_ROWS.map(([argv, agent, prompt]) => ({
  line: argv.join(" "),
  argv,
  agent,
  prompt,
}));

describe("as a drop-in for cursor-agent", () => {
  // Every row in-process: the command line taken apart by the same code, and what the agent is
  // started with. What only real processes show (the arguments through a real spawn, the
  // prompt read by the agent from a pipe) is checked on a few rows below.
  it.each(ROWS)(
    "passes $line on, unchanged and in order, with the prompt on stdin",
    async ({ argv, agent, prompt }) => {
      const fake = inMemoryAgent();
      const result = await runInProcess(argv, { startAgent: fake.start });
      expect(result.code).toBe(0);
      expect(fake.starts).toHaveLength(1);
      expect(fake.starts[0]?.args).toEqual([...OURS, ...agent]);
      expect(fake.starts[0]?.prompt).toBe(prompt);
    },
  );

  // Each is two process starts, and the time limit applies to each: a few at a time.
  it.concurrent.each(ROWS.filter((row) => REAL_ROWS.has(row.line)))(
    "passes $line on to a real agent process, with the prompt on its stdin",
    async ({ argv, agent, prompt }) => {
      const result = await run(argv, { scenario: "quick" });
      expect(result.code).toBe(0);
      const [call] = invocations(result);
      expect(call?.argv).toEqual([...OURS, ...agent]);
      expect(call?.prompt).toBe(prompt);
      expect(call?.stdin).toBe(prompt);
    },
  );

  it("keeps the real rows among the documented ones", () => {
    expect(ROWS.filter((row) => REAL_ROWS.has(row.line))).toHaveLength(REAL_ROWS.size);
  });

  it("takes a blank prompt for none, as cursor-agent does: stdin is the prompt", async () => {
    const empty = await run(["-p", ""], { scenario: "quick" });
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain("stdin was empty");
    const blank = await run(["-p", "   "], { scenario: "quick" });
    expect(blank.code).toBe(1);
    expect(invocations(empty).concat(invocations(blank))).toEqual([]);
    // `… | agent --trust --output-format text -p ""`, as scripts run cursor-agent.
    const piped = await run(["--output-format", "text", "-p", ""], {
      scenario: "quick",
      input: "reply: PONG\n",
    });
    expect(piped.code).toBe(0);
    expect(invocations(piped)[0]?.prompt).toBe("reply: PONG\n");
  });

  it("redacts secrets given as flags in the log", async () => {
    const result = await run(
      [
        "-p",
        "--api-key=sk-live-1",
        "--auth-token",
        "tok-2",
        "-H",
        "Authorization: Bearer tok-3",
        "q",
      ],
      { scenario: "quick" },
    );
    const spawn = logRecords(result).find((record) => record.msg === "agent_spawn");
    const args = JSON.stringify(spawn?.args);
    expect(args).not.toMatch(/sk-live-1|tok-2|tok-3/);
    expect(spawn?.args).toContain("--api-key=[REDACTED]");
    expect(spawn?.args).toContain("Authorization: [REDACTED]");
  });

  it("runs the agent's own subcommands directly: output and exit code unchanged, no turn logged", async () => {
    const status = await run(["status"], { env: { FAKE_AGENT_EXIT_CODE: "3" } });
    expect(status.code).toBe(3);
    expect(status.stdout.toString()).toBe("fake-cursor-agent status\n");
    expect(logFiles(status)).toEqual([]);
    // As typed: cursor-wrap's variables for supervised runs add nothing, and a subcommand's
    // --help is the agent's.
    const mcp = await run(["mcp", "list-tools", "github", "--help"], {
      env: { CURSOR_WRAP_MODEL: "gpt-5", CURSOR_WRAP_WORKSPACE: "/tmp" },
    });
    expect(mcp.stdout.toString()).toBe("fake-cursor-agent mcp list-tools github --help\n");
    for (const argv of [["--list-models"], ["--", "--list-models"], ["models"]]) {
      const models = await run(argv);
      expect(models.code, argv.join(" ")).toBe(0);
      expect(models.stdout.toString()).toBe("auto\ngpt-5\nsonnet-4.5\n");
    }
    const version = await run(["--", "--version"], { env: { FAKE_AGENT_VERSION: "2026.09.17-x" } });
    expect(version.stdout.toString()).toBe("2026.09.17-x\n");
    const ownVersion = await run(["--version"], { defaults: false });
    expect(ownVersion.stdout.toString()).toMatch(/^cursor-wrap\//);
  });

  it.runIf(pty !== null)("gives the agent's subcommands the user's terminal", async () => {
    const session = onTerminal(["login"], { env: { FAKE_AGENT_EXIT_CODE: "4" } });
    expect(await session.exited).toBe(4);
    const [call] = invocations(session);
    expect(call).toMatchObject({ argv: ["login"], stdinIsTTY: true, stdoutIsTTY: true });
  });

  it("finds `agent` when only it is on PATH, and names every place it looked otherwise", async () => {
    const bin = mkdtempSync(join(tmpdir(), "cursor-wrap-path-"));
    const home = mkdtempSync(join(tmpdir(), "cursor-wrap-home-"));
    try {
      symlinkSync(fakeAgentBin, join(bin, "agent"));
      const PATH = `${bin}:${dirname(process.execPath)}`;
      const found = await run(["-p", "x", "--log-dir", join(home, "logs")], {
        defaults: false,
        scenario: "quick",
        env: { PATH, HOME: home },
      });
      expect(found.code).toBe(0);
      expect(invocations(found)).toHaveLength(1);

      const missing = await run(["-p", "x", "--log-dir", join(home, "logs")], {
        defaults: false,
        env: { PATH: dirname(process.execPath), HOME: home },
      });
      expect(missing.code).toBe(1);
      expect(missing.stderr).toBe(
        'cursor-wrap: cannot start "cursor-agent": not found (tried cursor-agent on PATH, agent on PATH, ~/.local/bin/cursor-agent, ~/.local/bin/agent); install the Cursor CLI (curl https://cursor.com/install -fsS | bash) or set --agent-bin\n',
      );

      // The installer's place, last.
      mkdirSync(join(home, ".local", "bin"), { recursive: true });
      symlinkSync(fakeAgentBin, join(home, ".local", "bin", "cursor-agent"));
      const installed = await run(["-p", "x", "--log-dir", join(home, "logs")], {
        defaults: false,
        scenario: "quick",
        env: { PATH: dirname(process.execPath), HOME: home },
      });
      expect(installed.code).toBe(0);
    } finally {
      rmSync(bin, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    }
  });

  it.runIf(pty !== null)(
    "renders text fully on a terminal, and the answer only to a pipe",
    async () => {
      const onScreen = onTerminal(["-p", "--output-format", "text", "x"], "normal:10");
      expect(await onScreen.exited).toBe(0);
      expect(onScreen.output()).toContain("I'll run the command, then report back.");
      expect(onScreen.output()).toContain("✓ `npm test`");
      expect(onScreen.output()).toContain("All tests pass.");

      const piped = await run(["-p", "--output-format", "text", "x"], { scenario: "normal:10" });
      expect(piped.stdout.toString()).toBe("All tests pass.\n");
    },
  );

  it.runIf(pty !== null)(
    "erases the status line before the answer goes to a pipe that prints on the same terminal",
    async () => {
      const screen = onTerminal(["-p", "--output-format", "text", "x"], {
        scenario: "normal:200",
        pipeStdout: true,
      });
      expect(await screen.exited).toBe(0);
      const output = screen.output();
      expect(output).toContain("✓ `npm test`");
      // The answer, printed by `cat`, starts on a clean line: what is left visible of the line
      // before it (after its last erase) is never "… responding · 0.4s".
      const before = output.slice(0, output.lastIndexOf("All tests pass."));
      const visible = before.slice(before.lastIndexOf("\n")).split("\u001b[2K").at(-1);
      expect(visible).not.toMatch(/responding|thinking/);
    },
  );

  it.runIf(pty !== null)(
    "tells a hang on a terminal once: the kill's steps only at --log-level debug",
    async () => {
      const details = ["kill step", "agent killed", "agent exited", "turn end"];
      const args = ["-p", "--output-format", "text", "--idle-timeout", "500ms", "x"];
      const onScreen = onTerminal(args, "idle-hang");
      expect(await onScreen.exited).toBe(2);
      expect(onScreen.output()).toContain("⚠ Hang detected");
      expect(onScreen.output()).toContain("resume with: cursor-wrap --resume");
      for (const detail of details) expect(onScreen.output()).not.toContain(`info: ${detail}`);
      const debug = onTerminal([...args.slice(0, -1), "--log-level", "debug", "x"], "idle-hang");
      expect(await debug.exited).toBe(2);
      for (const detail of details) expect(debug.output()).toContain(`: ${detail}:`);
    },
  );

  it.runIf(pty !== null)(
    "recalls earlier prompts with Up, across sessions, in a private file",
    async () => {
      const home = mkdtempSync(join(tmpdir(), "cursor-wrap-history-"));
      try {
        const first = onTerminal([], { scenario: "quick", env: { HOME: home } });
        await first.sees("> ");
        first.terminal.write("first prompt\r");
        await first.sees("Done: first prompt");
        await first.sees("> ");
        first.terminal.write(" secret prompt\r");
        await first.sees("Done: secret prompt");
        await first.sees("> ");
        first.terminal.write("\u0004");
        expect(await first.exited).toBe(0);
        const file = join(home, ".cursor-wrap", "history");
        expect(statSync(file).mode & 0o777).toBe(0o600);
        expect(readFileSync(file, "utf8")).toBe('"first prompt"\n');

        const second = onTerminal([], { scenario: "quick", env: { HOME: home } });
        await second.sees("> ");
        second.terminal.write("\u001b[A"); // Up
        await second.sees("first prompt");
        second.terminal.write("\r");
        await second.sees("Done: first prompt");
        await second.sees("> ");
        second.terminal.write("\u0004");
        expect(await second.exited).toBe(0);
        expect(invocations(second).map((call) => call.prompt)).toEqual(["first prompt"]);
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    },
  );

  it.runIf(pty !== null)("takes a pasted multi-line prompt as one prompt", async () => {
    const session = onTerminal([], "quick");
    await session.sees("> ");
    session.terminal.write("\u001b[200~line one\rline two\u001b[201~\r");
    await session.sees("Done: line one");
    await session.sees("> ");
    session.terminal.write("\u0004");
    expect(await session.exited).toBe(0);
    expect(invocations(session).map((call) => call.prompt)).toEqual(["line one\nline two"]);
  });

  it.runIf(pty !== null)(
    "shows that it is waiting for the agent from the start of a turn",
    async () => {
      const session = onTerminal([], "slow");
      await session.sees("> ");
      session.terminal.write("think\r");
      await session.sees("waiting for cursor-agent");
      await session.sees("thinking");
      await session.sees("> ");
      session.terminal.write("\u0004");
      expect(await session.exited).toBe(0);
    },
  );

  it("lets an agent crash end the turn, not the interactive session", async () => {
    // No retries: the crash ends its turn (a retry would resume it: e2e-recovery).
    const result = await run(["--output-format", "stream-json", "--max-retries", "0"], {
      scenario: ["abnormal:3", "quick"],
      input: "first\nsecond\n",
    });
    expect(result.code).toBe(0);
    expect(invocations(result).map((call) => call.prompt)).toEqual(["first", "second"]);
    expect(result.stderr.match(/without a result/g)).toHaveLength(1);
  });

  it("records the agent's version at every turn and notes when it changes", async () => {
    const root = mkdtempSync(join(tmpdir(), "cursor-wrap-install-"));
    try {
      const install = (version: string): string => {
        const path = join(root, "versions", version, "cursor-agent");
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, `#!/bin/sh\nexec "${process.execPath}" "${fakeAgentBin}" "$@"\n`);
        chmodSync(path, 0o755);
        return path;
      };
      const link = join(root, "cursor-agent");
      symlinkSync(install("2026.09.10-aaa"), link);
      const session = wrap(["--agent-bin", link, "--output-format", "stream-json"], {
        scenario: "quick",
        input: null,
      });
      session.child.stdin.write("one\n");
      await session.stdoutHas('"type":"result"');
      // The CLI updates itself in the background between two turns.
      rmSync(link);
      symlinkSync(install("2026.09.17-bbb"), link);
      session.child.stdin.end("two\n");
      const result = await session.done;
      expect(result.code).toBe(0);
      const records = logRecords(result);
      expect(
        records
          .filter((record) => record.msg === "agent_spawn")
          .map((record) => record.agent_version),
      ).toEqual(["2026.09.10-aaa", "2026.09.17-bbb"]);
      expect(records.find((record) => record.msg === "agent_version_changed")).toMatchObject({
        from: "2026.09.10-aaa",
        to: "2026.09.17-bbb",
      });
      const list = await runInProcess(["logs", "--log-dir", result.logDir]);
      expect(list.stdout.toString()).toContain("2026.09.17-bbb");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
