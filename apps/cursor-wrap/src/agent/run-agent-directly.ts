import { spawn } from "node:child_process";
import { AgentSpawnError } from "@cursor-wrap/supervisor";
import { signalExitCode } from "../exit-codes.js";
import { STOP_SIGNALS } from "../exit-signals.js";

/** The parts of `process` a direct run listens to (injectable for tests). */
export type SignalHost = Pick<NodeJS.Process, "on" | "off">;

/** Options for {@link runAgentDirectly}. */
export interface DirectRunOptions {
  /** The agent binary's path. */
  bin: string;
  args: readonly string[];
  env?: NodeJS.ProcessEnv;
  host?: SignalHost;
}

/**
 * Run the agent as it is, for its own subcommands and info flags (`status`, `login`,
 * `--list-models`, … R-CLI1c): the terminal is inherited (stdin, stdout and stderr are the
 * user's, so a login prompt or the agent's own interactive screen works), nothing is logged as
 * a turn, and the exit code is the agent's (128+n if a signal ended it). Ctrl+C and Ctrl+\
 * reach the agent from the terminal itself (a SIGINT or SIGQUIT sent to cursor-wrap alone is
 * not passed on); SIGTERM and SIGHUP sent to cursor-wrap are.
 */
export function runAgentDirectly(options: DirectRunOptions): Promise<number> {
  const host = options.host ?? process;
  return new Promise((resolve, reject) => {
    const child = spawn(options.bin, [...options.args], {
      stdio: "inherit",
      env: options.env ?? process.env,
    });
    // Ctrl+C and Ctrl+\ reach the agent from the terminal itself.
    const forward = (signal: NodeJS.Signals): void => {
      if (signal !== "SIGINT" && signal !== "SIGQUIT") child.kill(signal);
    };
    const signals = STOP_SIGNALS;
    for (const signal of signals) host.on(signal, forward);
    const done = (): void => {
      for (const signal of signals) host.off(signal, forward);
    };
    child.once("error", (error: NodeJS.ErrnoException) => {
      done();
      reject(new AgentSpawnError(options.bin, error.code, error.message, { cause: error }));
    });
    child.once("exit", (code, signal) => {
      done();
      resolve(signal ? signalExitCode(signal) : (code ?? 1));
    });
  });
}
