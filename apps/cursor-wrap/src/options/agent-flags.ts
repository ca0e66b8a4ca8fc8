// cursor-agent's own command line, so cursor-wrap can stand in for it (R-CLI1b, R-CLI1c).
//
// Source: Cursor's CLI parameter reference (cursor.com/docs/cli/reference/parameters: "Global
// options" and "Commands"), `agent --help` of CLI 2026.09 as quoted in published probes, and
// the CLI changelog for 2026 (`--auto-review`, `--add-dir`, `--plugin-dir`, `-e/--endpoint`,
// `--auth-token`, `--resume=-N`, `--disable-auto-update`; `-c/--cloud` removed in mid-2026 and
// kept here for older installs). cursor-agent parses with commander: an option's value may be
// the next argument or follow `=` (long) or the letter (short); an optional value is taken
// only when the next argument does not start with `-`.
//
// To add a flag: one row below. Flags that are not here still reach the agent (forward
// compatibility); a row gives them their arity, so their value is never mistaken for the
// prompt, and marks secrets to redact in the log.

/** How a flag takes its value. */
export type Arity =
  /** A switch: `--trust`. */
  | "none"
  /** Always a value: `--model gpt-5`, `--model=gpt-5`, `-m gpt-5`, `-mgpt-5`. */
  | "value"
  /** A value if the next argument is not a flag: `--resume`, `--resume <id>`, `--resume=<id>`. */
  | "optional"
  /** A value, and the flag may be given many times: `-H "A: b" -H "C: d"`. */
  | "repeatable";

/** What cursor-wrap itself makes of a flag besides passing it on. */
export type AgentFlagRole =
  /** `-p`: cursor-wrap's print mode. The agent always gets `--print` from cursor-wrap. */
  | "print"
  /** Decides cursor-wrap's rendering; the agent always gets `--output-format stream-json`. */
  | "output-format"
  /** Which session the first turn resumes; later turns resume the session the agent announced. */
  | "resume"
  /** Allows commands without asking: cursor-wrap passes `--force` unless one of these is given. */
  | "force"
  /** Makes the agent print something and exit: run it directly, not as a supervised turn. */
  | "info"
  /** The model: replaced when the recovery policy switches to a fallback model. */
  | "model"
  /** Credentials: left out while an auth profile supplies its own (`--auth-profile`). */
  | "credential"
  /** Where and how the agent signs in (`-e`, `-H`): also given to `status` after a sign-in failure. */
  | "connection";

/** One flag of cursor-agent. */
export interface AgentFlag {
  /** Long name without dashes: `model`. */
  name: string;
  short?: string;
  /** Other long names for the same flag: `yolo` for `force`. */
  aliases?: readonly string[];
  arity: Arity;
  description: string;
  role?: AgentFlagRole;
  /** Its value is a secret: redacted in the log. */
  secret?: boolean;
  /** A cursor-wrap variable that supplies the flag when the command line does not: `CURSOR_WRAP_MODEL`. */
  env?: string;
  /** Where it is only reachable after `--` (its name is also one of cursor-wrap's own). */
  afterDashDashOnly?: boolean;
}

/** A flag for the agent, as the user wrote it (one or two arguments), in the user's order. */
export interface AgentArgument {
  /** Its row in the agent's flag table; undefined for a flag cursor-wrap does not know. */
  flag: AgentFlag | undefined;
  /** The arguments exactly as given: `["-m", "gpt-5"]`, `["--resume=abc"]`, `["--foo"]`. */
  tokens: string[];
  /** Its value, if it took one. */
  value: string | undefined;
}

