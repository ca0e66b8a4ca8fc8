import { requestedModel, turnArgs } from "@cursor-wrap/run";
import { describe, expect, it } from "vitest";
import { agentFlagSecrets, redactAgentArgs } from "./agent-flags.js";
import {
  agentArgumentsOf,
  agentCommandOf,
  directArgs,
  parseCommandLine,
  wordsOf,
} from "./command-line.js";

/** What the agent gets on the first turn, and the prompt, for a command line. */
function firstTurn(argv: string[], force = true) {
  const line = parseCommandLine(argv);
  return {
    args: turnArgs({
      given: agentArgumentsOf(line),
      force: line.given.get("force") === false ? false : force,
      resume: undefined,
      firstTurn: true,
    }),
    prompt: wordsOf(line).join(" "),
    given: Object.fromEntries(line.given),
  };
}

const OURS = ["--print", "--output-format", "stream-json"];

describe("parseCommandLine", () => {
  it.each([
    // [command line, what the agent gets after cursor-wrap's own flags, the prompt]
    [["-p", "-m", "gpt-5", "fix it"], ["--force", "-m", "gpt-5"], "fix it"],
    [["-p", "--model=gpt-5", "fix it"], ["--force", "--model=gpt-5"], "fix it"],
    [["-p", "-mgpt-5", "fix"], ["--force", "-mgpt-5"], "fix"],
    [["-p", "--api-key", "k", "q"], ["--force", "--api-key", "k"], "q"],
    [["-p", "--auth-token=t", "q"], ["--force", "--auth-token=t"], "q"],
    [
      ["-p", "-H", "X-Team: a", "-H", "X-Env: b", "q"],
      ["--force", "-H", "X-Team: a", "-H", "X-Env: b"],
      "q",
    ],
    [["-p", "--header", "A: b", "q"], ["--force", "--header", "A: b"], "q"],
    [["-p", "--stream-partial-output", "q"], ["--force", "--stream-partial-output"], "q"],
    [
      ["-p", "--sandbox", "enabled", "--trust", "q"],
      ["--force", "--sandbox", "enabled", "--trust"],
      "q",
    ],
    [["-p", "--mode", "plan", "q"], ["--force", "--mode", "plan"], "q"],
    [["-p", "--plan", "q"], ["--force", "--plan"], "q"],
    [["-p", "--continue", "q"], ["--force", "--continue"], "q"],
    [["-p", "--resume", "q"], ["--force", "--resume", "q"], ""],
    [["-p", "--resume", "--trust", "q"], ["--force", "--resume", "--trust"], "q"],
    [["-p", "--resume=-2", "q"], ["--force", "--resume=-2"], "q"],
    [["-p", "-f", "q"], ["-f"], "q"],
    [["-p", "--yolo", "q"], ["--yolo"], "q"],
    [["-p", "--force", "q"], ["--force"], "q"],
    [["-p", "--no-force", "q"], [], "q"],
    [
      ["-p", "--approve-mcps", "--auto-review", "q"],
      ["--force", "--approve-mcps", "--auto-review"],
      "q",
    ],
    [["-p", "--workspace", "/w", "q"], ["--force", "--workspace", "/w"], "q"],
    [
      ["-p", "--add-dir", "/a", "--add-dir", "/b", "q"],
      ["--force", "--add-dir", "/a", "--add-dir", "/b"],
      "q",
    ],
    [["-p", "--plugin-dir", "/p", "q"], ["--force", "--plugin-dir", "/p"], "q"],
    [["-p", "-e", "https://api.example", "q"], ["--force", "-e", "https://api.example"], "q"],
    [["-p", "-w", "feature", "q"], ["--force", "-w", "feature"], "q"],
    [
      ["-p", "--worktree", "--worktree-base", "main", "q"],
      ["--force", "--worktree", "--worktree-base", "main"],
      "q",
    ],
    [["-p", "--skip-worktree-setup", "q"], ["--force", "--skip-worktree-setup"], "q"],
    [["-p", "-n", "nightly", "q"], ["--force", "-n", "nightly"], "q"],
    [["-p", "--disable-auto-update", "q"], ["--force", "--disable-auto-update"], "q"],
    [["-p", "-c", "q"], ["--force", "-c"], "q"],
    [["-p", "--output-format", "text", "q"], ["--force"], "q"],
    [["-pf", "q"], ["-f"], "q"],
    // Unknown flags reach the agent: a bare one as a switch, --foo=bar with its value.
    [["-p", "--shiny-new", "q"], ["--force", "--shiny-new"], "q"],
    [["-p", "--shiny=yes", "q"], ["--force", "--shiny=yes"], "q"],
    // After --: the agent's flags still reach it; the first other word starts the prompt.
    [["-p", "q", "--", "--stream-partial-output"], ["--force", "--stream-partial-output"], "q"],
    [["-p", "--", "-x", "is", "a", "flag"], ["--force"], "-x is a flag"],
    [["-p", "--", "--trust", "--weird", "--trust"], ["--force", "--trust"], "--weird --trust"],
    // Values are never rewritten.
    [["-p", "--model", "3.10", "0x10"], ["--force", "--model", "3.10"], "0x10"],
    [["-p", "1e3"], ["--force"], "1e3"],
  ] as const)("%j", (argv, agent, prompt) => {
    const { args, prompt: words } = firstTurn([...argv]);
    expect(args).toEqual([...OURS, ...agent]);
    expect(words).toBe(prompt);
  });

  it("reads cursor-wrap's own flags, with their values as typed", () => {
    const { given } = parseCommandLine([
      "--idle-timeout",
      "2m",
      "--tool-timeout=mcp=20m",
      "--no-redact",
      "--pty",
      "-p",
      "--output-format",
      "json",
      "--resume",
      "0f1e",
      "x",
    ]);
    expect(Object.fromEntries(given)).toEqual({
      "idle-timeout": "2m",
      "tool-timeout": "mcp=20m",
      redact: false,
      pty: true,
      print: true,
      "output-format": "json",
      resume: "0f1e",
    });
  });

  it("joins a list flag given twice, and takes the last of any other", () => {
    const { given } = parseCommandLine([
      "--tool-timeout",
      "shell=5m",
      "--idle-timeout=1m",
      "--tool-timeout=mcp=20m,task=off",
      "--fallback-model",
      "auto",
      "--fallback-model=gpt-5",
      "--idle-timeout",
      "2m",
      "x",
    ]);
    expect(Object.fromEntries(given)).toMatchObject({
      "tool-timeout": "shell=5m,mcp=20m,task=off",
      "fallback-model": "auto,gpt-5",
      "idle-timeout": "2m",
    });
  });

  it("refuses an unknown flag close to one of cursor-wrap's own, and says how to pass a prompt with -", () => {
    expect(() => parseCommandLine(["--idle-timout", "5s"])).toThrow(
      "unknown option --idle-timout (did you mean --idle-timeout?); a prompt that starts with - goes after --",
    );
    expect(() => parseCommandLine(["--tool-timeouts", "x"])).toThrow(/did you mean --tool-timeout/);
    expect(() => parseCommandLine(["--idle-timeout"])).toThrow("--idle-timeout needs a value");
    expect(() => parseCommandLine(["-m"])).toThrow("-m needs a value");
  });

  it("tells help and version from the agent's, which are reached after --", () => {
    expect(parseCommandLine(["--help"]).help).toBe(true);
    expect(parseCommandLine(["-v"]).version).toBe(true);
    const agentHelp = parseCommandLine(["--", "--help"]);
    expect(agentHelp.help).toBe(false);
    expect(agentCommandOf(agentHelp)).toBe("--help");
    // After one of the agent's subcommands, help and version are the subcommand's.
    for (const argv of [
      ["status", "--help"],
      ["login", "-h"],
      ["mcp", "list", "--help"],
      ["update", "--version"],
    ]) {
      const line = parseCommandLine(argv);
      expect([line.help, line.version], argv.join(" ")).toEqual([false, false]);
      expect(directArgs(line)).toEqual(argv);
    }
    // Before it, they are cursor-wrap's.
    expect(parseCommandLine(["--help", "status"]).help).toBe(true);
  });

  it("finds the agent's own subcommands and info flags, and what to run them with", () => {
    const status = parseCommandLine(["--agent-bin", "/bin/agent", "status"]);
    expect(agentCommandOf(status)).toBe("status");
    expect(directArgs(status)).toEqual(["status"]);
    const mcp = parseCommandLine(["mcp", "list-tools", "github", "--idle-timeout", "1m"]);
    expect(agentCommandOf(mcp)).toBe("mcp");
    expect(directArgs(mcp)).toEqual(["mcp", "list-tools", "github"]);
    const models = parseCommandLine(["--api-key", "k", "--list-models"]);
    expect(agentCommandOf(models)).toBe("--list-models");
    expect(directArgs(models)).toEqual(["--api-key", "k", "--list-models"]);
    // Subcommands newer than the first table: each ran as a prompt, with --force.
    for (const words of [
      ["generate-rule"],
      ["rule"],
      ["worker", "start"],
      ["plugin", "list"],
      ["bedrock"],
      ["team", "switch"],
      ["env", "deploy", "--env", "abc"],
    ]) {
      const line = parseCommandLine(words);
      expect(agentCommandOf(line)).toBe(words[0]);
      expect(directArgs(line)).toEqual(words);
    }
    expect(agentCommandOf(parseCommandLine(["-p", "fix", "the", "status"]))).toBeUndefined();
    expect(agentCommandOf(parseCommandLine(["-p", "--", "status"]))).toBeUndefined();
  });

  it("takes the agent's default command named (`agent [prompt…]`) as the agent does", () => {
    // `cursor-agent agent "fix it"` is `cursor-agent "fix it"`.
    const named = parseCommandLine(["-p", "agent", "fix", "it", "--model", "gpt-5"]);
    expect(named.agentCommand).toBe(true);
    expect(wordsOf(named)).toEqual(["fix", "it"]);
    expect(agentCommandOf(named)).toBeUndefined();
    expect(firstTurn(["agent", "-p", "fix it"]).prompt).toBe("fix it");
    // After it, a subcommand's name is the prompt; its help is cursor-wrap's (the same command).
    const status = parseCommandLine(["agent", "status"]);
    expect(agentCommandOf(status)).toBeUndefined();
    expect(wordsOf(status)).toEqual(["status"]);
    expect(parseCommandLine(["agent", "--help"]).help).toBe(true);
    // Only as the first word; `--` makes it a prompt; an info flag runs the agent as typed.
    expect(wordsOf(parseCommandLine(["-p", "fix", "agent"]))).toEqual(["fix", "agent"]);
    expect(wordsOf(parseCommandLine(["-p", "--", "agent"]))).toEqual(["agent"]);
    expect(wordsOf(parseCommandLine(["agent", "agent"]))).toEqual(["agent"]);
    const models = parseCommandLine(["agent", "--list-models"]);
    expect(agentCommandOf(models)).toBe("--list-models");
    expect(directArgs(models)).toEqual(["agent", "--list-models"]);
  });

  it("is lenient when asked, for finding the command", () => {
    const line = parseCommandLine(["--idle-timout", "logs", "--log-dir"], { strict: false });
    expect(wordsOf(line)).toEqual(["logs"]);
  });
});

