import { CursorWrapError } from "@cursor-wrap/errors";
import type { AgentSpawnError } from "@cursor-wrap/supervisor";
import { cac } from "cac";
import { ACP_FLAGS, splitAcpArguments } from "./commands/acp/flags.js";
import { LOGS_FLAGS } from "./commands/logs/flags.js";
import { MCP_ACTIONS_HELP, MCP_FLAGS, proxyFlagsOf } from "./commands/mcp/flags.js";
import { REPLAY_FLAGS, REPLAY_OWN_FLAGS } from "./commands/replay/flags.js";
import { agentStartMessage, messageWithHint } from "./error-hints.js";
import { EXIT_CODES_HELP } from "./exit-codes.js";
import { holdExitSignals } from "./exit-signals.js";
import { AGENT_FLAGS, MCP_OWN_SUBCOMMANDS } from "./options/agent-flags.js";
import {
  agentArgumentsOf,
  agentCommandOf,
  directArgs,
  parseCommandLine,
  wordsOf,
} from "./options/command-line.js";
import {
  commandFlags,
  type FlagTable,
  flagHelp,
  flagSyntax,
  givenOptions,
  resolveOptions,
  suggestFlag,
} from "./options/flag-table.js";
import { FLAGS } from "./options/flags.js";
import { MONITOR_FLAGS } from "./options/monitor-options.js";
import { resolveRunOptions } from "./options/resolve.js";
import { printError } from "./print-error.js";
import type { RunIo } from "./run-io.js";
import { releaseHungUpTerminalAtExit } from "./terminal-hangup.js";
import { UsageError } from "./usage-error.js";

import { VERSION } from "./version.js";

export { VERSION };

/** cursor-wrap's own commands, each with its flag table; any other first word is a prompt or the agent's subcommand. */
const COMMAND_FLAGS: ReadonlyMap<string, FlagTable> = new Map<string, FlagTable>([
  ["logs", LOGS_FLAGS],
  ["replay", REPLAY_FLAGS],
  ["demo", []],
  ["acp", ACP_FLAGS],
  ["mcp", MCP_FLAGS],
]);

/**
 * cursor-wrap's commands whose names cursor-agent does not use: after one of cursor-agent's
 * flags (`-p logs`, `--model gpt-5 demo`) such a word is cursor-agent's prompt, as it would be
 * for cursor-agent itself.
 */
const OWN_ONLY_COMMANDS: ReadonlySet<string> = new Set(["logs", "replay", "demo"]);

/** The command a command line names, if it is one of cursor-wrap's own. */
function ownCommandOf(args: readonly string[]): string | undefined {
  const line = parseCommandLine(args, { strict: false });
  // `agent logs`: cursor-agent's default command named, with the prompt "logs".
  if (line.agentCommand) return undefined;
  const words = line.items.filter((item) => item.kind === "word" && !item.afterDashDash);
  const [first, second] = words.map((item) => (item.kind === "word" ? item.token : ""));
  if (
    first !== undefined &&
    OWN_ONLY_COMMANDS.has(first) &&
    line.items.slice(0, line.items.indexOf(words[0]!)).some((item) => item.kind === "agent")
  ) {
    return undefined;
  }
  if (first !== undefined && first !== "mcp" && COMMAND_FLAGS.has(first)) return first;
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

/** Declare a table's flags to cac, for its help and its check of unknown options. */
function declare(command: ReturnType<ReturnType<typeof cac>["command"]>, table: FlagTable): void {
  for (const definition of table) {
    command.option(flagSyntax(definition), flagHelp(definition));
    if (definition.negated === undefined) continue;
    command.option(`--no-${definition.name}`, definition.negated);
    // cac gives a --no- option the default true and says so, which reads as if the --no- form
    // were the default: the flag's own line says what the default is.
    const negatedOption = command.options.at(-1);
    if (negatedOption) negatedOption.config.default = undefined;
  }
}

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
 * The command line (R-CLI1): cac routes cursor-wrap's own commands (`logs`, `replay`, `mcp`,
 * `acp`, `demo`) and writes help and version; each command's flags are its table's
 * (`commands/<name>/flags.ts`), read by `commandFlags` and resolved by `resolveOptions`. The run
 * command is taken apart by the two flag tables (`parseCommandLine`), since it must accept
 * cursor-agent's flags exactly as cursor-agent does. Each command module is imported only when
 * its command runs, so `--help` and `--version` load nothing heavy.
 */
