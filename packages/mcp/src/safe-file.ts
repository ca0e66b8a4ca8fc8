// Reading and writing other programs' config files without being turned against their owner
// (R-MCP8): nothing is opened through a link cursor-wrap did not create, nothing blocks on a
// FIFO, every file written is created exclusively under a fresh name, written in full and read
// back before it is moved into place, and a failure leaves the originals as they were.

import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fchownSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  readSync,
  renameSync,
  type Stats,
  unlinkSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { CursorWrapError } from "@cursor-wrap/errors";
import { describeError, kindOf } from "@cursor-wrap/wording";
import { McpConfigError } from "./config-error.js";

const { O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_RDONLY, O_RDWR } = constants;

/** The status of a path itself (a link is not followed), or undefined when there is nothing. */
export function statOf(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * Refuse a path that exists and is not a regular file: a planted link, FIFO or directory is
 * never written through, read from (a FIFO would block) or removed.
 */
export function refuseUnlessRegular(path: string, role: string, reference = path): void {
  let stats: Stats | undefined;
  try {
    stats = statOf(path);
  } catch (error) {
    throw new McpConfigError(reference, `cannot look at ${role} ${path}: ${describeError(error)}`, {
      cause: error,
    });
  }
  const kind = stats && kindOf(stats);
  if (kind !== undefined) {
    throw new McpConfigError(
      reference,
      `${role} ${path} is ${kind}, which cursor-wrap did not create and will not use; remove it if it is not yours, then try again`,
    );
  }
}

/** Most bytes read from a file a regular config file can be (larger ones are refused). */
const MAX_READ_BYTES = 64 * 1024 * 1024;

/**
 * Read a regular file: never through a link (`O_NOFOLLOW`), never blocking on a FIFO
 * (`O_NONBLOCK`), checked to be a regular file on the descriptor actually read.
 */
export function readRegularFile(path: string, role: string, limit = MAX_READ_BYTES): Buffer {
  let fd: number;
  try {
    fd = openSync(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "EISDIR") refuseUnlessRegular(path, role);
    throw new McpConfigError(path, `cannot read ${role} ${path}: ${describeError(error)}`, {
      cause: error,
    });
  }
  try {
    const stats = fstatSync(fd);
    const kind = kindOf(stats);
    if (kind !== undefined) {
      throw new McpConfigError(path, `${role} ${path} is ${kind}, not a file`);
    }
    if (stats.size > limit) {
      throw new McpConfigError(path, `${role} ${path} is ${stats.size} bytes, too large to be one`);
    }
    return readAll(fd, stats.size, limit);
  } catch (error) {
    if (McpConfigError.isInstance(error)) throw error;
    throw new McpConfigError(path, `cannot read ${role} ${path}: ${describeError(error)}`, {
      cause: error,
    });
  } finally {
    closeSync(fd);
  }
}

/** Read a descriptor from its start to its end (or `limit`). */
function readAll(fd: number, sizeHint: number, limit: number): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  let position = 0;
  for (;;) {
    const buffer = Buffer.alloc(Math.max(4_096, Math.min(sizeHint - total + 1, limit - total + 1)));
    const read = readSync(fd, buffer, 0, buffer.length, position);
    if (read === 0) break;
    chunks.push(buffer.subarray(0, read));
    total += read;
    position += read;
    if (total > limit) throw Object.assign(new Error("file too large"), { code: "EFBIG" });
  }
  return Buffer.concat(chunks, total);
}

/** Write every byte or throw: a short `write(2)` (a full disk) is never taken for success. */
function writeFully(fd: number, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) {
    const written = writeSync(fd, bytes, offset, bytes.length - offset, offset);
    if (written <= 0) throw Object.assign(new Error("short write"), { code: "ENOSPC" });
    offset += written;
  }
}

/** Read a descriptor back and compare it with what was written to it. */
function verifyContent(fd: number, bytes: Uint8Array): boolean {
  if (fstatSync(fd).size !== bytes.length) return false;
  const back = readAll(fd, bytes.length, bytes.length);
  return back.length === bytes.length && Buffer.compare(back, bytes) === 0;
}

