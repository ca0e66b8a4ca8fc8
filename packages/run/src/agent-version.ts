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

/**
 * The newest cursor-agent version cursor-wrap was tested against: the CLI whose wording,
 * flags and stream the recognisers, the flag table and the notes on its output were checked
 * with (`agent --version` printed `2026.09.10-fd3934a`). A newer agent is noted once, never
 * refused.
 */
export const NEWEST_TESTED_AGENT_VERSION = "2026.09.10";

/** The date part of a cursor-agent version (`2026.01.28-fd13201` → [2026, 1, 28]). */
function versionDate(version: string): number[] | undefined {
  const match = /^(\d{4})\.(\d{1,2})\.(\d{1,2})/.exec(version.trim());
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

/**
 * Whether `version` is newer than `than` (default {@link NEWEST_TESTED_AGENT_VERSION}), by the
 * date cursor-agent's versions start with; the build hash after it has no order. A version
 * that is not `YYYY.MM.DD…` is not known to be newer.
 */
export function isNewerAgentVersion(
  version: string,
  than: string = NEWEST_TESTED_AGENT_VERSION,
): boolean {
  const a = versionDate(version);
  const b = versionDate(than);
  if (!a || !b) return false;
  for (let index = 0; index < 3; index += 1) {
    if (a[index]! !== b[index]!) return a[index]! > b[index]!;
  }
  return false;
}
