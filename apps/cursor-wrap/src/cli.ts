import { CursorWrapError } from "@cursor-wrap/errors";
import type { AgentSpawnError } from "@cursor-wrap/supervisor";
import { cac } from "cac";
import type { RunIo } from "./commands/run.js";
import { agentStartMessage, messageWithHint } from "./error-hints.js";
import { EXIT_CODES_HELP } from "./exit-codes.js";
import { AGENT_FLAGS, MCP_OWN_SUBCOMMANDS } from "./options/agent-flags.js";
import {
  agentArgumentsOf,
  agentCommandOf,
  directArgs,
  parseCommandLine,
  wordsOf,
} from "./options/command-line.js";
import { type AnyFlag, FLAGS, flagFor, flagHelp, flagSyntax } from "./options/flags.js";
import {
  givenOptions,
  MONITOR_KEYS,
  resolveOptions,
  resolveRunOptions,
  suggestFlag,
} from "./options/resolve.js";
import type { FlagKey } from "./options/run-options.js";
import { printError } from "./print-error.js";
import { releaseHungUpTerminalAtExit } from "./terminal-hangup.js";
import { UsageError } from "./usage-error.js";

import { VERSION } from "./version.js";

export { VERSION };

/** cursor-wrap's own commands; any other first word is a prompt or the agent's subcommand. */
const OWN_COMMANDS: ReadonlySet<string> = new Set(["logs", "replay", "demo", "acp"]);

/** The run flags `logs` and `replay` take too. */
const LOGS_KEYS = ["logDir"] as const satisfies readonly FlagKey[];
const REPLAY_KEYS = MONITOR_KEYS;
/** The run flags `acp` takes: a prompt turn under ACP is watched as a print-mode turn is. */
const ACP_KEYS = [
  ...MONITOR_KEYS,
  "killGraceMs",
  "drainGraceMs",
  "maxHangRetries",
  "agentBin",
  "logDir",
  "logLevel",
  "logRetentionMs",
  "redact",
  "parseCap",
] as const satisfies readonly FlagKey[];
/**
 * What the run flags mean under `acp`, where that is not what they mean for a print-mode turn:
 * the time an agent gets to finish after it was told to stop is the grace after
 * `session/cancel`; the retries after hangs are restarts of the agent; setup requests wait for
 * MCP servers to start, as a print-mode run's first output does.
 */
const ACP_FLAG_HELP: Partial<Record<FlagKey, string>> = {
  exitGraceMs:
    'Time the agent gets to end a turn after session/cancel; then cursor-wrap answers the prompt "cancelled" itself (off: never)',
  maxHangRetries:
    "Restarts of the agent in a row without a completed turn; after that every request is answered with why",
  firstOutputMs:
    "Time a request other than a prompt (initialize, session/new, …) has to be answered (start-up waits for MCP servers; off: never)",
  toolTimeouts:
    "Allowance per ACP tool kind (read, edit, search, execute, fetch, think, mcp, …) for calls that declare no timeout",
  killGraceMs: "Time between SIGTERM and SIGKILL when killing a parked agent's process tree",
  drainGraceMs:
    "How long an agent's stdout may stay open after it exits (held by a process it started)",
  agentBin: "The Cursor CLI whose `acp` subcommand runs (unless a command follows --)",
  logDir: "Directory of the ACP proxy's log (cursor-wrap-acp-…)",
};
const flagsOf = (keys: readonly FlagKey[]): AnyFlag[] => keys.map((key) => flagFor(key) as AnyFlag);

/** The command a command line names, if it is one of cursor-wrap's own. */
function ownCommandOf(args: readonly string[]): string | undefined {
  const words = parseCommandLine(args, { strict: false }).items.filter(
    (item) => item.kind === "word" && !item.afterDashDash,
  );
  const [first, second] = words.map((item) => (item.kind === "word" ? item.token : ""));
  if (first !== undefined && OWN_COMMANDS.has(first)) return first;
  if (first === "mcp" && second !== undefined && MCP_OWN_SUBCOMMANDS.has(second)) return "mcp";
  // `mcp --help` (no action): the help of cursor-wrap's own mcp actions.
  if (
    first === "mcp" &&
    second === undefined &&
    args.some((arg) => arg === "--help" || arg === "-h")
  )
    return "mcp";
  return undefined;
}

