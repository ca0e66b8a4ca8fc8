// The CLI's exit codes are the run's (`@cursor-wrap/run` decides them from how a run ended);
// what the CLI adds is how `--help` lists them. From the light entry: `--help` loads this file.
export {
  type Ending,
  EXIT,
  endingFlags,
  exitCodeOf,
  signalExitCode,
} from "@cursor-wrap/run/ending";

/** The exit codes as `--help` lists them (the README's table, shorter). */
export const EXIT_CODES_HELP = [
  "  0    the turn completed (also when a lingering agent was killed after its result);",
  "       interactive: end of input (Ctrl+D)",
  "  1    error: the agent could not start, exited without a result, reported an auth, plan or",
  "       quota failure, or its result said is_error; bad usage; stdout closed or failing",
  "  2    a hang or a turn budget overrun that retries did not recover",
  "  129  SIGHUP: the terminal was closed",
  "  130  SIGINT: Ctrl+C (during a -p turn, or at an empty prompt)",
  "  131  SIGQUIT: Ctrl+\\",
  "  143  SIGTERM",
  "       On a signal the agent's process tree is killed first.",
  "After a hang or an error, how to resume (cursor-wrap --resume <id>) is in the output: the",
  "resume field of the wrapper line that ends stream-json or json, or the text rendering;",
  "otherwise (the answer alone to a pipe, an is_error result) one `resume with:` line on stderr.",
].join("\n");