export function createCli(
  argv: readonly string[],
  io: RunIo,
  env: NodeJS.ProcessEnv,
  /** cursor-agent's flags given with `acp`, taken out of `argv` (see splitAcpArguments). */
  acpAgentFlags: readonly string[] = [],
) {
  const cli = cac("cursor-wrap");
  cli.usage("[options] [prompt...]   (and every cursor-agent flag and subcommand)");
  // Every command's flags are read one way: its table, from the command line, then their
  // variables, then their defaults. cac routes the command, checks for unknown options and
  // writes the help; its parsed values are not used.
  const flagsOf = (table: FlagTable) => commandFlags(argv, table);

  const run = cli.command(
    "[...prompt]",
    "Run cursor-agent under supervision (interactive; -p for one prompt)",
  );
  declare(run, FLAGS);
  run
    .example("cursor-wrap -p 'fix the failing test' > events.jsonl")
    .example("cursor-wrap -p -m gpt-5 --trust --output-format text 'summarise the repo'")
    .example("cursor-wrap --idle-timeout 2m --tool-timeout mcp=20m --stream-partial-output");

  const logs = cli.command(
    "logs [...args]",
    "List session logs, or `logs show <session|file>` to render one",
  );
  declare(logs, LOGS_FLAGS);
  logs.action(async (args: string[]) => {
    const options = resolveOptions(LOGS_FLAGS, { given: flagsOf(LOGS_FLAGS).given, env });
    const { logsCommand } = await import("./commands/logs/index.js");
    return logsCommand({ args, ...options }, io);
  });

  const replay = cli.command(
    "replay <file>",
    "Re-run the hang monitor over a session log or a capture and show when it would fire",
  );
  declare(replay, REPLAY_FLAGS);
  replay.action(async (file: string) => {
    const input = { given: flagsOf(REPLAY_FLAGS).given, env };
    const { replayCommand } = await import("./commands/replay/index.js");
    return replayCommand(
      {
        file,
        ...resolveOptions(REPLAY_OWN_FLAGS, input),
        thresholds: givenOptions(MONITOR_FLAGS, input),
      },
      io,
    );
  });

  const mcp = cli.command(
    "mcp <action>",
    "MCP watchdog: `mcp proxy -- <server command>` answers a hung MCP call with an error; `mcp wrap|unwrap|status` rewrite an MCP client's config to use it; `mcp run -- <agent command>` does so for one session",
  );
  declare(mcp, MCP_FLAGS);
  mcp
    .example("cursor-wrap mcp wrap --global --tool-timeout search=2m")
    .example("cursor-wrap mcp run --request-timeout 2m -- claude")
    .example("cursor-wrap mcp status")
    .example(
      "cursor-wrap mcp proxy --server-id everything -- npx -y @modelcontextprotocol/server-everything",
    )
    .action(async (action: string) => {
      const { given, afterDashDash } = flagsOf(MCP_FLAGS);
      const options = resolveOptions(MCP_FLAGS, { given, env });
      const { mcpCommand } = await import("./commands/mcp/index.js");
      return mcpCommand(
        { ...options, action, command: afterDashDash, proxyFlags: proxyFlagsOf(given) },
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
  declare(acp, ACP_FLAGS);
  acp.action(async () => {
    const { given, afterDashDash } = flagsOf(ACP_FLAGS);
    const options = resolveOptions(ACP_FLAGS, { given, env });
    const { acpCommand } = await import("./commands/acp/index.js");
    if (acpAgentFlags.length > 0 && afterDashDash.length > 0) {
      throw new UsageError(
        `cursor-agent's flags (${acpAgentFlags.join(" ")}) go with the agent's command after --`,
      );
    }
    return acpCommand(
      { ...options, agentCommand: afterDashDash, agentFlags: [...acpAgentFlags] },
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
      const { demoCommand } = await import("./commands/demo/index.js");
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
  const table = COMMAND_FLAGS.get(ownCommandOf(args) ?? "") ?? [];
  const suggestion = suggestFlag(
    kebab,
    table.map((flag) => flag.name),
  );
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
      // As typed (R-CLI1c): CURSOR_WRAP_MODEL and the like are for the runs cursor-wrap supervises.
      args: directArgs(line),
    });
  }
  const { runCommand } = await import("./commands/run/index.js");
  const { withMcpWatchdog } = await import("./mcp-watchdog.js");
  // No agent to run: interactively, said at once; with -p, the run starts all the same and its
  // first attempt fails with why, so CI still gets its report, job summary, trace and
  // notifications (R-OPS1) for a runner without the Cursor CLI.
  let agentBin: string;
  let notFound: unknown;
  try {
    agentBin = findAgentBinary(options.agentBin, env);
  } catch (error) {
    if (!options.print || !CursorWrapError.isInstance(error)) throw error;
    agentBin = options.agentBin ?? "cursor-agent";
    notFound = error;
  }
  const runIo: RunIo =
    notFound === undefined ? io : { ...io, startAgent: () => Promise.reject(notFound) };
  try {
    return await withMcpWatchdog(options, io, () =>
      runCommand({ ...options, agentBin }, runIo, {}, env),
    );
  } catch (error) {
    // Not found: said as finding it says it (by runCli).
    if (error === notFound) throw error;
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
    const own = ownCommandOf(args);
    if (own === undefined) return await runMain(args, io, env);
    // `cursor-wrap logs show … | head`: a reader that has seen enough is no error. Nor is a
    // closed terminal (EIO) under `mcp proxy` or `acp`: its log keeps what could not be shown.
    io.stdout.on("error", () => {});
    io.stderr.on("error", () => {});
    // `cursor-wrap --api-key KEY acp`: cursor-agent's flags are the agent's, not the command's.
    const { own: ownArgs, agent: agentFlags } =
      own === "acp" ? splitAcpArguments(args) : { own: args, agent: [] };
    const cli = createCli(ownArgs, io, env, agentFlags);
    cli.parse(["node", "cursor-wrap", ...ownArgs], { run: false });
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
  // Before any command listens: a stop signal is never left to kill the process unhandled.
  const exitSignals = holdExitSignals();
  const io: RunIo = {
    // Made on first use: most runs never read stdin, and making the stream costs start-up (P6).
    get stdin() {
      return process.stdin;
    },
    stdout: process.stdout,
    stderr: process.stderr,
  };
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
  // The exit code is decided: a stream failing now (a closed terminal: EIO) changes nothing,
  // and a signal now (a closed terminal's second SIGHUP) only hurries the exit.
  exitSignals.decide(code);
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
