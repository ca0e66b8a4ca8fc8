import { closeSync, lstatSync, openSync, readdirSync, readSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_RETENTION_MS } from "./defaults.js";
import { parseLogFileName, stampOfName, startStamp } from "./file-names.js";

export { DEFAULT_RETENTION_MS };

/** Options for {@link pruneLogs}. */
export interface PruneOptions {
  /** Logs whose last write is older than this are deleted, ms; flagged logs live twice as long. */
  retentionMs: number;
  /** Wall clock, epoch ms. Default `Date.now()`. */
  now?: number;
}

/** How much of a log's head and tail is read to tell whether its writer still runs. */
const PROBE_BYTES = 4_096;

function readAt(fd: number, position: number, length: number): string {
  const buffer = Buffer.alloc(length);
  const read = readSync(fd, buffer, 0, length, position);
  return buffer.subarray(0, read).toString("utf8");
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is someone else's.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Whether another process may still be writing this log: its `session_start` names a pid
 * that is alive, and it has no `session_end` yet. (A live pid may be a reused one: the log
 * is then kept until that process ends too, which errs on the side of keeping it.)
 */
function heldByLiveWriter(path: string, size: number): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const head = readAt(fd, 0, Math.min(size, PROBE_BYTES));
    const first = JSON.parse(head.split("\n", 1)[0]!) as { msg?: unknown; pid?: unknown };
    const pid = first.msg === "session_start" ? first.pid : undefined;
    if (typeof pid !== "number" || !Number.isSafeInteger(pid) || pid <= 0) return false;
    if (!isAlive(pid)) return false;
    const tail = readAt(fd, Math.max(0, size - PROBE_BYTES), Math.min(size, PROBE_BYTES));
    return !tail.trimEnd().split("\n").pop()!.includes('"msg":"session_end"');
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Delete old session logs (R-LOG7): anything last written more than `retentionMs` ago, or
 * twice that for logs flagged by a hang, linger, budget or error. Files that are not
 * cursor-wrap logs are never touched, and neither is a log another live cursor-wrap is still
 * writing (however short the retention). A log whose name says it began within the retention
 * is kept without being looked at (it cannot have been last written before it began). Returns
 * the deleted paths.
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
  // A log is last written no earlier than it began, and its name says when that was, in a form
  // that sorts as time does: one that began within the retention is kept without parsing its
  // name or looking at the file. At start-up that is nearly every log in the directory, and
  // parsing and a stat of each cost start-up time (P6, BENCHMARKS.md). A name that is not a
  // log's may pass this test too: such files are never touched anyway.
  const cutoff = now - options.retentionMs;
  const recentFrom = Number.isFinite(cutoff) && cutoff >= 0 ? startStamp(cutoff) : undefined;
  for (const name of names) {
    if (recentFrom !== undefined && stampOfName(name) >= recentFrom) continue;
    const parsed = parseLogFileName(name);
    if (!parsed) continue;
    const keep = parsed.tags.includes("flagged") ? options.retentionMs * 2 : options.retentionMs;
    if (now - parsed.startedAt <= keep) continue;
    const path = join(dir, name);
    try {
      // Only the log files themselves: a symlink is never followed (its target could be anywhere).
      const stats = lstatSync(path);
      if (!stats.isFile()) continue;
      const age = now - stats.mtimeMs;
      if (age > keep && !heldByLiveWriter(path, stats.size)) {
        unlinkSync(path);
        deleted.push(path);
      }
    } catch {
      // removed meanwhile by another invocation
    }
  }
  return deleted;
}