/** The last value of a flag that is not in the flag table (`--tail`), exactly as typed. */
function rawValue(args: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index]!;
    if (arg === "--") break;
    if (arg === `--${name}`) value = args[index + 1];
    else if (arg.startsWith(`--${name}=`)) value = arg.slice(name.length + 3);
  }
  return value;
}

function declare(
  command: ReturnType<ReturnType<typeof cac>["command"]>,
  flags: readonly AnyFlag[],
  descriptions: Partial<Record<FlagKey, string>> = {},
): void {
  for (const definition of flags) {
    command.option(flagSyntax(definition), flagHelp(definition, descriptions[definition.key]));
    if (definition.negated === undefined) continue;
    command.option(`--no-${definition.name}`, definition.negated);
    // cac gives a --no- option the default true and says so, which reads as if the --no- form
    // were the default: the flag's own line says what the default is.
    const negatedOption = command.options.at(-1);
    if (negatedOption) negatedOption.config.default = undefined;
  }
}

/** What `mcp --help` lists before its options: each action and what it does. */
const MCP_ACTIONS_HELP = [
  "  proxy [options] -- <server command...>  Run a stdio MCP server behind the watchdog: a request",
  "                                          with no answer in time gets an error, and the server",
  "                                          goes on",
  "  wrap [options]                          Rewrite Cursor's mcp.json so every stdio server runs",
  "                                          through the proxy (--dry-run shows the change)",
  "  unwrap [options]                        Give every wrapped entry its own command back",
  "  status [options]                        Each server, and whether it is wrapped",
  "Any other `mcp …` (list, list-tools, login, …) is cursor-agent's own and runs cursor-agent.",
].join("\n");

const AGENT_FLAGS_HELP = [
  "cursor-wrap takes cursor-agent's own flags and passes them on unchanged, in order:",
  `  ${AGENT_FLAGS.filter((flag) => !flag.afterDashDashOnly)
    .map((flag) => (flag.short ? `-${flag.short}/--${flag.name}` : `--${flag.name}`))
    .join(", ")}`,
  "Flags it does not know are passed on too (--foo=bar keeps its value; a bare --foo is a switch).",
  "cursor-agent's subcommands (login, logout, status, whoami, models, --list-models, ls, resume,",
  "update, mcp list, about, …) run cursor-agent directly. After --, cursor-agent's flags still",
  "reach it (-- --version, -- --help); the first other word starts the prompt, which may begin with -.",
  "",
  "Defaults that differ from cursor-agent's: cursor-wrap passes --force (--no-force to leave it",
  "out), and with -p prints stream-json (--output-format text for the final answer only).",
  "Piped stdin without -p is one prompt per line.",
].join("\n");

/**
 * The command line (R-CLI1): cac for cursor-wrap's own commands (`logs`, `replay`, `demo`)
 * and for help and version; the run command is taken apart by the flag tables
 * (`parseCommandLine`), since it must accept cursor-agent's flags exactly as cursor-agent does.
 * Each command module is imported only when its command runs, so `--help` and `--version`
 * load nothing heavy.
 */