/** cursor-agent's flags (see the source note at the top of this file). */
export const AGENT_FLAGS: readonly AgentFlag[] = [
  {
    name: "print",
    short: "p",
    arity: "none",
    role: "print",
    description: "Print mode: one prompt, then exit",
  },
  {
    name: "output-format",
    arity: "value",
    role: "output-format",
    description: "text, json or stream-json (with --print)",
  },
  { name: "stream-partial-output", arity: "none", description: "Stream text deltas (stream-json)" },
  {
    name: "resume",
    arity: "optional",
    role: "resume",
    description: "Resume a chat (the latest without an id; -N: the Nth latest)",
  },
  {
    name: "continue",
    arity: "none",
    role: "resume",
    description: "Resume the latest chat (--resume=-1)",
  },
  {
    name: "model",
    short: "m",
    arity: "value",
    role: "model",
    env: "CURSOR_WRAP_MODEL",
    description: "Model to use",
  },
  { name: "mode", arity: "value", description: "plan or ask (agent is the default)" },
  { name: "plan", arity: "none", description: "Shorthand for --mode plan" },
  {
    name: "list-models",
    arity: "none",
    role: "info",
    description: "List available models and exit",
  },
  {
    name: "api-key",
    arity: "value",
    role: "credential",
    secret: true,
    description: "API key (or CURSOR_API_KEY)",
  },
  {
    name: "auth-token",
    arity: "value",
    role: "credential",
    secret: true,
    description: "Authentication token",
  },
  {
    name: "header",
    short: "H",
    arity: "repeatable",
    role: "connection",
    secret: true,
    description: "Custom request header (repeatable)",
  },
  {
    name: "endpoint",
    short: "e",
    arity: "value",
    role: "connection",
    description: "API endpoint",
  },
  {
    name: "force",
    short: "f",
    aliases: ["yolo"],
    arity: "none",
    role: "force",
    description: "Allow commands unless explicitly denied",
  },
  { name: "sandbox", arity: "value", description: "enabled or disabled" },
  { name: "trust", arity: "none", description: "Trust the workspace without prompting" },
  { name: "approve-mcps", arity: "none", description: "Approve all MCP servers" },
  { name: "auto-review", arity: "none", description: "Review changes automatically" },
  {
    name: "workspace",
    arity: "value",
    env: "CURSOR_WRAP_WORKSPACE",
    description: "Workspace directory",
  },
  {
    name: "add-dir",
    arity: "repeatable",
    description: "Another directory the agent may use (repeatable)",
  },
  { name: "plugin-dir", arity: "repeatable", description: "Load plugins from a directory" },
  {
    name: "worktree",
    short: "w",
    arity: "optional",
    description: "Run in an isolated git worktree",
  },
  { name: "worktree-base", arity: "value", description: "Branch or ref to base the worktree on" },
  {
    name: "skip-worktree-setup",
    arity: "none",
    description: "Skip .cursor/worktrees.json scripts",
  },
  { name: "name", short: "n", arity: "value", description: "Name of the chat" },
  {
    name: "disable-auto-update",
    arity: "none",
    description: "Do not update the CLI in the background",
  },
  {
    name: "cloud",
    short: "c",
    arity: "none",
    description: "Cloud agent mode (CLI versions before mid-2026)",
  },
  {
    name: "help",
    short: "h",
    arity: "none",
    role: "info",
    afterDashDashOnly: true,
    description: "The agent's help",
  },
  {
    name: "version",
    short: "v",
    arity: "none",
    role: "info",
    afterDashDashOnly: true,
    description: "The agent's version",
  },
];

/**
 * cursor-agent's subcommands: run directly, terminal inherited, output and exit code unchanged
 * (R-CLI1c). `mcp proxy|wrap|unwrap|status|run` are cursor-wrap's own (see MCP_OWN_SUBCOMMANDS);
 * any other `mcp …` is the agent's. `acp` is cursor-wrap's own too: it runs the agent's `acp`
 * behind the ACP watchdog.
 */
