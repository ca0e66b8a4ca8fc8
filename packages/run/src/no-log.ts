import type { SessionLog } from "@cursor-wrap/logger";

/**
 * A session log that keeps nothing, for a run asked for no log: the run writes its records
 * the same way either way, so the turn loop has one path. Its `path` is empty, which is how
 * the turn knows not to point MCP proxies at a log directory.
 */
export function discardingLog(): SessionLog {
  const nothing = (): void => {};
  return {
    path: "",
    incomplete: false,
    raw: nothing,
    rawAll: nothing,
    beginChunk: nothing,
    endChunk: nothing,
    stderr: nothing,
    stderrAll: nothing,
    decision: nothing,
    debug: nothing,
    debugRecord: nothing,
    info: nothing,
    warn: nothing,
    error: nothing,
    setConsoleLevel: nothing,
    setSessionId: nothing,
    flag: nothing,
    close: nothing,
  };
}
