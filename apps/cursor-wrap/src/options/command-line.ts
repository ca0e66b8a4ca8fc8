import { UsageError } from "../usage-error.js";
import {
  AGENT_SUBCOMMANDS,
  type AgentArgument,
  type AgentFlag,
  agentFlagByLong,
  agentFlagByShort,
} from "./agent-flags.js";
import { flagNames, type GivenValue, suggestFlag, takeFlag } from "./flag-table.js";
import { FLAGS } from "./flags.js";

/** One piece of the command line, in order. */
export type CommandLineItem =
  | { kind: "agent"; argument: AgentArgument }
  /** A word that is not a flag: the prompt, or an agent subcommand and its arguments. */
  | { kind: "word"; token: string; afterDashDash: boolean };

/** A run command line, taken apart by the two flag tables. */
export interface CommandLine {
  /** cursor-wrap's own settings given on the command line, by flag name (the last one wins; a list's values join). */
  given: Map<string, GivenValue>;
  /** Agent flags and words, in the user's order. */
  items: CommandLineItem[];
  /** Flags the agent gets that are in no table (passed on, for forward compatibility). */
  unknown: string[];
  /** `-h`/`--help` before `--`. */
  help: boolean;
  /** `-v`/`--version` before `--`. */
  version: boolean;
  /**
   * The first word was `agent`: the agent's default command named (`agent [prompt…]`, as in
   * `cursor-agent agent "fix it"`). It is not part of the prompt, and the words after it are
   * the prompt even when one is a subcommand's name (`agent status`).
   */
  agentCommand: boolean;
}

const ownByLong = flagNames(FLAGS);
const OWN_NAMES = [...ownByLong.keys()];

/** How an agent flag with `role` updates cursor-wrap's own settings of the same name. */
function noteRole(
  given: Map<string, GivenValue>,
  flag: AgentFlag,
  value: string | undefined,
): void {
  switch (flag.role) {
    case "print":
      given.set("print", true);
      break;
    case "force":
      given.set("force", true);
      break;
    case "output-format":
      if (value !== undefined) given.set("output-format", value);
      break;
    case "resume":
      // A session id; `--resume` alone, `--resume=-N` and `--continue` pick a recent chat,
      // whose id the agent announces.
      if (value !== undefined && !value.startsWith("-")) given.set("resume", value);
      else given.delete("resume");
      break;
    default:
      break;
  }
}

/** Options for {@link parseCommandLine}. */
export interface ParseOptions {
  /**
   * Throw on bad input (a missing value, an unknown flag close to one of cursor-wrap's own).
   * Off, unknown flags are switches and a missing value is left out: for finding the command.
   */
  strict?: boolean;
}

/** Where a run command line is being read, and what it has given so far. */
class CommandLineReader {
  readonly line: CommandLine = {
    given: new Map(),
    items: [],
    unknown: [],
    help: false,
    version: false,
    agentCommand: false,
  };
  index = 0;
  afterDashDash = false;
  promptStarted = false;
  /** A prompt given before `--` makes everything after it the agent's, as earlier versions did. */
  passthroughAfterDashDash = false;

  constructor(
    readonly argv: readonly string[],
    readonly strict: boolean,
  ) {}

  next(): string | undefined {
    return this.argv[this.index + 1];
  }

  takeNext(): string {
    this.index += 1;
    return this.argv[this.index]!;
  }

  missing(name: string): void {
    if (this.strict) throw new UsageError(`${name} needs a value`);
  }

  pushAgent(flag: AgentFlag | undefined, tokens: string[], value: string | undefined): void {
    this.line.items.push({ kind: "agent", argument: { flag, tokens, value } });
    if (flag) noteRole(this.line.given, flag, value);
    else this.line.unknown.push(...tokens);
  }

  /** Whether the agent's flag may be given here (some only after `--`). */
  usable(flag: AgentFlag | undefined): flag is AgentFlag {
    return flag !== undefined && (!flag.afterDashDashOnly || this.afterDashDash);
  }

