// The shape every command's flag table has, and the one resolver of a table: the command line,
// then the flag's `CURSOR_WRAP_*` variable, then its default. Each command states its own table
// (`options/flags.ts` for a run, `commands/<name>/flags.ts` for the others); nothing here knows
// any flag.

import type { MonitorOptions } from "@cursor-wrap/monitor";
import { closest, distance } from "fastest-levenshtein";
import { UsageError } from "../usage-error.js";

/** Where a flag is listed in `--help`. */
export type FlagGroup = "mode" | "detection" | "recovery" | "agent" | "logs" | "operations";

/** What a default may depend on: whether the run is `-p`. */
export interface DefaultContext {
  print: boolean;
}

/** A monitor option a flag can feed: a field of `MonitorOptions`, or of its `liveness`. */
export type MonitorPath =
  | Exclude<keyof MonitorOptions, "liveness" | "now" | "startedAt">
  | `liveness.${keyof NonNullable<MonitorOptions["liveness"]>}`;

/** The type of the monitor option at a path. */
export type MonitorValue<Path extends MonitorPath> =
  Path extends `liveness.${infer Field extends keyof NonNullable<MonitorOptions["liveness"]>}`
    ? NonNullable<MonitorOptions["liveness"]>[Field]
    : Path extends keyof MonitorOptions
      ? MonitorOptions[Path]
      : never;

/**
 * A row whose values the monitor option it names cannot take does not type-check. (Such a row's
 * parser must not be context-sensitive: an arrow function types its parameters.)
 */
type FitsMonitor<Value, Monitor> = Monitor extends MonitorPath
  ? [Value] extends [MonitorValue<Monitor> | undefined]
    ? unknown
    : { monitor: never }
  : unknown;

/** One flag of a command: its names, how its text becomes a value, its default and help. */
export interface FlagDefinition<
  Key extends string = string,
  Value = unknown,
  Monitor extends MonitorPath | undefined = MonitorPath | undefined,
> {
  /** The option it sets. */
  key: Key;
  /** Long name without dashes: `idle-timeout`. */
  name: string;
  short?: string;
  /** Where the run's `--help` lists it. */
  group?: FlagGroup;
  description: string;
  /** Help placeholder of a flag that takes a value (`<duration>`); a switch has none. */
  placeholder?: string;
  /** Text (from the command line or a variable) to value; throws a UsageError naming `source`. */
  parse(text: string, source: string): Value;
  /** The value when neither the flag nor its variable is given (of the parser's type). */
  default: NoInfer<Value> | ((context: DefaultContext) => NoInfer<Value>);
  /** How a value reads in help. Default: `String(value)`. */
  show?(value: NoInfer<Value>): string;
  /** A switch that is on by default and has a `--no-<name>` form, which does this (for help). */
  negated?: string;
  /** The variable that sets it when the command line does not; `false`: none. Default: {@link envName}. */
  env?: string | false;
  /** The monitor option the value feeds (the run, `acp` and `replay` build the monitor's options from these). */
  monitor?: Monitor;
  /**
   * A comma list: given more than once on the command line, its values join
   * (`--tool-timeout a=1s --tool-timeout b=2s` is `a=1s,b=2s`); any other flag's last one wins.
   */
  list?: true;
}

/** A flag table: the rows of one command, in help order. */
export type FlagTable = readonly FlagDefinition[];

/** The value a row sets. */
export type FlagValue<Row> = Row extends { parse(text: string, source: string): infer Value }
  ? Value
  : never;

/** The options a table sets, by key: what resolving it gives. */
export type OptionsOf<Table extends FlagTable> = {
  [Row in Table[number] as Row["key"]]: FlagValue<Row>;
};

/**
 * A row, typed by its key and by what its parser returns (the table's type then says what every
 * option is); its default and help must fit that type.
 */
export const flag = <
  const Key extends string,
  const Value,
  const Monitor extends MonitorPath | undefined = undefined,
>(
  definition: FlagDefinition<Key, Value, Monitor> & FitsMonitor<Value, Monitor>,
): FlagDefinition<Key, Value, Monitor> => definition;

/** The rows of a table that feed a monitor option. */
export type MonitorRow<Row> =
  Row extends FlagDefinition<string, unknown, infer Monitor>
    ? Monitor extends MonitorPath
      ? Row
      : never
    : never;

