#!/usr/bin/env node
// A stand-in for cursor-agent: accepts its flags, reads the prompt from stdin to EOF, records
// the invocation, and plays a scenario (see scenarios.ts and the package README).

import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appendRecord, runSteps } from "./run-steps.js";
import { type ScenarioContext, type Step, scenarios } from "./scenarios.js";

// cursor-agent's flags that take a value (always, or only when the next argument is not a flag),
// so the fake agent tells a flag's value from the prompt as cursor-agent does.
const VALUE_FLAGS = new Set([
  "--model",
  "-m",
  "--workspace",
  "--output-format",
  "--api-key",
  "--auth-token",
  "--mode",
  "--sandbox",
  "--header",
  "-H",
  "--endpoint",
  "-e",
  "--add-dir",
  "--plugin-dir",
  "--worktree-base",
  "--name",
  "-n",
]);
const OPTIONAL_VALUE_FLAGS = new Set(["--resume", "--worktree", "-w"]);

/** cursor-agent's subcommands: the fake prints what it was asked and exits. */
const SUBCOMMANDS = new Set([
  "login",
  "logout",
  "status",
  "whoami",
  "models",
  "ls",
  "resume",
  "update",
  "upgrade",
  "mcp",
  "about",
  "create-chat",
  "install-shell-integration",
  "uninstall-shell-integration",
  "acp",
  "help",
]);

interface ParsedArgs {
  flags: Record<string, string | true>;
  positional: string[];
}

function parseArgs(argv: string[]): ParsedArgs {
  const flags: Record<string, string | true> = {};
  const positional: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index]!;
    if (arg === "--") {
      positional.push(...argv.slice(index + 1));
      break;
    }
    if (arg.startsWith("--") && arg.includes("=")) {
      const split = arg.indexOf("=");
      flags[arg.slice(0, split)] = arg.slice(split + 1);
    } else if (VALUE_FLAGS.has(arg)) {
      flags[arg] = argv[index + 1] ?? "";
      index += 1;
    } else if (OPTIONAL_VALUE_FLAGS.has(arg)) {
      const next = argv[index + 1];
      if (next !== undefined && !next.startsWith("-")) {
        flags[arg] = next;
        index += 1;
      } else flags[arg] = true;
    } else if (arg.startsWith("-") && arg.length > 1) {
      flags[arg] = true;
    } else {
      positional.push(arg);
    }
  }
  return { flags, positional };
}

/** The agent's own commands and info flags: print what was asked, exit with FAKE_AGENT_EXIT_CODE. */
function runSubcommand(argv: string[], parsed: ParsedArgs, recordFile: string | undefined): number {
  const [command, ...rest] = parsed.positional;
  if (recordFile) {
    appendRecord(recordFile, {
      argv,
      prompt: "",
      stdin: "",
      cwd: process.cwd(),
      pid: process.pid,
      pgid: pgid(),
      token: process.env.CURSOR_WRAP_AGENT_TOKEN,
      stdinIsTTY: process.stdin.isTTY === true,
      stdoutIsTTY: process.stdout.isTTY === true,
      scenario: `command:${command ?? Object.keys(parsed.flags).join(",")}`,
      apiKey: process.env.CURSOR_API_KEY || undefined,
      sessionId: "",
      startedAt: Date.now(),
    });
  }
  if (command === "status" && parsed.flags["--format"] === true && rest[0] === "json") {
    process.stdout.write(`${process.env.FAKE_AGENT_STATUS_JSON ?? '{"isAuthenticated":true}'}\n`);
  } else if (parsed.flags["--list-models"] === true || command === "models") {
    process.stdout.write("auto\ngpt-5\nsonnet-4.5\n");
  } else {
    process.stdout.write(`fake-cursor-agent ${argv.join(" ")}\n`);
  }
  return Number(process.env.FAKE_AGENT_EXIT_CODE ?? 0);
}

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function previousInvocations(recordFile: string | undefined): number {
  if (!recordFile || !existsSync(recordFile)) return 0;
  return readFileSync(recordFile, "utf8").split("\n").filter(Boolean).length;
}

function pgid(): number | undefined {
  try {
    const stat = readFileSync("/proc/self/stat", "latin1");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
  } catch {
    return undefined;
  }
}

function selectSteps(
  prompt: string,
  turn: number,
  context: Omit<ScenarioContext, "param">,
): { name: string; steps: Step[] } {
  const directive = /^scenario:(\S+)\s*/.exec(prompt);
  const inline = process.env.FAKE_AGENT_SCENARIO_JSON;
  let spec: string;
  if (directive) spec = directive[1]!;
  else if (inline) return { name: "inline", steps: JSON.parse(inline) as Step[] };
  else {
    const list = (process.env.FAKE_AGENT_SCENARIO ?? "normal")
      .split(",")
      .map((item) => item.trim());
    spec = list[Math.min(turn, list.length - 1)] || "normal";
  }
  const split = spec.indexOf(":");
  const name = split === -1 ? spec : spec.slice(0, split);
  const scenario = scenarios[name];
  if (!scenario) throw new Error(`fake-cursor-agent: unknown scenario ${JSON.stringify(name)}`);
  const param = split === -1 ? undefined : spec.slice(split + 1);
  const rest = directive ? prompt.slice(directive[0].length) : prompt;
  return { name: spec, steps: scenario({ ...context, prompt: rest || prompt, param }) };
}