export function createCli(argv: readonly string[], io: RunIo, env: NodeJS.ProcessEnv) {
  const cli = cac("cursor-wrap");
  cli.usage("[options] [prompt...]   (and every cursor-agent flag and subcommand)");

  const run = cli.command(
    "[...prompt]",
    "Run cursor-agent under supervision (interactive; -p for one prompt)",
  );
  declare(run, FLAGS);
  run
    .example("cursor-wrap -p 'fix the failing test' > events.jsonl")
    .example("cursor-wrap -p -m gpt-5 --trust --output-format text 'summarise the repo'")
    .example("cursor-wrap --idle-timeout 2m --tool-timeout mcp=20m --stream-partial-output");

  const logs = cli
    .command("logs [...args]", "List session logs, or `logs show <session|file>` to render one")
    .option("--flagged", "Only sessions that ended in a hang, linger, budget or error")
    .option("--json", "Print JSON instead of a table");
  declare(logs, flagsOf(LOGS_KEYS));
  logs.action(async (args: string[], parsed: Record<string, unknown>) => {
    const { given } = parseCommandLine(argv, { strict: false });
    const { logDir } = resolveOptions(LOGS_KEYS, { given, env });
    const { logsCommand } = await import("./commands/logs.js");
    return logsCommand(
      { args, flagged: parsed.flagged === true, json: parsed.json === true, logDir },
      io,
    );
  });

  const replay = cli
    .command(
      "replay <file>",
      "Re-run the hang monitor over a session log or a capture and show when it would fire",
    )
    .option("--json", "Print JSON instead of text")
    .option(
      "--tail <duration>",
      "Keep the clock running this long after the last line (default: until the next verdict when a turn ends without a result and without a kill, else 0)",
    );
  declare(replay, flagsOf(REPLAY_KEYS));
  replay.action(async (file: string, parsed: Record<string, unknown>) => {
    const { given } = parseCommandLine(argv, { strict: false });
    const thresholds = givenOptions(REPLAY_KEYS, { given, env });
    const { replayCommand } = await import("./commands/replay.js");
    return replayCommand(
      { file, json: parsed.json === true, tail: rawValue(argv, "tail"), thresholds },
      io,
    );
  });

  cli
    .command(
      "mcp <action>",
      "MCP watchdog: `mcp proxy -- <server command>` answers a hung MCP call with an error; `mcp wrap|unwrap|status` rewrite an MCP client's config to use it; `mcp run -- <agent command>` does so for one session",
    )
    .option(
      "--server-id <name>",
      "proxy: the server's name in errors and logs (default: its command)",
    )
    .option(
      "--request-timeout <duration>",
      "proxy: time a request has to be answered (default 5m; off: none)",
    )
    .option("--tool-timeout <tool=duration,...>", "proxy: per tool (tools/call by name)")
    .option("--init-timeout <duration>", "proxy: time initialize has to be answered (default 60s)")
    .option(
      "--max-request-time <duration>",
      "proxy: the most any request may take, progress or not (default 30m; off: none)",
    )
    .option("--max-line <size>", "proxy: longer lines pass through unparsed (default 64MiB)")
    .option("--log-dir <dir>", "proxy: where its log goes (default: cursor-wrap's log directory)")
    .option("--original-without-args", "proxy: written by wrap (the original entry had no args)")
    .option(
      "--client <name>",
      "wrap/unwrap/status/run: whose configs: cursor, claude-code, claude-desktop, vscode, windsurf, zed (default: cursor; status: all; run: told by the command)",
    )
    .option("--config <file>", "wrap/unwrap/status/run: this config file")
    .option("--global", "wrap/unwrap/status: the client's user config (~/.cursor/mcp.json)")
    .option(
      "--project <dir>",
      "wrap/unwrap/status/run: the configs of this project (default: the current directory's)",
    )
    .option("--dry-run", "wrap/unwrap: print the change as a diff and write nothing")
    .example("cursor-wrap mcp wrap --global --tool-timeout search=2m")
    .example("cursor-wrap mcp run --request-timeout 2m -- claude")
    .example("cursor-wrap mcp status")
    .example(
      "cursor-wrap mcp proxy --server-id everything -- npx -y @modelcontextprotocol/server-everything",
    )
    .action(async (action: string, parsed: Record<string, unknown>) => {
      const dashDash = argv.indexOf("--");
      const value = (name: string): string | undefined => rawValue(argv, name);
      const { mcpCommand } = await import("./commands/mcp.js");
      return mcpCommand(
        {
          action,
          server: dashDash === -1 ? [] : argv.slice(dashDash + 1),
          serverId: value("server-id"),
          requestTimeout: value("request-timeout"),
          toolTimeout: value("tool-timeout"),
          initTimeout: value("init-timeout"),
          maxRequestTime: value("max-request-time"),
          maxLine: value("max-line"),
          logDir: value("log-dir"),
          config: value("config"),
          client: value("client"),
          global: parsed.global === true,
          project: value("project"),
          dryRun: parsed.dryRun === true,
        },
        io,
        env,
      );
    });

  const acp = cli
    .command(
      "acp",
      "ACP watchdog: run Cursor's `agent acp` (or the command after --) for an editor, watching every prompt turn and recovering a hung one",
    )
    .example("cursor-wrap acp --idle-timeout 2m --tool-timeout fetch=5m")
    .example("cursor-wrap acp -- ~/.local/bin/agent --api-key KEY acp");
  declare(acp, flagsOf(ACP_KEYS), ACP_FLAG_HELP);
  acp.action(async () => {
    const { given } = parseCommandLine(argv, { strict: false });
    const options = resolveOptions(ACP_KEYS, { given, env });
    const dashDash = argv.indexOf("--");
    const { acpCommand } = await import("./commands/acp.js");
    return acpCommand(
      { ...options, agentCommand: dashDash === -1 ? [] : argv.slice(dashDash + 1) },
      io,
      env,
    );
  });

  cli
    .command(
      "demo",
      "Show cursor-wrap at work on the bundled fake agent: a normal turn, three hangs and a hung MCP call",
    )
    .action(async () => {
      const { demoCommand } = await import("./commands/demo.js");
      return demoCommand(io);
    });

  cli.help((sections) => {
    const usage = sections.find((section) => section.title === "Usage")?.body ?? "";
    // Only the top-level help lists the commands; a command's own help is about that command.
    if (!sections.some((section) => section.title === "Commands")) {
      if (!usage.includes("cursor-wrap mcp ")) return sections;
      return [
        ...sections.slice(0, 2),
        { title: "Actions", body: MCP_ACTIONS_HELP },
        ...sections.slice(2),
      ];
    }
    return [
      ...sections.filter((section) => section.title !== "Examples"),
      { title: "cursor-agent's flags and subcommands", body: AGENT_FLAGS_HELP },
      { title: "Exit codes", body: EXIT_CODES_HELP },
      ...sections.filter((section) => section.title === "Examples"),
    ];
  });
  cli.version(VERSION);
  return cli;
}