/** The rows of `table` whose keys are `keys`, in the table's order. */
export function rowsOf<Table extends FlagTable, Key extends Table[number]["key"]>(
  table: Table,
  keys: readonly Key[],
): Extract<Table[number], { key: Key }>[] {
  return table.filter((row) => (keys as readonly string[]).includes(row.key)) as Extract<
    Table[number],
    { key: Key }
  >[];
}

/** The environment variable of a flag: `CURSOR_WRAP_<FLAG_IN_CAPS>`. */
export function envName(name: string): string {
  return `CURSOR_WRAP_${name.toUpperCase().replace(/-/g, "_")}`;
}

/** The variable a row reads, if any. */
export function variableOf(row: FlagDefinition): string | undefined {
  return row.env === false ? undefined : (row.env ?? envName(row.name));
}

/** `true`/`false` (and `1`/`0`, `yes`/`no`, `on`/`off`) as a boolean. */
export function parseBoolean(text: string, source: string): boolean {
  if (/^(1|true|yes|on)$/i.test(text)) return true;
  if (/^(0|false|no|off|)$/i.test(text)) return false;
  throw new UsageError(`${source} must be true or false, not ${JSON.stringify(text)}`);
}

/** What the command line said of a flag: the text of its last value, or true/false for a switch. */
export type GivenValue = string | boolean;

/** Where a value came from, for messages: `--idle-timeout`, `CURSOR_WRAP_IDLE_TIMEOUT`. */
export interface Resolved<Value> {
  value: Value;
  source: string | undefined;
}

/** The default of a flag in a context. */
export function defaultOf<Value>(
  definition: FlagDefinition<string, Value>,
  context: DefaultContext,
): Value {
  const value = definition.default;
  return typeof value === "function"
    ? (value as (context: DefaultContext) => Value)(context)
    : value;
}

/**
 * The value of one flag, by precedence (R-CLI1): the command line, then its variable
 * `CURSOR_WRAP_<FLAG>` (or `CURSOR_WRAP_NO_<FLAG>` for a negatable switch), then its default.
 */
export function resolveFlag<Value>(
  definition: FlagDefinition<string, Value>,
  given: GivenValue | undefined,
  env: NodeJS.ProcessEnv,
  context: DefaultContext,
): Resolved<Value> {
  const switchFlag = definition.placeholder === undefined;
  if (given !== undefined) {
    const source = `--${definition.name}`;
    if (typeof given === "boolean") {
      if (!switchFlag) throw new UsageError(`${source} needs a value`);
      return { value: given as Value, source };
    }
    return { value: definition.parse(given, source), source };
  }
  const variable = variableOf(definition);
  const fromEnv = variable === undefined ? undefined : env[variable];
  if (variable !== undefined && fromEnv !== undefined)
    return { value: definition.parse(fromEnv, variable), source: variable };
  const negated = envName(`no-${definition.name}`);
  if (variable !== undefined && definition.negated !== undefined && env[negated] !== undefined) {
    return { value: !parseBoolean(env[negated] ?? "", negated) as Value, source: negated };
  }
  return { value: defaultOf(definition, context), source: undefined };
}

/** What a command was given, before flags, variables and defaults are combined. */
export interface CommandInput {
  /** Flags found on the command line (before `--`), by long name. */
  given: ReadonlyMap<string, GivenValue>;
  env: NodeJS.ProcessEnv;
}

/** Every option of a table, each resolved by {@link resolveFlag}. */
export function resolveOptions<Table extends FlagTable>(
  table: Table,
  input: CommandInput,
  context: DefaultContext = { print: false },
): OptionsOf<Table> {
  const options: Record<string, unknown> = {};
  for (const row of table) {
    options[row.key] = resolveFlag(row, input.given.get(row.name), input.env, context).value;
  }
  return options as OptionsOf<Table>;
}

/**
 * The options of a table that the command line or a variable sets (not the defaults): for
 * commands that have defaults of their own to fall back on first (`replay` of a session log
 * uses the thresholds the log recorded; `mcp wrap` writes only the flags given).
 */
export function givenOptions<Table extends FlagTable>(
  table: Table,
  input: CommandInput,
): Partial<OptionsOf<Table>> {
  const options: Record<string, unknown> = {};
  for (const row of table) {
    const resolved = resolveFlag(row, input.given.get(row.name), input.env, {
      print: false,
    });
    if (resolved.source !== undefined) options[row.key] = resolved.value;
  }
  return options as Partial<OptionsOf<Table>>;
}

