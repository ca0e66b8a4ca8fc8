import { constants } from "node:os";

// No import of @cursor-wrap/run (its signalExitCode): this module loads with every command,
// `--version` and `--help` included, which load none of the libraries.

/**
 * The signals that stop cursor-wrap (and that each command handles while it runs): Ctrl+C,
 * SIGTERM, a closed terminal, Ctrl+\.
 */
export const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"] as const;

/** The parts of `process` the hold listens to and acts on (injectable for tests). */
export type ExitSignalHost = Pick<NodeJS.Process, "on" | "listenerCount" | "exit">;

/** Lets the executable say when its exit code is decided. */
export interface ExitSignals {
  /** The command is over and returned `code`: a stop signal from now on exits with it at once. */
  decide(code: number): void;
}

/**
 * Keeps a stop signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT) that no command handles from killing the
 * process: it ends with an exit code of its own instead, at once.
 *
 * A command handles these signals while it runs and stops listening when it is over; the
 * process then still flushes its output and exits. Without a listener a signal in that window
 * takes the default action and the process dies by it, whatever exit code was decided and
 * logged: closing a terminal does exactly that, as its SIGHUP often comes twice (the kernel's
 * hangup of the session leader, and the terminal's own), and a wrapper that had recorded its
 * exit code 129 was reported killed by SIGHUP (node-pty reads that as exit code 0). Installed
 * before any command runs, so the signals are never left to their default action in between.
 *
 * While a command listens, the hold leaves the signal to it. Otherwise the process exits with
 * the decided exit code, or, before there is one, with the signal's own (128 + its number, the
 * code a shell reports for a process the signal ended).
 */
export function holdExitSignals(host: ExitSignalHost = process): ExitSignals {
  let decided: number | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (decided !== undefined) {
      host.exit(decided);
      return;
    }
    // Another listener is the running command's: the signal is its to handle.
    if (host.listenerCount(signal) > 1) return;
    host.exit(128 + constants.signals[signal]);
  };
  for (const signal of STOP_SIGNALS) host.on(signal, onSignal);
  return {
    decide(code) {
      decided = code;
    },
  };
}