/** A cac error for people: an unknown option of a command gets a "did you mean". */
function cacMessage(message: string, args: readonly string[]): string {
  const unknown = /Unknown option `-*([^`]+)`/.exec(message)?.[1];
  if (unknown === undefined) return message.replace(/`/g, "");
  const kebab = unknown.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
  const command = ownCommandOf(args);
  const known = [
    "json",
    ...(command === "logs" ? ["flagged", ...flagsOf(LOGS_KEYS).map((flag) => flag.name)] : []),
    ...(command === "replay" ? ["tail", ...flagsOf(REPLAY_KEYS).map((flag) => flag.name)] : []),
    ...(command === "acp" ? flagsOf(ACP_KEYS).map((flag) => flag.name) : []),
  ];
  const suggestion = suggestFlag(kebab, known);
  return `unknown option ${kebab.length > 1 ? "--" : "-"}${kebab}${suggestion ? ` (did you mean --${suggestion}?)` : ""}`;
}

/** Run the main command: supervised turns, or the agent itself for its own subcommands. */
async function runMain(args: readonly string[], io: RunIo, env: NodeJS.ProcessEnv) {
  const line = parseCommandLine(args);
  if (line.help || line.version) {
    const cli = createCli(args, io, env);
    if (line.help) cli.parse(["node", "cursor-wrap", "--help"], { run: false });
    else cli.outputVersion();
    return 0;
  }
  const options = resolveRunOptions({
    given: line.given,
    env,
    words: wordsOf(line),
    agentArguments: agentArgumentsOf(line),
  });
  const { findAgentBinary } = await import("@cursor-wrap/run");
  const agentCommand = agentCommandOf(line);
  if (agentCommand !== undefined) {
    const { runAgentDirectly } = await import("./agent/run-agent-directly.js");
    return runAgentDirectly({
      bin: findAgentBinary(options.agentBin, env),
      args: [...options.agentArgumentsFromEnv, ...directArgs(line)],
    });
  }
  const { runCommand } = await import("./commands/run.js");
  const { withMcpWatchdog } = await import("./mcp-watchdog.js");
  const agentBin = findAgentBinary(options.agentBin, env);
  try {
    return await withMcpWatchdog(options, io, () =>
      runCommand({ ...options, agentBin }, io, {}, env),
    );
  } catch (error) {
    // Found, yet it did not start (gone since, or not executable after all): `--agent-bin`
    // chose it, so the hint names that flag.
    if (!CursorWrapError.isInstance(error) || error.code !== "AGENT_SPAWN_FAILED") throw error;
    printError(io.stderr, agentStartMessage(error as AgentSpawnError));
    return 1;
  }
}