/** The closest known flag to an unknown one, for "did you mean". */
export function suggestFlag(unknown: string, known: readonly string[]): string | undefined {
  const target = unknown.replace(/^-+/, "");
  const best = closest(target, [...known]);
  return best && distance(target, best) <= Math.max(2, Math.floor(target.length / 3))
    ? best
    : undefined;
}

/** A table's rows by the names the command line may use (`--name`, `--no-name`). */
export function flagNames(
  table: FlagTable,
): Map<string, { definition: FlagDefinition; negated: boolean }> {
  const byName = new Map<string, { definition: FlagDefinition; negated: boolean }>();
  for (const definition of table) {
    byName.set(definition.name, { definition, negated: false });
    if (definition.negated !== undefined)
      byName.set(`no-${definition.name}`, { definition, negated: true });
  }
  return byName;
}

/**
 * Read one of a table's flags at `argv[index]` (`--name`, `--name=value`, `--name value`,
 * `--no-name`) into `given`. Returns the index of the last argument it took, or `undefined`
 * when `name` is not in the table. A missing value throws when `strict`, else is left out.
 */
export function takeFlag(
  byName: ReturnType<typeof flagNames>,
  given: Map<string, GivenValue>,
  argv: readonly string[],
  index: number,
  strict: boolean,
): number | undefined {
  const long = /^--([^=]+)(?:=(.*))?$/s.exec(argv[index]!);
  const entry = long ? byName.get(long[1]!) : undefined;
  if (!long || !entry) return undefined;
  const [, name, inline] = long;
  const { definition, negated } = entry;
  const source = `--${name}`;
  if (definition.placeholder === undefined) {
    const on = inline === undefined ? true : parseBoolean(inline, source);
    given.set(definition.name, negated ? !on : on);
    return index;
  }
  const value = inline ?? argv[index + 1];
  if (value === undefined) {
    if (strict) throw new UsageError(`${source} needs a value`);
    return index;
  }
  const earlier = given.get(definition.name);
  given.set(
    definition.name,
    definition.list && typeof earlier === "string" ? `${earlier},${value}` : value,
  );
  return inline === undefined ? index + 1 : index;
}

/** What a command line gives one of cursor-wrap's own commands. */
export interface CommandFlags {
  /** The table's flags given before `--`, by long name (the last one wins; a list's values join). */
  given: Map<string, GivenValue>;
  /** Everything after `--`, as given (`mcp proxy -- <server command>`). */
  afterDashDash: string[];
}

/**
 * The flags of `table` on a command line, before `--`, and what follows `--`. Other arguments
 * (the command's words, `--help`) are cac's: it has checked them before this runs.
 */
export function commandFlags(argv: readonly string[], table: FlagTable): CommandFlags {
  const byName = flagNames(table);
  const given = new Map<string, GivenValue>();
  const dashDash = argv.indexOf("--");
  const before = dashDash === -1 ? argv : argv.slice(0, dashDash);
  for (let index = 0; index < before.length; index += 1) {
    index = takeFlag(byName, given, before, index, true) ?? index;
  }
  return { given, afterDashDash: dashDash === -1 ? [] : argv.slice(dashDash + 1) };
}

/** The default as help shows it: `60s`; `stream-json with -p, text without` when it depends. */
export function defaultText(definition: FlagDefinition): string {
  const show = (value: unknown): string =>
    definition.show ? definition.show(value) : String(value);
  const printed = show(defaultOf(definition, { print: true }));
  const interactive = show(defaultOf(definition, { print: false }));
  return printed === interactive ? printed : `${printed} with -p, ${interactive} without`;
}

/** `-p, --print` / `--idle-timeout <duration>`: how cac declares the flag. */
export function flagSyntax(definition: FlagDefinition): string {
  const long = `--${definition.name}${definition.placeholder ? ` ${definition.placeholder}` : ""}`;
  return definition.short ? `-${definition.short}, ${long}` : long;
}

/** The flag's line in `--help`: what it does, its default and its variable. */
export function flagHelp(definition: FlagDefinition): string {
  const variable = variableOf(definition);
  const notes = [
    `default: ${defaultText(definition)}`,
    ...(variable === undefined ? [] : [`env ${variable}`]),
  ];
  return `${definition.description} (${notes.join("; ")})`;
}
