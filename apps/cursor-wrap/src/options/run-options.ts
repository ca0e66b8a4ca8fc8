import type { AgentArgument } from "./agent-flags.js";
import type { OptionsOf } from "./flag-table.js";
import type { FLAGS } from "./flags.js";

/** The options the run's flag table sets: one field per row of `FLAGS`, typed by its parser. */
export type RunFlagOptions = OptionsOf<typeof FLAGS>;

/**
 * Everything a run needs, resolved from flags, environment and defaults: each field but the
 * last three is set by exactly one row of the flag table (`FLAGS` in `flags.ts`), which says
 * what it means.
 */
export interface RunOptions extends RunFlagOptions {
  /** The agent's own flags as the user gave them, in order (R-CLI1b). */
  agentArguments: AgentArgument[];
  /** Agent flags supplied by cursor-wrap variables (`CURSOR_WRAP_MODEL=…` → `--model …`). */
  agentArgumentsFromEnv: string[];
  /** The prompt given as arguments, if any. */
  prompt: string | undefined;
}

/** The fields the flag table sets. */
export type FlagKey = keyof RunFlagOptions;