export const AGENT_SUBCOMMANDS: ReadonlySet<string> = new Set([
  // From `cursor-agent --help` (2026.04–2026.08) and Cursor's CLI changelog. A word taken for a
  // subcommand that the agent does not have reaches it unsupervised, as it would without
  // cursor-wrap; one taken for a prompt would run a turn with --force instead of the command.
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
  "help",
  "generate-rule",
  "rule",
  "plugin",
  "worker",
  "bedrock",
  "sandbox",
  "team",
  "env",
]);

/** The `mcp` subcommands that belong to cursor-wrap (its MCP watchdog); the rest go to the agent. */
export const MCP_OWN_SUBCOMMANDS: ReadonlySet<string> = new Set([
  "proxy",
  "wrap",
  "unwrap",
  "status",
  "run",
]);

const byLong = new Map<string, AgentFlag>();
const byShort = new Map<string, AgentFlag>();
for (const flag of AGENT_FLAGS) {
  byLong.set(flag.name, flag);
  for (const alias of flag.aliases ?? []) byLong.set(alias, flag);
  if (flag.short) byShort.set(flag.short, flag);
}

/** The agent flag with this long name (or alias), if any. */
export function agentFlagByLong(name: string): AgentFlag | undefined {
  return byLong.get(name);
}

/** The agent flag with this one-letter name, if any. */
export function agentFlagByShort(letter: string): AgentFlag | undefined {
  return byShort.get(letter);
}

/** Header names whose values are credentials. */
const SECRET_HEADER =
  /^\s*(authorization|proxy-authorization|x-api-key|api-key|cookie|x-auth-token)\s*:/i;

/**
 * The arguments as they may be logged: values of secret flags (`--api-key`, `--auth-token`,
 * credential headers such as `-H "Authorization: …"`) replaced, in both the `--flag value` and
 * the `--flag=value` forms.
 */
export function redactAgentArgs(args: readonly string[]): string[] {
  return mapSecretValues(args, redactValue);
}

/**
 * The secrets agent arguments hold, as values: `--api-key`'s, `--auth-token`'s and a credential
 * header's (`-H "Authorization: Bearer …"`, with and without its scheme), for the log to redact
 * wherever the agent repeats them.
 */
export function agentFlagSecrets(args: readonly string[]): string[] {
  const secrets: string[] = [];
  mapSecretValues(args, (flag, value) => {
    if (flag.name !== "header") secrets.push(value);
    else if (SECRET_HEADER.test(value)) {
      const credential = value.slice(value.indexOf(":") + 1).trim();
      secrets.push(credential, credential.replace(/^[A-Za-z]+\s+/, ""));
    }
    return value;
  });
  return secrets;
}

/** `args` with the value of each secret flag given to `replace`, and replaced by what it gives. */
function mapSecretValues(
  args: readonly string[],
  replace: (flag: AgentFlag, value: string) => string,
): string[] {
  const mapped: string[] = [];
  let secretNext: AgentFlag | undefined;
  for (const arg of args) {
    if (secretNext) {
      mapped.push(replace(secretNext, arg));
      secretNext = undefined;
      continue;
    }
    const long = /^--([^=]+)(?:=(.*))?$/s.exec(arg);
    const shortMatch = /^-([A-Za-z])(.*)$/s.exec(arg);
    const flag = long
      ? agentFlagByLong(long[1]!)
      : shortMatch
        ? agentFlagByShort(shortMatch[1]!)
        : undefined;
    if (!flag?.secret) {
      mapped.push(arg);
      continue;
    }
    if (long && long[2] !== undefined) mapped.push(`--${long[1]}=${replace(flag, long[2])}`);
    else if (shortMatch?.[2]) mapped.push(`-${shortMatch[1]}${replace(flag, shortMatch[2])}`);
    else {
      mapped.push(arg);
      secretNext = flag;
    }
  }
  return mapped;
}

function redactValue(flag: AgentFlag, value: string): string {
  if (flag.name !== "header") return "[REDACTED]";
  const colon = value.indexOf(":");
  return SECRET_HEADER.test(value) ? `${value.slice(0, colon + 1)} [REDACTED]` : value;
}
