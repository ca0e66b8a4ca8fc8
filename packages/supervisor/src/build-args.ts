/** What {@link buildArgs} puts on cursor-agent's command line. */
export interface AgentArgsOptions {
  /** Session to resume (`--resume <id>`). */
  resume?: string;
  /** Pass `--force` (allow commands without asking). Default true. */
  force?: boolean;
  /** `--model <model>`. */
  model?: string;
  /** `--workspace <dir>`. */
  workspace?: string;
  /** Arguments given after `--` on the wrapper's command line, passed verbatim. */
  passthrough?: readonly string[];
}

/**
 * cursor-agent's arguments for one headless turn (R-SUP1): always `--print --output-format
 * stream-json`, then `--resume`, `--force`, `--model`, `--workspace`, then the pass-through
 * arguments unchanged. The prompt is not an argument: it goes to stdin.
 */
export function buildArgs(options: AgentArgsOptions = {}): string[] {
  const args = ["--print", "--output-format", "stream-json"];
  if (options.resume) args.push("--resume", options.resume);
  if (options.force ?? true) args.push("--force");
  if (options.model) args.push("--model", options.model);
  if (options.workspace) args.push("--workspace", options.workspace);
  args.push(...(options.passthrough ?? []));
  return args;
}