/** Parse and run a command line; returns the exit code. */
export async function runCli(
  args: readonly string[],
  io: RunIo,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  try {
    if (ownCommandOf(args) === undefined) return await runMain(args, io, env);
    // `cursor-wrap logs show … | head`: a reader that has seen enough is no error. Nor is a
    // closed terminal (EIO) under `mcp proxy` or `acp`: its log keeps what could not be shown.
    io.stdout.on("error", () => {});
    io.stderr.on("error", () => {});
    const cli = createCli(args, io, env);
    cli.parse(["node", "cursor-wrap", ...args], { run: false });
    if (cli.options.help || cli.options.version) return 0;
    const code = await cli.runMatchedCommand();
    return typeof code === "number" ? code : 0;
  } catch (error) {
    if (error instanceof Error && error.name === "CACError") {
      printError(io.stderr, `${cacMessage(error.message, args)}; see cursor-wrap --help`);
      return 1;
    }
    if (UsageError.isInstance(error)) {
      printError(io.stderr, `${error.message}; see cursor-wrap --help`);
      return 1;
    }
    if (CursorWrapError.isInstance(error)) {
      printError(io.stderr, messageWithHint(error));
      return 1;
    }
    throw error;
  }
}

/** How long output still queued for a slow reader may hold up an exit by signal, ms. */
const SIGNAL_FLUSH_MS = 1_000;
/** How long lines still queued on stderr may hold up an exit, ms. */
const STDERR_FLUSH_MS = 2_000;

/** Resolves once what is queued on `stream` is written, or after `limitMs`. */
function flushed(stream: NodeJS.WriteStream, limitMs: number | undefined): Promise<void> {
  if (stream.writableLength === 0 || stream.destroyed) return Promise.resolve();
  return new Promise<void>((resolve) => {
    stream.write("", () => resolve());
    if (limitMs !== undefined) setTimeout(resolve, limitMs).unref();
  });
}

/** The `cursor-wrap` executable's entry point. */
export async function main(argv: readonly string[] = process.argv): Promise<void> {
  releaseHungUpTerminalAtExit();
  const io: RunIo = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
  let code: number;
  try {
    code = await runCli(argv.slice(2), io);
  } catch (error) {
    printError(
      process.stderr,
      `internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    code = 1;
  }
  // The exit code is decided: a stream failing now (a closed terminal: EIO) changes nothing.
  process.stdout.on("error", () => {});
  process.stderr.on("error", () => {});
  // Let stdout drain before exiting (a pipe may still hold output), unless nobody reads it;
  // stopped by a signal, the wrapper gives a stalled reader a second, not forever. What is
  // queued on stderr gets a moment too: a caller that reads stderr only after stdout's end
  // must not deadlock with us.
  await flushed(process.stdout, code >= 128 ? SIGNAL_FLUSH_MS : undefined);
  await flushed(process.stderr, STDERR_FLUSH_MS);
  process.exit(code);
}
