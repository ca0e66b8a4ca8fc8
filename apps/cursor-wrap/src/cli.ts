import { CursorWrapError } from "@cursor-wrap/errors";
import { cac } from "cac";
import { envName, FLAGS, type FlagSpec, resolveRunOptions, suggestFlag } from "./options.js";
import { printError } from "./print-error.js";
import type { RunIo } from "./run.js";
import { UsageError } from "./usage-error.js";

declare const CURSOR_WRAP_VERSION: string;
/** The version, set at build time. */
export const VERSION: string =
  typeof CURSOR_WRAP_VERSION === "string" ? CURSOR_WRAP_VERSION : "0.0.0-dev";

function flagSyntax(spec: FlagSpec): string {
  const long = `--${spec.name}${spec.value ? ` ${spec.value}` : ""}`;
  return spec.short ? `-${spec.short}, ${long}` : long;
}

function flagHelp(spec: FlagSpec): string {
  return `${spec.description} (default: ${spec.defaultText}; env ${envName(spec.name)})`;
}

const REPLAY_FLAGS = [
  "idle-timeout",
  "tool-grace",
  "tool-timeout",
  "exit-grace",
  "max-turn-duration",
];

/**
 * The command line (R-CLI1): the run command with every flag, and the `logs`, `replay` and
 * `demo` commands. Each command module is imported only when its command runs, so `--help`
 * and `--version` load nothing heavy.
 */
export function createCli(argv: readonly string[], io: RunIo, env: NodeJS.ProcessEnv) {
  const cli = cac("cursor-wrap");
  cli.usage("[options] [prompt...] [-- cursor-agent options]");

  const run = cli.command(
    "[...prompt]",
    "Run cursor-agent under supervision (interactive; -p for one prompt)",
  );
  for (const spec of FLAGS) {
    run.option(flagSyntax(spec), flagHelp(spec));
    if (spec.negatable) run.option(`--no-${spec.name}`, `Turn ${spec.name} off`);
  }
  run
    .example("cursor-wrap -p 'fix the failing test' > events.jsonl")
    .example("echo 'summarise the repo' | cursor-wrap -p --output-format text")
    .example("cursor-wrap --idle-timeout 2m --tool-timeout mcp=20m -- --stream-partial-output")
    .action(async (prompt: string[], flags: Record<string, unknown>) => {
      const options = resolveRunOptions(flags, argv, env, prompt);
      const { runCommand } = await import("./run.js");
      return runCommand(options, io);
    });

  cli
    .command("logs [...args]", "List session logs, or `logs show <session|file>` to render one")
    .option("--flagged", "Only sessions that ended in a hang, linger, budget or error")
    .option("--json", "Print JSON instead of a table")
    .option(
      "--log-dir <dir>",
      `Directory of the session logs (default: ~/.cursor-wrap/logs; env ${envName("log-dir")})`,
    )
    .action(
      async (args: string[], flags: { flagged?: boolean; json?: boolean; logDir?: string }) => {
        const { logsCommand } = await import("./commands/logs.js");
        return logsCommand(args, flags, io, env);
      },
    );

  const replay = cli
    .command(
      "replay <file>",
      "Re-run the hang monitor over a session log or a capture and show when it would fire",
    )
    .option("--json", "Print JSON instead of text")
    .option(
      "--tail <duration>",
      "Keep the clock running this long after the last line (default: 0)",
    );
  for (const name of REPLAY_FLAGS)
    replay.option(
      flagSyntax(FLAGS.find((spec) => spec.name === name)!),
      flagHelp(FLAGS.find((spec) => spec.name === name)!),
    );
  replay.action(async (file: string, flags: Record<string, unknown>) => {
    const { replayCommand } = await import("./commands/replay.js");
    return replayCommand(file, flags, argv, io, env);
  });

  cli
    .command(
      "demo",
      "Show cursor-wrap at work on the bundled fake agent: a normal turn and three hangs",
    )
    .action(async () => {
      const { demoCommand } = await import("./commands/demo.js");
      return demoCommand(io);
    });

  cli.help();
  cli.version(VERSION);
  return cli;
}

/** Parse and run a command line; returns the exit code. */
export async function runCli(
  args: readonly string[],
  io: RunIo,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const cli = createCli(args, io, env);
  try {
    cli.parse(["node", "cursor-wrap", ...args], { run: false });
    if (cli.options.help || cli.options.version) return 0;
    const code = await cli.runMatchedCommand();
    return typeof code === "number" ? code : 0;
  } catch (error) {
    if (error instanceof Error && error.name === "CACError") {
      const kebab = (name: string) =>
        name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
      const unknown = /Unknown option `-*([^`]+)`/.exec(error.message)?.[1];
      if (unknown === undefined) {
        printError(io.stderr, `${error.message.replace(/`/g, "")}; see cursor-wrap --help`);
        return 1;
      }
      const known = (cli.matchedCommand?.options ?? [])
        .flatMap((option) => option.names)
        .filter((name) => name.length > 1);
      const suggestion = suggestFlag(kebab(unknown), known.map(kebab));
      const flag = `${unknown.length > 1 ? "--" : "-"}${kebab(unknown)}`;
      printError(
        io.stderr,
        `unknown option ${flag}${suggestion ? ` (did you mean --${suggestion}?)` : ""}; see cursor-wrap --help`,
      );
      return 1;
    }
    if (error instanceof UsageError) {
      printError(io.stderr, `${error.message}; see cursor-wrap --help`);
      return 1;
    }
    if (CursorWrapError.isInstance(error)) {
      printError(io.stderr, error.message);
      return 1;
    }
    throw error;
  }
}

/** The `cursor-wrap` executable's entry point. */
export async function main(argv: readonly string[] = process.argv): Promise<void> {
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
  // Let stdout drain before exiting (a pipe may still hold output), unless nobody reads it.
  if (process.stdout.writableLength > 0 && !process.stdout.destroyed) {
    await new Promise<void>((resolve) => process.stdout.write("", () => resolve()));
  }
  process.exit(code);
}