  /** An agent flag by its long name; returns false if `name` is not one. */
  agentLong(arg: string, name: string, inline: string | undefined): boolean {
    const flag = agentFlagByLong(name);
    if (!this.usable(flag)) return false;
    if (flag.arity === "none") this.pushAgent(flag, [arg], undefined);
    else if (inline !== undefined) this.pushAgent(flag, [arg], inline);
    else if (flag.arity === "optional") {
      const following = this.next();
      if (following !== undefined && !following.startsWith("-")) {
        this.pushAgent(flag, [arg, following], this.takeNext());
      } else this.pushAgent(flag, [arg], undefined);
    } else if (this.next() !== undefined) {
      const value = this.takeNext();
      this.pushAgent(flag, [arg, value], value);
    } else this.missing(`--${name}`);
    return true;
  }

  /** A group of one-letter flags (`-pf`, `-mgpt-5`); returns false if the first is unknown. */
  agentShort(arg: string): boolean {
    const letters = arg.slice(1);
    if (!this.usable(agentFlagByShort(letters[0]!))) return false;
    for (let at = 0; at < letters.length; at += 1) {
      const letter = letters[at]!;
      const flag = agentFlagByShort(letter);
      const rest = letters.slice(at + 1);
      if (!this.usable(flag)) {
        // An unknown letter within a group: the rest goes to the agent as it is.
        this.pushAgent(undefined, [`-${letters.slice(at)}`], undefined);
        return true;
      }
      const token = at === 0 ? arg : `-${letter}`;
      if (flag.arity === "none") {
        this.pushAgent(flag, [at === 0 && rest === "" ? arg : `-${letter}`], undefined);
        continue;
      }
      const following = this.next();
      if (rest !== "") this.pushAgent(flag, [`-${letter}${rest}`], rest);
      else if (
        following !== undefined &&
        (flag.arity !== "optional" || !following.startsWith("-"))
      ) {
        const value = this.takeNext();
        this.pushAgent(flag, [token, value], value);
      } else if (flag.arity === "optional") this.pushAgent(flag, [token], undefined);
      else this.missing(`-${letter}`);
      return true;
    }
    return true;
  }

  /** The words so far begin with one of the agent's subcommands (`status`, `mcp list`). */
  inAgentSubcommand(): boolean {
    return startsWithAgentSubcommand(this.line);
  }

  /** An argument after `--`: the agent's flag, the agent's (passed through), or the prompt. */
  afterDashDashArgument(arg: string): void {
    // After `--` a word with a space in it is a prompt, never a flag (`-- "-x is wrong"`).
    const flagLike = arg.startsWith("-") && arg !== "-" && !/\s/.test(arg.split("=", 1)[0]!);
    if ((!this.promptStarted || this.passthroughAfterDashDash) && flagLike) {
      const long = /^--([^=]+)(?:=(.*))?$/s.exec(arg);
      if (long ? this.agentLong(arg, long[1]!, long[2]) : this.agentShort(arg)) return;
    }
    if (this.passthroughAfterDashDash) {
      this.pushAgent(undefined, [arg], undefined);
      return;
    }
    this.promptStarted = true;
    this.line.items.push({ kind: "word", token: arg, afterDashDash: true });
  }

  /** A `--name` before `--`: help, version, the agent's flag, cursor-wrap's, or someone else's. */
  longFlag(arg: string): void {
    const long = /^--([^=]+)(?:=(.*))?$/s.exec(arg)!;
    const name = long[1]!;
    const inline = long[2];
    if ((name === "help" || name === "version") && this.inAgentSubcommand()) {
      // `status --help`: the agent's own help for its subcommand.
      this.pushAgent(undefined, [arg], inline);
    } else if (name === "help") this.line.help = true;
    else if (name === "version") this.line.version = true;
    else if (this.agentLong(arg, name, inline)) return;
    else {
      const taken = takeFlag(ownByLong, this.line.given, this.argv, this.index, this.strict);
      if (taken !== undefined) {
        this.index = taken;
        return;
      }
      const suggestion = suggestFlag(name, OWN_NAMES);
      if (this.strict && suggestion !== undefined) {
        throw new UsageError(
          `unknown option --${name} (did you mean --${suggestion}?); a prompt that starts with - goes after --`,
        );
      }
      // Someone else's flag: the agent's, newer than this table. `--foo=bar` keeps its value.
      this.pushAgent(undefined, [arg], inline);
    }
  }
}

