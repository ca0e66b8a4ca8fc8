import { AGENT_FLAGS, type AgentArgument } from "./agent-flags.js";
import { type CommandInput, resolveOptions, rowsOf } from "./flag-table.js";
import { FLAGS } from "./flags.js";
import type { RunOptions } from "./run-options.js";

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
  const { print } = resolveOptions(rowsOf(FLAGS, ["print"]), input);
  const options = resolveOptions(FLAGS, input, { print });
  const agentArguments = [...(input.agentArguments ?? [])];
  // A blank prompt is none, as cursor-agent takes it: `… | cursor-wrap -p ""` reads stdin.
  const words = input.words?.join(" ") ?? "";
  const prompt = words.trim() === "" ? undefined : words;
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