/**
 * State that outlives one invocation, in the JSON file `FAKE_AGENT_STATE`: attempt counters
 * and the like, so a scenario can fail the first N times across processes.
 */
function createState(file: string | undefined): Pick<ScenarioContext, "count" | "state"> {
  if (!file) return {};
  const read = (): Record<string, unknown> => {
    try {
      return JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    } catch {
      return {};
    }
  };
  const write = (values: Record<string, unknown>): void => {
    // Written whole and renamed into place: a reader never sees half a file.
    writeFileSync(`${file}.tmp`, JSON.stringify(values));
    renameSync(`${file}.tmp`, file);
  };
  return {
    count(key) {
      const values = read();
      const before = Number(values[`count:${key}`] ?? 0) || 0;
      write({ ...values, [`count:${key}`]: before + 1 });
      return before;
    },
    state: {
      get: (key) => read()[key],
      set: (key, value) => write({ ...read(), [key]: value }),
    },
  };
}

/** The display name cursor-agent reports in `system/init` for a `--model` id. */
function displayName(model: string | undefined): string | undefined {
  if (model === undefined) return undefined;
  return model.toLowerCase() === "auto" ? "Auto" : model;
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  const { flags, positional } = parseArgs(argv);
  if (flags["--version"] === true || flags["-v"] === true) {
    process.stdout.write(`${process.env.FAKE_AGENT_VERSION ?? "2026.01.28-test"}\n`);
    return 0;
  }
  const recordFile = process.env.FAKE_AGENT_RECORD;
  const first = positional[0];
  const print = flags["--print"] === true || flags["-p"] === true;
  if (
    flags["--list-models"] === true ||
    flags["--help"] === true ||
    flags["-h"] === true ||
    (first !== undefined && SUBCOMMANDS.has(first) && !(first === "resume" && print))
  ) {
    return runSubcommand(argv, { flags, positional }, recordFile);
  }
  // Like cursor-agent: a piped stdin is read to EOF even when the prompt is an argument.
  const stdinBytes = process.stdin.isTTY ? Buffer.alloc(0) : await readStdin();
  const stdinText = stdinBytes.toString("utf8");
  const prompt = positional.length > 0 ? positional.join(" ") : stdinText;
  const turn = previousInvocations(recordFile);
  const resume = typeof flags["--resume"] === "string" ? flags["--resume"] : undefined;
  const given = flags["--model"] ?? flags["-m"];
  const modelId = typeof given === "string" && given !== "" ? given : undefined;
  const apiKey = process.env.CURSOR_API_KEY || undefined;
  const context = {
    sessionId: resume ?? process.env.FAKE_AGENT_SESSION_ID ?? randomUUID(),
    requestId: randomUUID(),
    cwd: process.cwd(),
    prompt,
    resume,
    modelId,
    apiKey,
    ...(displayName(modelId) ? { model: displayName(modelId) } : {}),
    speed: Number(process.env.FAKE_AGENT_SPEED ?? 1) || 1,
    ...createState(process.env.FAKE_AGENT_STATE),
  };
  const selected = selectSteps(prompt.trim(), turn, context);
  if (recordFile) {
    appendRecord(recordFile, {
      argv,
      prompt,
      stdin: stdinText,
      stdinBase64: stdinBytes.toString("base64"),
      cwd: process.cwd(),
      pid: process.pid,
      pgid: pgid(),
      token: process.env.CURSOR_WRAP_AGENT_TOKEN,
      stdinIsTTY: process.stdin.isTTY === true,
      scenario: selected.name,
      sessionId: context.sessionId,
      model: modelId,
      apiKey,
      traceparent: process.env.TRACEPARENT || undefined,
      wrapperVariables: Object.keys(process.env)
        .filter((name) => name.startsWith("CURSOR_WRAP_"))
        .sort(),
      startedAt: Date.now(),
    });
  }
  const format = flags["--output-format"];
  return runSteps(selected.steps, {
    outputFormat: format === "json" || format === "text" ? format : "stream-json",
    pidFile:
      process.env.FAKE_AGENT_PID_FILE ?? join(tmpdir(), `fake-cursor-agent-${process.pid}.pids`),
    descendantTtlMs: Number(process.env.FAKE_AGENT_DESCENDANT_TTL_MS ?? 120_000),
  });
}

/** Resolves once everything written to `stream` so far has been handed to the system. */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write("", () => resolve()));
}

process.stdout.on("error", () => process.exit(1));
main().then(
  async (code) => {
    // Let stdout and stderr drain before exiting, as a real CLI would: on a pipe, writes are
    // asynchronous, and process.exit() drops whatever a slow reader has not taken yet.
    await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
    process.exit(code);
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  },
);
