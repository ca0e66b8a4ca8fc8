// The flags of `cursor-wrap acp`: the run's rows it takes (a prompt turn under ACP is watched as
// a print-mode turn is), each with what it means under ACP where that differs.

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
