// The flags of `cursor-wrap acp`: the run's rows it takes (a prompt turn under ACP is watched as
// a print-mode turn is), each with what it means under ACP where that differs.

import { type AgentFlag, agentFlagByLong, agentFlagByShort } from "../../options/agent-flags.js";
import { type FlagDefinition, type OptionsOf, rowsOf } from "../../options/flag-table.js";
import { FLAGS } from "../../options/flags.js";
import { MONITOR_FLAGS } from "../../options/monitor-options.js";

/**
 * What the run flags mean under `acp`, where that is not what they mean for a print-mode turn:
 * the time an agent gets to finish after it was told to stop is the grace after
 * `session/cancel`; the retries after hangs are restarts of the agent; setup requests wait for
 * MCP servers to start, as a print-mode run's first output does.
 */
const UNDER_ACP: Readonly<Record<string, string>> = {
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

const underAcp = <Row extends FlagDefinition>(row: Row): Row => {
  const description = UNDER_ACP[row.key];
  return description === undefined ? row : { ...row, description };
};

/** Every flag of `cursor-wrap acp`: the monitor's thresholds, then the agent's and the log's. */
export const ACP_FLAGS = [
  ...MONITOR_FLAGS,
  ...rowsOf(FLAGS, [
    "killGraceMs",
    "drainGraceMs",
    "maxHangRetries",
    "agentBin",
    "logDir",
    "logLevel",
    "logRetentionMs",
    "redact",
    "parseCap",
  ]),
].map(underAcp);

/** The options of `cursor-wrap acp`, resolved from {@link ACP_FLAGS}. */
export type AcpFlagOptions = OptionsOf<typeof ACP_FLAGS>;

/**
 * `cursor-wrap acp`'s arguments apart: its own, and cursor-agent's flags given with it
 * (`cursor-wrap --api-key KEY acp`, `acp -H "X-Team: t"`, as an editor's config passes them to
 * `cursor-agent acp`), which go to the agent before its `acp`. Anything else stays with the
 * command's own (an unknown option is an error there). Nothing after `--` is looked at.
 */
export function splitAcpArguments(args: readonly string[]): { own: string[]; agent: string[] } {
  const own: string[] = [];
  const agent: string[] = [];
  const ownTakesValue = new Map<string, boolean>();
  for (const row of ACP_FLAGS) {
    ownTakesValue.set(row.name, row.placeholder !== undefined);
    if (row.negated !== undefined) ownTakesValue.set(`no-${row.name}`, false);
  }
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index]!;
    if (arg === "--") {
      own.push(...args.slice(index));
      break;
    }
    const long = /^--([^=]+)(=.*)?$/s.exec(arg);
    if (long) {
      const name = long[1]!;
      const ownValue = ownTakesValue.get(name);
      const flag = ownValue === undefined ? agentsOwn(agentFlagByLong(name)) : undefined;
      const into = flag ? agent : own;
      into.push(arg);
      const takes = flag ? takesValue(flag.arity, args[index + 1]) : ownValue === true;
      if (takes && long[2] === undefined && index + 1 < args.length) into.push(args[++index]!);
      continue;
    }
    const flag = /^-[^-]/.test(arg) ? agentsOwn(agentFlagByShort(arg[1]!)) : undefined;
    if (!flag) {
      own.push(arg);
      continue;
    }
    agent.push(arg);
    // `-H value` (a value attached, `-HX:1`, is one word).
    if (arg.length === 2 && takesValue(flag.arity, args[index + 1])) agent.push(args[++index]!);
  }
  return { own, agent };
}

/** Whether an agent flag of `arity` takes `next` for its value (never the command's name). */
function takesValue(arity: AgentFlag["arity"], next: string | undefined): boolean {
  if (next === undefined || arity === "none") return false;
  return arity !== "optional" || (!next.startsWith("-") && next !== "acp");
}

/** An agent flag that is only the agent's after `--` (`--help`, `-v`) is the command's own here. */
function agentsOwn(flag: AgentFlag | undefined): AgentFlag | undefined {
  return flag?.afterDashDashOnly === true ? undefined : flag;
}