/** Make a rename durable: fsync the directory holding it (best effort). */
function syncDirectory(directory: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(directory, O_RDONLY);
    fsyncSync(fd);
  } catch {
    // some file systems cannot fsync a directory: the rename itself has happened
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Options for {@link replaceFile}. */
export interface ReplaceOptions {
  /** Permission bits of the new file. */
  mode: number;
  /** Owner to give it (when this process may), so a config keeps belonging to its user. */
  owner?: { uid: number; gid: number };
  /** How the file is named in errors (`the config`, `the backup`). */
  role: string;
  /** The path errors are reported against. */
  reference: string;
  /**
   * The target as it was read: when it has changed since (another program wrote it), the new
   * file is not moved into place and {@link ConcurrentChangeError} is thrown, so the caller
   * can redo its change on what is there now instead of undoing the other program's.
   */
  unchangedSince?: Stats;
}

/** The file changed between being read and being replaced: nothing was written. */
export class ConcurrentChangeError extends CursorWrapError {
  static override readonly marker: string = "cursor-wrap.error.mcp-config-changed";
  constructor(path: string) {
    super("MCP_CONFIG_CHANGED", `${path} changed while it was being rewritten`);
  }
}

/** Whether a file is still the one `before` describes (same inode, size and change time). */
function unchanged(path: string, before: Stats): boolean {
  const now = statOf(path);
  return (
    now !== undefined &&
    now.dev === before.dev &&
    now.ino === before.ino &&
    now.size === before.size &&
    now.mtimeMs === before.mtimeMs &&
    now.ctimeMs === before.ctimeMs
  );
}

/**
 * Put `bytes` at `target`, atomically: a new file created exclusively (`O_CREAT|O_EXCL|
 * O_NOFOLLOW`) under a fresh random name in the same directory, written in full, fsynced,
 * read back and compared, then renamed over `target` (which replaces the name, never writes
 * through a link). On any failure the temporary file is removed and `target` is untouched.
 */
export function replaceFile(target: string, bytes: Uint8Array, options: ReplaceOptions): void {
  const directory = dirname(target);
  const temporary = join(
    directory,
    `.${basename(target)}.cursor-wrap-${process.pid}-${randomBytes(6).toString("hex")}.tmp`,
  );
  let fd: number | undefined;
  const fail = (step: string, error: unknown): never => {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // closing a descriptor that failed: nothing more to do
      }
      fd = undefined;
    }
    try {
      unlinkSync(temporary);
    } catch {
      // not created, or already gone
    }
    if (McpConfigError.isInstance(error) || ConcurrentChangeError.isInstance(error)) throw error;
    throw new McpConfigError(
      options.reference,
      `cannot ${step} ${options.role} (${temporary}): ${describeError(error)}; nothing was changed`,
      { cause: error },
    );
  };
  try {
    fd = openSync(temporary, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, options.mode);
  } catch (error) {
    fail("create a temporary file for", error);
  }
  try {
    if (options.owner && process.getuid?.() === 0) {
      try {
        fchownSync(fd!, options.owner.uid, options.owner.gid);
      } catch {
        // a file system without owners: the mode still applies
      }
    }
    writeFully(fd!, bytes);
    fsyncSync(fd!);
  } catch (error) {
    fail("write", error);
  }
  try {
    if (!verifyContent(fd!, bytes)) {
      fail("verify", Object.assign(new Error("did not read back as written"), { code: "EIO" }));
    }
    closeSync(fd!);
    fd = undefined;
  } catch (error) {
    fail("verify", error);
  }
  if (options.unchangedSince && !unchanged(target, options.unchangedSince)) {
    fail("move into place", new ConcurrentChangeError(target));
  }
  try {
    renameSync(temporary, target);
  } catch (error) {
    fail("move into place", error);
  }
  syncDirectory(directory);
}

/**
 * Create `path` exclusively (`O_CREAT|O_EXCL|O_NOFOLLOW`: never an existing file, never through
 * a link) holding `content`, written in full; throws `EEXIST` when something is there.
 */
export function createExclusive(path: string, content: string, mode = 0o600): void {
  const fd = openSync(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
  try {
    writeFully(fd, Buffer.from(content));
  } catch (error) {
    closeSync(fd);
    try {
      unlinkSync(path);
    } catch {
      // gone already
    }
    throw error;
  }
  closeSync(fd);
}