/**
 * Take a run command line apart (R-CLI1b): cursor-wrap's own flags into `given`; the agent's
 * flags (by its table, with their arity: none, a value, an optional value, repeatable) and the
 * words, in order, into `items`. Values are kept exactly as typed, never converted. An unknown
 * flag close to one of cursor-wrap's own is an error with a suggestion; any other is the
 * agent's (`--foo=bar` keeps its value, a bare `--foo` is a switch). After `--`: when a prompt
 * came before it, everything is the agent's, unchanged (`… "fix it" -- --new-flag`); otherwise
 * the agent's own flags still reach it (`-- --list-models`) and from the first other argument
 * on, the rest is the prompt, so a prompt may start with `-` (`-- "-x is broken"`).
 */
export function parseCommandLine(argv: readonly string[], options: ParseOptions = {}): CommandLine {
  const reader = new CommandLineReader(argv, options.strict ?? true);
  const { line } = reader;
  for (; reader.index < argv.length; reader.index += 1) {
    const arg = argv[reader.index]!;
    if (reader.afterDashDash) reader.afterDashDashArgument(arg);
    else if (arg === "--") {
      reader.afterDashDash = true;
      reader.passthroughAfterDashDash = line.items.some((item) => item.kind === "word");
    } else if (arg.startsWith("--")) reader.longFlag(arg);
    else if (arg.startsWith("-") && arg.length > 1 && !/^-\d/.test(arg)) {
      if ((arg === "-h" || arg === "-v") && reader.inAgentSubcommand()) {
        reader.pushAgent(undefined, [arg], undefined);
      } else if (arg === "-h") line.help = true;
      else if (arg === "-v") line.version = true;
      else if (!reader.agentShort(arg)) reader.pushAgent(undefined, [arg], undefined);
    } else if (arg === "agent" && !line.agentCommand && !line.items.some(isWord)) {
      line.agentCommand = true;
    } else line.items.push({ kind: "word", token: arg, afterDashDash: false });
  }
  return line;
}

const isWord = (item: CommandLineItem): boolean => item.kind === "word";

/** The words begin with one of the agent's subcommands (`status`, `mcp list`), not a prompt. */
function startsWithAgentSubcommand(line: CommandLine): boolean {
  if (line.agentCommand) return false;
  const first = line.items.find(isWord);
  return first?.kind === "word" && !first.afterDashDash && AGENT_SUBCOMMANDS.has(first.token);
}

/** The words of a command line (the prompt, or a subcommand and its arguments). */
export function wordsOf(line: CommandLine): string[] {
  return line.items.flatMap((item) => (item.kind === "word" ? [item.token] : []));
}

/** The agent arguments of a command line, in order. */
export function agentArgumentsOf(line: CommandLine): AgentArgument[] {
  return line.items.flatMap((item) => (item.kind === "agent" ? [item.argument] : []));
}

/**
 * What the command line asks the agent to do by itself, if anything: a subcommand (`status`,
 * `login`, `mcp list`, …) or an info flag (`--list-models`). Such runs are the agent's own
 * business: run it directly.
 */
export function agentCommandOf(line: CommandLine): string | undefined {
  if (startsWithAgentSubcommand(line)) return wordsOf(line)[0];
  const info = agentArgumentsOf(line).find((argument) => argument.flag?.role === "info");
  return info ? info.tokens[0] : undefined;
}

/**
 * The arguments for running the agent directly: everything the user gave it, in order,
 * without cursor-wrap's own flags (with `--` before a prompt that followed one).
 */
export function directArgs(line: CommandLine): string[] {
  const args: string[] = line.agentCommand ? ["agent"] : [];
  let dashDashWritten = false;
  for (const item of line.items) {
    if (item.kind === "agent") args.push(...item.argument.tokens);
    else {
      if (item.afterDashDash && !dashDashWritten) {
        args.push("--");
        dashDashWritten = true;
      }
      args.push(item.token);
    }
  }
  return args;
}
