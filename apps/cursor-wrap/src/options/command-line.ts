import { UsageError } from "../usage-error.js";
import {
  AGENT_SUBCOMMANDS,
  type AgentFlag,
  agentFlagByLong,
  agentFlagByShort,
} from "./agent-flags.js";
import { type AnyFlag, FLAGS, parseBoolean } from "./flags.js";
import { type GivenValue, suggestFlag } from "./resolve.js";

/** A flag for the agent, as the user wrote it (one or two arguments), in the user's order. */
export interface AgentArgument {
  /** Its row in the agent's flag table; undefined for a flag cursor-wrap does not know. */
  flag: AgentFlag | undefined;
  /** The arguments exactly as given: `["-m", "gpt-5"]`, `["--resume=abc"]`, `["--foo"]`. */
  tokens: string[];
  /** Its value, if it took one. */
  value: string | undefined;
}

/** One piece of the command line, in order. */
export type CommandLineItem =
  | { kind: "agent"; argument: AgentArgument }
  /** A word that is not a flag: the prompt, or an agent subcommand and its arguments. */
  | { kind: "word"; token: string; afterDashDash: boolean };

/** A run command line, taken apart by the two flag tables. */
export interface CommandLine {
  /** cursor-wrap's own settings given on the command line, by flag name (the last one wins). */
  given: Map<string, GivenValue>;
  /** Agent flags and words, in the user's order. */
  items: CommandLineItem[];
  /** Flags the agent gets that are in no table (passed on, for forward compatibility). */
  unknown: string[];
  /** `-h`/`--help` before `--`. */
  help: boolean;
  /** `-v`/`--version` before `--`. */
  version: boolean;
}

