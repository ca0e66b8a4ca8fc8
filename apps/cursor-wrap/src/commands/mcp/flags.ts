// The flags of `cursor-wrap mcp …`, in the same shape as the run's and resolved by the same
// function. Loaded by `--help`: nothing here loads the proxy. The proxy's settings have no
// default here: `@cursor-wrap/mcp` applies its own (`MCP_DEFAULTS`), once; help shows them
// (flags.test.ts holds the two equal).

import {
  flag,
  type GivenValue,
  type OptionsOf,
  parseBoolean,
  rowsOf,
} from "../../options/flag-table.js";
import {
  FLAGS,
  optionalText,
  positiveDurationOrOff,
  positiveSize,
  showDurationOrOff,
  showOnOff,
} from "../../options/flags.js";
import { parseToolTimeouts, showDuration } from "../../options/units.js";

const [logDir] = rowsOf(FLAGS, ["logDir"]);

/** A `<tool=duration,...>` list as help shows it. */
const showToolTimeouts = (timeouts: Record<string, number>): string =>
  Object.entries(timeouts)
    .map(([tool, ms]) => `${tool}=${showDurationOrOff(ms)}`)
    .join(",") || "none";

/** Every flag of `cursor-wrap mcp <action>`; the description says which actions take it. */
export const MCP_FLAGS = [
  flag({
    key: "serverId",
    name: "server-id",
    placeholder: "<name>",
    description: "proxy: the server's name in errors and logs",
    parse: optionalText,
    default: undefined,
    show: () => "its command",
    env: false,
  }),
  flag({
    key: "requestTimeoutMs",
    name: "request-timeout",
    placeholder: "<duration>",
    description: "proxy: time a request has to be answered (off: none)",
    parse: (value, source): number | undefined => positiveDurationOrOff(value, source),
    default: undefined,
    show: () => showDuration(300_000),
    env: false,
  }),
  flag({
    key: "toolTimeouts",
    name: "tool-timeout",
    list: true,
    placeholder: "<tool=duration,...>",
    description:
      "proxy: time a tools/call of this tool (by name) has to be answered, instead of --request-timeout",
    parse: parseToolTimeouts,
    default: (): Record<string, number> => ({}),
    show: showToolTimeouts,
    env: false,
  }),
  flag({
    key: "initTimeoutMs",
    name: "init-timeout",
    placeholder: "<duration>",
    description: "proxy: time initialize has to be answered (off: none)",
    parse: (value, source): number | undefined => positiveDurationOrOff(value, source),
    default: undefined,
    show: () => showDuration(60_000),
    env: false,
  }),
  flag({
    key: "maxRequestTimeMs",
    name: "max-request-time",
    placeholder: "<duration>",
    description: "proxy: the most any request may take, progress or not (off: none)",
    parse: (value, source): number | undefined => positiveDurationOrOff(value, source),
    default: undefined,
    show: () => showDuration(30 * 60_000),
    env: false,
  }),
  flag({
    key: "maxLineBytes",
    name: "max-line",
    placeholder: "<size>",
    description: "proxy: longer lines pass through unparsed",
    parse: (value, source): number | undefined => positiveSize(value, source),
    default: undefined,
    show: () => "64MiB",
    env: false,
  }),
  { ...logDir!, description: "proxy: where its log goes" },
  flag({
    key: "originalWithoutArgs",
    name: "original-without-args",
    description: "proxy: written by wrap (the original entry had no args)",
    parse: parseBoolean,
    default: false,
    show: showOnOff,
    env: false,
  }),
  flag({
    key: "client",
    name: "client",
    placeholder: "<name>",
    description:
      "wrap/unwrap/status/run: whose configs: cursor, claude-code, claude-desktop, vscode, windsurf, zed",
    parse: optionalText,
    default: undefined,
    show: () => "cursor; status: all; run: told by the command",
    env: false,
  }),
  flag({
    key: "config",
    name: "config",
    placeholder: "<file>",
    description: "wrap/unwrap/status/run: this config file",
    parse: optionalText,
    default: undefined,
    show: () => "the client's",
    env: false,
  }),
  flag({
    key: "global",
    name: "global",
    description:
      "wrap/unwrap/status: only the client's user config (~/.cursor/mcp.json for Cursor); without it and --project, the user's and the project's",
    parse: parseBoolean,
    default: false,
    show: showOnOff,
    env: false,
  }),
  flag({
    key: "project",
    name: "project",
    placeholder: "<dir>",
    description: "wrap/unwrap/status/run: the configs of this project",
    parse: optionalText,
    default: undefined,
    show: () => "the current directory's",
    env: false,
  }),
  flag({
    key: "dryRun",
    name: "dry-run",
    description: "wrap/unwrap: print the change as a diff and write nothing",
    parse: parseBoolean,
    default: false,
    show: showOnOff,
    env: false,
  }),
];

/** The options of `cursor-wrap mcp …`, resolved from {@link MCP_FLAGS}. */
export type McpFlagOptions = OptionsOf<typeof MCP_FLAGS>;

/** What `cursor-wrap mcp <action>` is given: its table's options, and the command line's rest. */
export interface McpOptions extends McpFlagOptions {
  action: string;
  /** After `--`: the server's command and arguments (`proxy`), the agent's (`run`). */
  command: string[];
  /** The proxy's settings as given, for `wrap` and `run` to write into each entry. */
  proxyFlags: string[];
}

/** The flags `wrap` and `mcp run` write into each entry they wrap, for its proxy. */
const PROXY_SETTINGS: readonly McpFlagKey[] = [
  "requestTimeoutMs",
  "toolTimeouts",
  "initTimeoutMs",
  "maxRequestTimeMs",
];

type McpFlagKey = keyof McpFlagOptions;

/**
 * The proxy's settings given on the command line, as given (`--request-timeout 2m`): what
 * `wrap` and `mcp run` write into each entry. Resolving the table has checked them.
 */
export function proxyFlagsOf(given: ReadonlyMap<string, GivenValue>): string[] {
  return MCP_FLAGS.filter((row) => PROXY_SETTINGS.includes(row.key)).flatMap((row) => {
    const text = given.get(row.name);
    return typeof text === "string" ? [`--${row.name}`, text] : [];
  });
}

/** What `mcp --help` lists before its options: each action and what it does. */
export const MCP_ACTIONS_HELP = [
  "  proxy [options] -- <server command...>  Run a stdio MCP server behind the watchdog: a request",
  "                                          with no answer in time gets an error, and the server",
  "                                          goes on",
  "  wrap [options]                          Rewrite an MCP client's config (--client: Cursor,",
  "                                          Claude, VS Code, Windsurf, Zed) so every stdio server",
  "                                          runs through the proxy (--dry-run shows the change)",
  "  unwrap [options]                        Give every wrapped entry its own command back (one",
  "                                          wrapped by hand with `mcp proxy` too)",
  "  status [options]                        Each server, and whether it is wrapped",
  "  run [options] -- <agent command...>     Wrap the agent's MCP configs for one session, and",
  "                                          give them back when it ends",
  "Any other `mcp …` (list, list-tools, login, …) is cursor-agent's own and runs cursor-agent.",
].join("\n");
