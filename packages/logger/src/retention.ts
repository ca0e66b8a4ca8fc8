import { lstatSync, readdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { parseLogFileName } from "./file-names.js";

/** How long session logs are kept by default: 7 days (flagged ones twice as long), ms. */
export const DEFAULT_RETENTION_MS = 7 * 86_400_000;

/** Options for {@link pruneLogs}. */
export interface PruneOptions {
  /** Logs whose last write is older than this are deleted, ms; flagged logs live twice as long. */
  retentionMs: number;
  /** Wall clock, epoch ms. Default `Date.now()`. */
  now?: number;
}

/**
 * Delete old session logs (R-LOG7): anything last written more than `retentionMs` ago, or
 * twice that for logs flagged by a hang, linger, budget or error. Files that are not
 * cursor-wrap logs are never touched. Returns the deleted paths.
 */
export function pruneLogs(dir: string, options: PruneOptions): string[] {
  const now = options.now ?? Date.now();
  const deleted: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return deleted;
  }
  for (const name of names) {
    const parsed = parseLogFileName(name);
    if (!parsed) continue;
    const path = join(dir, name);
    try {
      // Only the log files themselves: a symlink is never followed (its target could be anywhere).
      const stats = lstatSync(path);
      if (!stats.isFile()) continue;
      const age = now - stats.mtimeMs;
      const keep = parsed.tags.includes("flagged") ? options.retentionMs * 2 : options.retentionMs;
      if (age > keep) {
        unlinkSync(path);
        deleted.push(path);
      }
    } catch {
      // removed meanwhile by another invocation
    }
  }
  return deleted;
}