const ownByLong = new Map<string, { definition: AnyFlag; negated: boolean }>();
for (const definition of FLAGS) {
  ownByLong.set(definition.name, { definition, negated: false });
  if (definition.negated !== undefined)
    ownByLong.set(`no-${definition.name}`, { definition, negated: true });
}
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
  const strict = options.strict ?? true;
  const line: CommandLine = {
    given: new Map(),
    items: [],
    unknown: [],
    help: false,
    version: false,
  };
  let afterDashDash = false;
  let promptStarted = false;
  // A prompt given before `--` makes everything after it the agent's, as earlier versions did.
  let passthroughAfterDashDash = false;
  let index = 0;

  const next = (): string | undefined => argv[index + 1];
  const takeNext = (): string => {
    index += 1;
    return argv[index]!;
  };
  const missing = (name: string): never | undefined => {
    if (strict) throw new UsageError(`${name} needs a value`);
    return undefined;
  };
  const pushAgent = (flag: AgentFlag | undefined, tokens: string[], value: string | undefined) => {
    line.items.push({ kind: "agent", argument: { flag, tokens, value } });
    if (flag) noteRole(line.given, flag, value);
    else line.unknown.push(...tokens);
  };

  /** An agent flag by its long name; returns false if `name` is not one. */
  const agentLong = (arg: string, name: string, inline: string | undefined): boolean => {
    const flag = agentFlagByLong(name);
    if (!flag || (flag.afterDashDashOnly && !afterDashDash)) return false;
    if (flag.arity === "none") {
      pushAgent(flag, [arg], undefined);
    } else if (inline !== undefined) {
      pushAgent(flag, [arg], inline);
    } else if (flag.arity === "optional") {
      const following = next();
      if (following !== undefined && !following.startsWith("-")) {
        pushAgent(flag, [arg, following], takeNext());
      } else pushAgent(flag, [arg], undefined);
    } else if (next() !== undefined) {
      const value = takeNext();
      pushAgent(flag, [arg, value], value);
    } else missing(`--${name}`);
    return true;
  };

  /** A group of one-letter flags (`-pf`, `-mgpt-5`); returns false if the first is unknown. */
  const agentShort = (arg: string): boolean => {
    const letters = arg.slice(1);
    const first = agentFlagByShort(letters[0]!);
    if (!first || (first.afterDashDashOnly && !afterDashDash)) return false;
    for (let at = 0; at < letters.length; at += 1) {
      const letter = letters[at]!;
      const flag = agentFlagByShort(letter);
      const rest = letters.slice(at + 1);
      if (!flag || (flag.afterDashDashOnly && !afterDashDash)) {
        // An unknown letter within a group: the rest goes to the agent as it is.
        pushAgent(undefined, [`-${letters.slice(at)}`], undefined);
        return true;
      }
      const token = at === 0 ? arg : `-${letter}`;
      if (flag.arity === "none") {
        pushAgent(flag, [at === 0 && rest === "" ? arg : `-${letter}`], undefined);
        continue;
      }
      if (rest !== "") {
        pushAgent(flag, [`-${letter}${rest}`], rest);
      } else if (next() !== undefined && (flag.arity !== "optional" || !next()!.startsWith("-"))) {
        const value = takeNext();
        pushAgent(flag, [token, value], value);
      } else if (flag.arity === "optional") {
        pushAgent(flag, [token], undefined);
      } else missing(`-${letter}`);
      return true;
    }
    return true;
  };

  /** One of cursor-wrap's own flags; returns false if `name` is not one. */
  const own = (name: string, inline: string | undefined): boolean => {
    const entry = ownByLong.get(name);
    if (!entry) return false;
    const { definition, negated } = entry;
    const source = `--${name}`;
    if (definition.placeholder === undefined) {
      const on = inline === undefined ? true : parseBoolean(inline, source);
      line.given.set(definition.name, negated ? !on : on);
      return true;
    }
    if (inline !== undefined) line.given.set(definition.name, inline);
    else if (next() !== undefined) line.given.set(definition.name, takeNext());
    else missing(source);
    return true;
  };

  for (; index < argv.length; index += 1) {
    const arg = argv[index]!;
    if (afterDashDash) {
      // After `--` a word with a space in it is a prompt, never a flag (`-- "-x is wrong"`).
      const flagLike = arg.startsWith("-") && arg !== "-" && !/\s/.test(arg.split("=", 1)[0]!);
      if ((!promptStarted || passthroughAfterDashDash) && flagLike) {
        const long = /^--([^=]+)(?:=(.*))?$/s.exec(arg);
        if (long ? agentLong(arg, long[1]!, long[2]) : agentShort(arg)) continue;
      }
      if (passthroughAfterDashDash) {
        pushAgent(undefined, [arg], undefined);
        continue;
      }
      promptStarted = true;
      line.items.push({ kind: "word", token: arg, afterDashDash: true });
      continue;
    }
    if (arg === "--") {
      afterDashDash = true;
      passthroughAfterDashDash = line.items.some((item) => item.kind === "word");
      continue;
    }
    if (arg.startsWith("--")) {
      const long = /^--([^=]+)(?:=(.*))?$/s.exec(arg)!;
      const name = long[1]!;
      const inline = long[2];
      if (name === "help") line.help = true;
      else if (name === "version") line.version = true;
      else if (!agentLong(arg, name, inline) && !own(name, inline)) {
        const suggestion = suggestFlag(name, OWN_NAMES);
        if (strict && suggestion !== undefined) {
          throw new UsageError(
            `unknown option --${name} (did you mean --${suggestion}?); a prompt that starts with - goes after --`,
          );
        }
        // Someone else's flag: the agent's, newer than this table. `--foo=bar` keeps its value.
        pushAgent(undefined, [arg], inline);
      }
      continue;
    }
    if (arg.startsWith("-") && arg.length > 1 && !/^-\d/.test(arg)) {
      if (arg === "-h") line.help = true;
      else if (arg === "-v") line.version = true;
      else if (!agentShort(arg)) pushAgent(undefined, [arg], undefined);
      continue;
    }
    line.items.push({ kind: "word", token: arg, afterDashDash: false });
  }
  return line;
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
  const first = line.items.find((item) => item.kind === "word");
  if (first?.kind === "word" && !first.afterDashDash && AGENT_SUBCOMMANDS.has(first.token)) {
    return first.token;
  }
  const info = agentArgumentsOf(line).find((argument) => argument.flag?.role === "info");
  return info ? info.tokens[0] : undefined;
}

/**
 * The arguments for running the agent directly: everything the user gave it, in order,
 * without cursor-wrap's own flags (with `--` before a prompt that followed one).
 */
export function directArgs(line: CommandLine): string[] {
  const args: string[] = [];
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