describe("turnArgs", () => {
  it("resumes later turns by the announced id, dropping the user's own resume flags", () => {
    const given = agentArgumentsOf(parseCommandLine(["--continue", "-m", "gpt-5"]));
    expect(turnArgs({ given, force: true, resume: "s1", firstTurn: true })).toEqual([
      ...OURS,
      "--force",
      "--continue",
      "-m",
      "gpt-5",
    ]);
    expect(turnArgs({ given, force: true, resume: "s1", firstTurn: false })).toEqual([
      ...OURS,
      "--resume",
      "s1",
      "--force",
      "-m",
      "gpt-5",
    ]);
  });

  it("adds flags from cursor-wrap's variables after its own", () => {
    expect(
      turnArgs({
        given: [],
        force: false,
        resume: "s",
        firstTurn: true,
        fromEnv: ["--model", "m"],
      }),
    ).toEqual([...OURS, "--resume", "s", "--model", "m"]);
  });
});

describe("turnArgs after a recovery", () => {
  it("replaces the user's model (from the command line or CURSOR_WRAP_MODEL) by a fallback", () => {
    const given = agentArgumentsOf(parseCommandLine(["-m", "gpt-5", "--trust"]));
    expect(requestedModel(given)).toBe("gpt-5");
    expect(turnArgs({ given, force: true, resume: "s1", firstTurn: false, model: "auto" })).toEqual(
      [...OURS, "--resume", "s1", "--force", "--model", "auto", "--trust"],
    );
    const fromEnv = ["--model", "gpt-5", "--workspace", "/w"];
    expect(requestedModel([], fromEnv)).toBe("gpt-5");
    expect(
      turnArgs({
        given: [],
        force: false,
        resume: undefined,
        firstTurn: true,
        fromEnv,
        model: "auto",
      }),
    ).toEqual([...OURS, "--workspace", "/w", "--model", "auto"]);
    expect(requestedModel([])).toBeUndefined();
  });

  it("leaves the user's credentials out while an auth profile supplies its own", () => {
    const given = agentArgumentsOf(
      parseCommandLine(["--api-key", "k", "--auth-token=t", "-m", "gpt-5"]),
    );
    expect(
      turnArgs({
        given,
        force: false,
        resume: undefined,
        firstTurn: true,
        profileCredentials: true,
      }),
    ).toEqual([...OURS, "-m", "gpt-5"]);
    expect(turnArgs({ given, force: false, resume: undefined, firstTurn: true })).toEqual([
      ...OURS,
      "--api-key",
      "k",
      "--auth-token=t",
      "-m",
      "gpt-5",
    ]);
  });
});

describe("redactAgentArgs", () => {
  // Secret flags in every form, a credential header and one that is not, a flag that is none.
  const SECRET_FLAGS = [
    "--api-key",
    "sk-1",
    "--api-key=sk-2",
    "--auth-token",
    "t",
    "-H",
    "Authorization: Bearer abc",
    "-HCookie: a=b",
    "--header=X-Team: a",
    "--model",
    "gpt-5",
  ];

  it("hides the values of secret flags in every form, and credential headers only", () => {
    expect(redactAgentArgs(SECRET_FLAGS)).toEqual([
      "--api-key",
      "[REDACTED]",
      "--api-key=[REDACTED]",
      "--auth-token",
      "[REDACTED]",
      "-H",
      "Authorization: [REDACTED]",
      "-HCookie: [REDACTED]",
      "--header=X-Team: a",
      "--model",
      "gpt-5",
    ]);
  });

  it("agentFlagSecrets gives the values it hides, a header's credential with and without its scheme", () => {
    expect(agentFlagSecrets(SECRET_FLAGS)).toEqual([
      "sk-1",
      "sk-2",
      "t",
      "Bearer abc",
      "abc",
      "a=b",
      "a=b",
    ]);
  });
});
