// End to end, hostile agent output: whatever the agent, its tools or an MCP server print, no
// control sequence of theirs reaches a terminal (R-FMT5), while stream-json stays byte-identical.

import { readFileSync } from "node:fs";
import { agentEvents as ev, type Step } from "@cursor-wrap/testkit";
import { describe, expect, it } from "vitest";
import { checkNoSurvivorsAfterAll, logFiles, onTerminal, pty, run } from "./harness.js";
import { runInProcess } from "./in-process.js";

checkNoSurvivorsAfterAll();

const PWNED = "\u001b]0;pwned\u0007\u001b[2J\u001b]52;c;ZXZpbA==\u0007";
/** What a terminal would act on: controls but newline and tab, C1, bidi overrides. */
const ACTIVE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
/**
 * What cursor-wrap and readline themselves send a terminal: colour codes, erasing and moving
 * within the line, bracketed paste on and off, carriage returns.
 */
const OWN = /\u001b\[[0-9;]*[mGJK]|\u001b\[\?2004[hl]|\r/g;

const context = { sessionId: "3f1d6a52-8c1b-4c4e-9b9f-2c43a1d0e7aa", requestId: "r-1" };
const line = (value: Record<string, unknown>): Step => ({ type: "line", value });
const args = ev.shellArgs(`echo ${PWNED}`, 10_000);
const STEPS: Step[] = [
  line(ev.init(context)),
  line(ev.assistant(context, `Reading the repo ${PWNED}`, { modelCallId: "m", timestampMs: 1 })),
  line(ev.toolStarted(context, "c1", "shellToolCall", args)),
  line(
    ev.toolCompleted(
      context,
      "c1",
      "shellToolCall",
      args,
      ev.shellResult(`echo ${PWNED}`, 1, {
        stderr: `evil\u202eexe.txt ${PWNED}\n`,
      }),
    ),
  ),
  { type: "stderr", text: `warning: ${PWNED}` },
  line(ev.assistant(context, `Done ${PWNED}`)),
  line(ev.result(context, `Done ${PWNED}`)),
];
const scenario = STEPS as unknown as string;

describe("hostile agent output", () => {
  it("never reaches a pipe or a file as control sequences in text mode, nor on stderr", async () => {
    const result = await run(["-p", "--output-format", "text", "x"], { scenario });
    expect(result.code).toBe(0);
    expect(result.stdout.toString()).toBe(
      "Done \\x1b]0;pwned\\x07\\x1b[2J\\x1b]52;c;ZXZpbA==\\x07\n",
    );
    expect(result.stderr).toContain("warning: \\x1b]0;pwned\\x07");
    expect(result.stderr).not.toMatch(ACTIVE);
  });

  it("keeps stream-json byte-identical, control sequences included", async () => {
    const result = await run(["-p", "x"], { scenario });
    expect(result.stdout.toString()).toContain(JSON.stringify(`Done ${PWNED}`).slice(1, -1));
    expect(result.stderr).not.toMatch(ACTIVE);
  });

  it("survives JSON nested 20,000 levels deep in every format: the log redacted, the answer kept", async () => {
    const deep = (inner: string) => `${"[".repeat(20_000)}${inner}${"]".repeat(20_000)}`;
    const secret = "sk-proj-AbCdEf0123456789AbCdEf0123";
    const lines = [
      `{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"shellToolCall":{"args":{"command":${deep(`"${secret}"`)}}}},"session_id":"${context.sessionId}"}`,
      `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Done"},${deep('{"password":"hunter2-0123456789"}')}]},"session_id":"${context.sessionId}"}`,
      `{"type":"tool_call","subtype":"completed","call_id":"c1","tool_call":{"shellToolCall":{"args":{},"result":${deep('"ok"')}}},"session_id":"${context.sessionId}"}`,
    ];
    const deepScenario = [
      line(ev.init(context)),
      ...lines.map((value): Step => ({ type: "line", value })),
      line(ev.result(context, "Done")),
    ] as unknown as string;
    for (const format of ["stream-json", "json", "text", "events"]) {
      const result = await run(["-p", "--output-format", format, "x"], { scenario: deepScenario });
      expect(result.stderr, format).not.toContain("wrapper crashed");
      expect(result.code, format).toBe(0);
      const stdout = result.stdout.toString();
      if (format === "stream-json")
        for (const value of lines) expect(stdout).toContain(`${value}\n`);
      else expect(stdout, format).toContain("Done");
      const log = logFiles(result)
        .map((file) => readFileSync(file, "utf8"))
        .join("");
      expect(log).toContain("[REDACTED]");
      expect(log).not.toContain("AbCdEf0123456789");
      expect(log).not.toContain("hunter2");
    }
  });

  it("never reaches the terminal from `logs show`", async () => {
    const done = await run(["-p", "x"], { scenario });
    const [file] = logFiles(done);
    const shown = await runInProcess(["logs", "show", file!]);
    expect(shown.code).toBe(0);
    expect(shown.stdout.toString()).toContain("\\x1b]0;pwned\\x07");
    expect(shown.stdout.toString()).not.toMatch(ACTIVE);
  });

  it.runIf(pty !== null)("never reaches an interactive terminal", async () => {
    const session = onTerminal(["--stderr", "all"], { scenario });
    await session.sees("> ");
    session.terminal.write("go\r");
    await session.sees("Done ");
    await session.sees("> ");
    session.terminal.write("\u0004");
    expect(await session.exited).toBe(0);
    const output = session.output();
    for (const sequence of ["\u001b]0;pwned", "\u001b[2J", "\u001b]52;", "\u0007", "\u202e"]) {
      expect(output).not.toContain(sequence);
    }
    expect(output.replace(OWN, "")).not.toMatch(ACTIVE);
    expect(session.output()).toContain("\\x1b]52;c;ZXZpbA==");
  });
});
