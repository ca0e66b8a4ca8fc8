import { realpathSync } from "node:fs";

const VERSION_IN_PATH = /[\\/]versions[\\/]([^\\/]+)[\\/]/;

/**
 * The version of the agent at `bin`, from where the installer put it: `~/.local/bin/cursor-agent`
 * links to `…/cursor-agent/versions/<version>/cursor-agent`. Read at every turn (a symlink is
 * cheap to follow), so a background update between turns shows. Undefined for a binary
 * installed elsewhere; running `--version` instead would cost a process start per turn.
 */
export function agentVersionOf(bin: string): string | undefined {
  try {
    return VERSION_IN_PATH.exec(realpathSync(bin))?.[1];
  } catch {
    return undefined;
  }
}
