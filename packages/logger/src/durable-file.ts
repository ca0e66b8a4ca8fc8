import {
  closeSync,
  existsSync,
  fsync,
  fsyncSync,
  ftruncateSync,
  linkSync,
  renameSync,
  unlinkSync,
  writeSync,
  writevSync,
} from "node:fs";

/** Routine records share one fsync at most this long after the first of them, ms. */
const SYNC_SOON_MS = 50;
/** Heavy output is flushed to disk in the background every this many bytes. */
const BACKGROUND_SYNC_BYTES = 8 * 1024 * 1024;

/** Options for {@link createDurableFile}. */
export interface DurableFileOptions {
  /** An open file descriptor (the file is owned from now on). */
  fd: number;
  path: string;
  /** fsync at all. Default true. */
  fsync?: boolean;
  /** Called once, at the first failed write or fsync (disk full, …). */
  onFirstFailure?: (error: unknown) => void;
}

/**
 * An append-only file written with synchronous `write(2)`/`writev(2)` calls and no user-space
 * buffer, so a crash of the process loses nothing already written (R-LOG4). Writes never
 * throw: a failed one cuts the file back to the last whole record and marks it incomplete.
 */
export interface DurableFile {
  readonly path: string;
  /** A write or fsync failed: records are missing. */
  readonly incomplete: boolean;
  readonly failedWrites: number;
  /** Bytes written to it. */
  readonly size: number;
  /** Write whole records with one system call. */
  write(parts: readonly Buffer[]): void;
  /** fsync now (urgent records: verdicts, kills, the end). */
  syncNow(): void;
  /** fsync within 50 ms, off the event loop, together with whatever else comes meanwhile. */
  syncSoon(): void;
  /**
   * Rename the file, never over another file (another instance may have taken the name);
   * returns false (and keeps the old name) when that fails.
   */
  rename(next: string): boolean;
  /** fsync and close. Later writes are ignored. */
  close(): void;
}

/**
 * Rename `from` to `to` unless `to` exists: a hard link fails with EEXIST where `rename(2)`
 * would replace. On a file system without hard links, checks first (a small race).
 */
export function renameNoReplace(from: string, to: string): boolean {
  try {
    linkSync(from, to);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST" || code === "ENOENT") return false;
    try {
      if (existsSync(to)) return false;
      renameSync(from, to);
      return true;
    } catch {
      return false;
    }
  }
  try {
    unlinkSync(from);
  } catch {
    // the old name lingers beside the new one; both are the same file
  }
  return true;
}

/** Take ownership of `fd` and write records to it durably (see {@link DurableFile}). */
export function createDurableFile(options: DurableFileOptions): DurableFile {
  const { fd } = options;
  const shouldFsync = options.fsync ?? true;
  let path = options.path;
  let size = 0;
  let unsynced = 0;
  let incomplete = false;
  let failedWrites = 0;
  let closed = false;
  let syncTimer: ReturnType<typeof setTimeout> | undefined;
  let syncing = false;
  let closeWhenSynced = false;

  const failed = (error: unknown): void => {
    failedWrites += 1;
    // A partial record would leave a line that is not JSON: cut the file back to the last whole record.
    try {
      ftruncateSync(fd, size);
    } catch {
      // the file stays as it is; readers skip a damaged last line
    }
    if (incomplete) return;
    incomplete = true;
    options.onFirstFailure?.(error);
  };

  const syncNow = (): void => {
    if (!shouldFsync || closed) return;
    if (syncTimer) clearTimeout(syncTimer);
    syncTimer = undefined;
    unsynced = 0;
    try {
      fsyncSync(fd);
    } catch (error) {
      failed(error);
    }
  };

  // Routine records (a tool call opened or closed) share one fsync at most SYNC_SOON_MS later,
  // run off the event loop: thousands of tool calls must not cost thousands of blocking fsyncs,
  // each flushing everything streamed since the last one. write(2) has already made the records
  // safe from a crash of the process; the fsync is about a crash of the machine.
  const syncSoon = (): void => {
    if (!shouldFsync || closed || syncTimer || syncing) return;
    syncTimer = setTimeout(() => {
      syncTimer = undefined;
      if (closed) return;
      syncing = true;
      unsynced = 0;
      fsync(fd, () => {
        syncing = false;
        if (closeWhenSynced) closeSync(fd);
      });
    }, SYNC_SOON_MS);
    syncTimer.unref?.();
  };

  return {
    get path() {
      return path;
    },
    get incomplete() {
      return incomplete;
    },
    get failedWrites() {
      return failedWrites;
    },
    get size() {
      return size;
    },

    write(parts) {
      if (closed || parts.length === 0) return;
      try {
        let total = 0;
        for (let index = 0; index < parts.length; index += 1) total += parts[index]!.length;
        const written = parts.length === 1 ? writeSync(fd, parts[0]!) : writevSync(fd, [...parts]);
        if (written !== total) throw Object.assign(new Error("short write"), { code: "ENOSPC" });
        size += written;
        // Flush heavy output to disk as it goes, off the event loop, so the fsync at the end
        // (and the ones of urgent records) only has the last few megabytes left to write.
        unsynced += written;
        if (unsynced >= BACKGROUND_SYNC_BYTES) syncSoon();
      } catch (error) {
        failed(error);
      }
    },

    syncNow,
    syncSoon,

    rename(next) {
      if (renameNoReplace(path, next)) {
        path = next;
        return true;
      }
      return false;
    },

    close() {
      if (closed) return;
      syncNow();
      closed = true;
      if (syncing) {
        // An fsync is running on another thread: close the descriptor when it is done.
        closeWhenSynced = true;
        return;
      }
      try {
        closeSync(fd);
      } catch {
        // already unusable: nothing more to do
      }
    },
  };
}
