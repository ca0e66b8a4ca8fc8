import type { MonitorOptions } from "@cursor-wrap/monitor";
import { closest, distance } from "fastest-levenshtein";
import { UsageError } from "../usage-error.js";
import { AGENT_FLAGS } from "./agent-flags.js";
import type { AgentArgument } from "./command-line.js";
import {
  type DefaultContext,
  defaultOf,
  envName,
  FLAGS,
  type FlagDefinition,
  flagFor,
  parseBoolean,
} from "./flags.js";
import type { FlagKey, RunOptions } from "./run-options.js";

/** What the command line said of a flag: the text of its last value, or true/false for a switch. */
export type GivenValue = string | boolean;

/** Where a value came from, for messages: `--idle-timeout`, `CURSOR_WRAP_IDLE_TIMEOUT`. */
export interface Resolved<Value> {
  value: Value;
  source: string | undefined;
}

/**
 * The value of one flag, by precedence (R-CLI1): the command line, then its variable
 * `CURSOR_WRAP_<FLAG>` (or `CURSOR_WRAP_NO_<FLAG>` for a negatable switch), then its default.
 */
export function resolveFlag<Key extends FlagKey>(
  definition: FlagDefinition<Key>,
  given: GivenValue | undefined,
  env: NodeJS.ProcessEnv,
  context: DefaultContext,
): Resolved<RunOptions[Key]> {
  const switchFlag = definition.placeholder === undefined;
  if (given !== undefined) {
    const source = `--${definition.name}`;
    if (typeof given === "boolean") {
      if (!switchFlag) throw new UsageError(`${source} needs a value`);
      return { value: given as RunOptions[Key], source };
    }
    return { value: definition.parse(given, source), source };
  }
  const variable = envName(definition.name);
  const fromEnv = env[variable];
  if (fromEnv !== undefined)
    return { value: definition.parse(fromEnv, variable), source: variable };
  const negated = envName(`no-${definition.name}`);
  if (definition.negated !== undefined && env[negated] !== undefined) {
    return {
      value: !parseBoolean(env[negated] ?? "", negated) as RunOptions[Key],
      source: negated,
    };
  }
  return { value: defaultOf(definition, context), source: undefined };
}

/** What a command was given, before flags, variables and defaults are combined. */
export interface CommandInput {
  /** Flags found on the command line (before `--`), by long name. */
  given: ReadonlyMap<string, GivenValue>;
  env: NodeJS.ProcessEnv;
}

/** The options a command takes (named by key), each resolved by {@link resolveFlag}. */
export function resolveOptions<Key extends FlagKey>(
  keys: readonly Key[],
  input: CommandInput,
  context: DefaultContext = { print: false },
): Pick<RunOptions, Key> {
  const options = {} as Pick<RunOptions, Key>;
  for (const key of keys) {
    const definition = flagFor(key);
    options[key] = resolveFlag(
      definition,
      input.given.get(definition.name),
      input.env,
      context,
    ).value;
  }
  return options;
}

/**
 * The options among `keys` that the command line or a variable sets (not the defaults): for
 * commands that have defaults of their own to fall back on first (`replay` of a session log
 * uses the thresholds the log recorded).
 */
export function givenOptions<Key extends FlagKey>(
  keys: readonly Key[],
  input: CommandInput,
): Partial<Pick<RunOptions, Key>> {
  const options: Partial<Pick<RunOptions, Key>> = {};
  for (const key of keys) {
    const definition = flagFor(key);
    const resolved = resolveFlag(definition, input.given.get(definition.name), input.env, {
      print: false,
    });
    if (resolved.source !== undefined) options[key] = resolved.value;
  }
  return options;
}

/** What the run command was given. */
export interface RunInput extends CommandInput {
  /** The words of the command line: the prompt, joined by spaces. */
  words?: readonly string[];
  /** The agent's own flags as the user gave them, in order. */
  agentArguments?: readonly AgentArgument[];
}

/**
 * Resolve every run option (R-CLI1) from the flag table: each value is validated once, here,
 * by its flag's parser. `-p` is resolved first, since other defaults depend on it.
 */
export function resolveRunOptions(input: RunInput): RunOptions {
  const { print } = resolveOptions(["print"], input);
  const options = resolveOptions(
    FLAGS.map((definition) => definition.key),
    input,
    { print },
  );
  const agentArguments = [...(input.agentArguments ?? [])];
  let prompt: string | undefined;
  if (input.words?.length) {
    prompt = input.words.join(" ");
    if (!prompt.trim()) throw new UsageError("the prompt is empty");
  }
  return {
    ...options,
    agentArguments,
    agentArgumentsFromEnv: agentFlagsFromEnv(agentArguments, input.env),
    prompt,
  };
}

/**
 * Agent flags that cursor-wrap variables supply (`CURSOR_WRAP_MODEL`, `CURSOR_WRAP_WORKSPACE`)
 * when the command line does not give them.
 */
function agentFlagsFromEnv(given: readonly AgentArgument[], env: NodeJS.ProcessEnv): string[] {
  const args: string[] = [];
  for (const flag of AGENT_FLAGS) {
    const value = flag.env === undefined ? undefined : env[flag.env];
    if (value === undefined || value === "") continue;
    if (given.some((argument) => argument.flag === flag)) continue;
    args.push(`--${flag.name}`, value);
  }
  return args;
}

/** The options that set the monitor's thresholds: the run command's, and `replay`'s too. */
export const MONITOR_KEYS = [
  "idleTimeoutMs",
  "toolGraceMs",
  "toolTimeouts",
  "exitGraceMs",
  "maxTurnMs",
  "firstOutputMs",
  "maxQuietMs",
  "maxDrainMs",
  "backgroundWaitMs",
] as const satisfies readonly FlagKey[];

/** The monitor's thresholds, as options. */
export type MonitorThresholds = Pick<RunOptions, (typeof MONITOR_KEYS)[number]>;

/** The monitor's thresholds as the options set them (a live turn and `replay` alike). */
export function monitorOptions(options: MonitorThresholds): MonitorOptions {
  return {
    idleTimeoutMs: options.idleTimeoutMs,
    toolGraceMs: options.toolGraceMs,
    exitGraceMs: options.exitGraceMs,
    toolTimeouts: options.toolTimeouts,
    firstOutputMs: options.firstOutputMs,
    backgroundWaitMs: options.backgroundWaitMs,
    // Quiet but working (R-MON11): `--max-quiet 0` leaves silence alone to decide.
    ...(options.maxQuietMs > 0
      ? { liveness: { maxQuietMs: options.maxQuietMs, maxDrainMs: options.maxDrainMs } }
      : {}),
    ...(options.maxTurnMs === undefined ? {} : { maxTurnMs: options.maxTurnMs }),
  };
}

/** The closest known flag to an unknown one, for "did you mean". */
export function suggestFlag(unknown: string, known: readonly string[]): string | undefined {
  const target = unknown.replace(/^-+/, "");
  const best = closest(target, [...known]);
  return best && distance(target, best) <= Math.max(2, Math.floor(target.length / 3))
    ? best
    : undefined;
}
