import { closeSync, fstatSync, openSync } from "node:fs";
import { isatty } from "node:tty";

/**
 * Lets cursor-wrap end with its own exit code when its terminal was closed under it.
 *
 * At exit, Node restores the terminal settings of every standard descriptor that was a
 * terminal at start-up, and Node 20 aborts when that fails, as it does on a terminal that has
 * hung up (EIO): the process ends with SIGABRT/SIGSEGV and a native stack trace instead of 129
 * (nodejs/node#51519, fixed in #58200 for later versions). Node skips descriptors that no longer
 * refer to the file they did at start-up, so on exit each standard descriptor whose terminal is
 * gone is pointed at /dev/null first. A terminal that is still there is left alone.
 */
export function releaseHungUpTerminalAtExit(host: NodeJS.Process = process): void {
  if (host.platform === "win32") return;
  const terminals = [0, 1, 2].filter((fd) => isatty(fd));
  if (terminals.length === 0) return;
  const devices = new Map(terminals.map((fd) => [fd, fstatSync(fd).rdev]));
  host.once("exit", () => {
    for (const fd of terminals) {
      // A hung-up terminal no longer answers as one; the descriptor still refers to it.
      if (isatty(fd)) continue;
      try {
        if (fstatSync(fd).rdev !== devices.get(fd)) continue;
        closeSync(fd);
        openSync("/dev/null", "r+"); // the lowest free descriptor: the one just closed
      } catch {
        // Nothing more can be done for it; Node's own check decides.
      }
    }
  });
}
