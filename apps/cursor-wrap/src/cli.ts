import { CursorWrapError } from "@cursor-wrap/errors";
import { cac } from "cac";
import type { RunIo } from "./commands/run.js";
import { type AnyFlag, FLAGS, flagFor, flagHelp, flagSyntax } from "./options/flags.js";
import {
  type GivenValue,
  resolveOptions,
  resolveRunOptions,
  suggestFlag,
} from "./options/resolve.js";
import type { FlagKey } from "./options/run-options.js";
import { printError } from "./print-error.js";
import { UsageError } from "./usage-error.js";

declare const CURSOR_WRAP_VERSION: string;
/** The version, set at build time. */
export const VERSION: string =
  typeof CURSOR_WRAP_VERSION === "string" ? CURSOR_WRAP_VERSION : "0.0.0-dev";

const camel = (name: string): string =>
  name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());

/** Whether the command line (before `--`) sets a flag, in any of its forms. */
function givenOnCommandLine(definition: AnyFlag, argv: readonly string[]): boolean {
  const forms = [
    `--${definition.name}`,
    ...(definition.negatable ? [`--no-${definition.name}`] : []),
    ...(definition.short ? [`-${definition.short}`] : []),
  ];
  for (const arg of argv) {
    if (arg === "--") return false;
    if (forms.some((form) => arg === form || arg.startsWith(`${form}=`))) return true;
  }
  return false;
}

/** The flags a command line gave, by long name, as cac parsed them (the last of repeats). */
function givenFlags(
  parsed: Record<string, unknown>,
  argv: readonly string[],
  flags: readonly AnyFlag[],
): Map<string, GivenValue> {
  const given = new Map<string, GivenValue>();
  for (const definition of flags) {
    if (!givenOnCommandLine(definition, argv)) continue;
    let value = parsed[camel(definition.name)];
    if (Array.isArray(value)) value = value.at(-1);
    if (value === undefined) continue;
    given.set(definition.name, typeof value === "boolean" ? value : String(value));
  }
  return given;
}

function declare(
  command: ReturnType<ReturnType<typeof cac>["command"]>,
  flags: readonly AnyFlag[],
): void {
  for (const definition of flags) {
    command.option(flagSyntax(definition), flagHelp(definition));
    if (definition.negatable)
      command.option(`--no-${definition.name}`, `Turn ${definition.name} off`);
  }
}

/** The run flags `logs` and `replay` take too. */
const LOGS_KEYS = ["logDir"] as const satisfies readonly FlagKey[];
const REPLAY_KEYS = [
  "idleTimeoutMs",
  "toolGraceMs",
  "toolTimeouts",
  "exitGraceMs",
  "maxTurnMs",
] as const satisfies readonly FlagKey[];
const flagsOf = (keys: readonly FlagKey[]): AnyFlag[] => keys.map((key) => flagFor(key) as AnyFlag);

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
  declare(run, FLAGS);
  run
    .example("cursor-wrap -p 'fix the failing test' > events.jsonl")
    .example("echo 'summarise the repo' | cursor-wrap -p --output-format text")
    .example("cursor-wrap --idle-timeout 2m --tool-timeout mcp=20m -- --stream-partial-output")
    .action(async (prompt: string[], parsed: Record<string, unknown>) => {
      const options = resolveRunOptions({
        given: givenFlags(parsed, argv, FLAGS),
        env,
        positional: prompt,
        passthrough: Array.isArray(parsed["--"]) ? (parsed["--"] as unknown[]).map(String) : [],
      });
      const { runCommand } = await import("./commands/run.js");
      return runCommand(options, io);
    });

  const logs = cli
    .command("logs [...args]", "List session logs, or `logs show <session|file>` to render one")
    .option("--flagged", "Only sessions that ended in a hang, linger, budget or error")
    .option("--json", "Print JSON instead of a table");
  declare(logs, flagsOf(LOGS_KEYS));
  logs.action(async (args: string[], parsed: Record<string, unknown>) => {
    const { logDir } = resolveOptions(LOGS_KEYS, {
      given: givenFlags(parsed, argv, flagsOf(LOGS_KEYS)),
      env,
    });
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
      "Keep the clock running this long after the last line (default: 0)",
    );
  declare(replay, flagsOf(REPLAY_KEYS));
  replay.action(async (file: string, parsed: Record<string, unknown>) => {
    const thresholds = resolveOptions(REPLAY_KEYS, {
      given: givenFlags(parsed, argv, flagsOf(REPLAY_KEYS)),
      env,
    });
    const { replayCommand } = await import("./commands/replay.js");
    return replayCommand(
      {
        file,
        json: parsed.json === true,
        tail: typeof parsed.tail === "string" ? parsed.tail : undefined,
        thresholds,
      },
      io,
    );
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
    if (UsageError.isInstance(error)) {
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
