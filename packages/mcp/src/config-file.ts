// Changing a config file on disk (R-MCP6, R-MCP8): under a lock beside it, with a backup that
// is complete before the config changes, and an atomic replace; through links only where the
// user's own config is one (a dotfiles setup), and then at its target, said out loud.

import { randomBytes } from "node:crypto";
import { accessSync, constants, linkSync, realpathSync, type Stats, unlinkSync } from "node:fs";
import { resolve } from "node:path";
import { processExists, processStartTime } from "@cursor-wrap/supervisor";
import { describeError, kindOf } from "@cursor-wrap/wording";
import type { RewriteResult } from "./config.js";
import { McpConfigError } from "./config-error.js";
import { applyJsonEdits, type JsonSyntax, parseJsonText, sameMeaning } from "./json-text.js";
import {
  ConcurrentChangeError,
  createExclusive,
  readRegularFile,
  refuseUnlessRegular,
  replaceFile,
  statOf,
} from "./safe-file.js";

/** Suffixes of the files kept beside a config. */
export const CONFIG_SIDE_FILES = {
  lock: ".cursor-wrap-lock",
  backup: ".cursor-wrap-backup",
  /** What the MCP sessions that wrapped the config need to give it back (mcp-session.ts). */
  session: ".cursor-wrap-session",
} as const;

/** Where a config really is: the path given, or the file a link there points to. */
export interface ConfigTarget {
  /** The regular file that is read and replaced. */
  target: string;
  stats: Stats;
}

/**
 * Find the file behind a config path. A config that is a link (or sits in a linked directory)
 * is changed at its target, which must be a regular file; anything else that is not a regular
 * file (a directory, a FIFO, a dangling link) is refused.
 */
export function configTarget(path: string): ConfigTarget {
  let own: Stats | undefined;
  try {
    own = statOf(path);
  } catch (error) {
    throw new McpConfigError(path, `cannot look at the config: ${describeError(error)}`, {
      cause: error,
    });
  }
  if (own === undefined) {
    throw new McpConfigError(path, "no such file");
  }
  let target: string;
  try {
    target = realpathSync(path);
  } catch (error) {
    throw new McpConfigError(
      path,
      `is a link to a file that cannot be found (${describeError(error)}); nothing was changed`,
      { cause: error },
    );
  }
  const stats = statOf(target);
  const kind = stats && kindOf(stats);
  if (stats === undefined || kind !== undefined) {
    throw new McpConfigError(
      path,
      target === resolve(path)
        ? `is ${kind ?? "missing"}, not a config file`
        : `is a link to ${target}, which is ${kind ?? "missing"}, not a config file`,
    );
  }
  return { target, stats };
}

/** What the lock file says about its holder: `<pid> <start time>`. */
function lockContent(): string {
  const started = processStartTime(process.pid);
  return `${process.pid}${started === undefined ? "" : ` ${started}`}\n`;
}

/**
 * Whether the lock's holder is a live cursor-wrap: the pid it names runs and, where start times
 * can be read, is the same process (not a later one given the number). Pid 1, this process's
 * own pid and content that names no pid are never a live holder.
 */
function holderOf(content: string): number | undefined {
  const match = /^(\d{1,10})(?: (\d+))?\s*$/.exec(content);
  if (!match) return undefined;
  const pid = Number(match[1]);
  if (!Number.isSafeInteger(pid) || pid <= 1 || pid === process.pid) return undefined;
  if (!processExists(pid)) return undefined;
  const recorded = match[2];
  const actual = processStartTime(pid);
  if (recorded !== undefined && actual !== undefined) return recorded === actual ? pid : undefined;
  // A lock from before start times were recorded: on Linux the process must be cursor-wrap.
  if (actual !== undefined) {
    try {
      const commandLine = readRegularFile(`/proc/${pid}/cmdline`, "a command line", 65_536);
      return commandLine.includes("cursor-wrap") ? pid : undefined;
    } catch {
      return undefined;
    }
  }
  return pid;
}

/** Block this thread for `ms` (a lock held for milliseconds by another cursor-wrap). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Take the lock beside a config: a file created exclusively (never through a link), holding
 * this process's pid and start time. A stale lock (its holder gone) is taken over; one that is
 * a link, a FIFO or a directory is refused. A live holder is waited for up to `waitMs` (MCP
 * sessions, which change a config for milliseconds at their start and end), then refused.
 */
export function lockConfig(target: string, reference: string, waitMs = 0): () => void {
  const lockPath = `${target}${CONFIG_SIDE_FILES.lock}`;
  const deadline = Date.now() + waitMs;
  // Locks released between our attempt and the read of the holder: tried again, without
  // counting as an attempt (a busy file sees many), up to a bound.
  let released = 0;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      createLockFile(lockPath, lockContent());
      return () => {
        try {
          // Only the file this process created: another process's lock is left alone.
          if (readRegularFile(lockPath, "the lock", 256).toString("latin1") === lockContent()) {
            removeFile(lockPath);
          }
        } catch {
          // gone already, or no longer ours
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
        if (McpConfigError.isInstance(error)) throw error;
        throw new McpConfigError(
          reference,
          `cannot create the lock ${lockPath}: ${describeError(error)}; nothing was changed`,
          { cause: error },
        );
      }
    }
    refuseUnlessRegular(lockPath, "the lock", reference);
    let content: string;
    try {
      content = readRegularFile(lockPath, "the lock", 256).toString("latin1");
    } catch (error) {
      // Released between our attempt and the read: try again.
      const cause = (error as { cause?: NodeJS.ErrnoException }).cause;
      if (McpConfigError.isInstance(error) && cause?.code === "ENOENT" && released < 100) {
        released += 1;
        attempt -= 1;
        continue;
      }
      throw error;
    }
    const holder = holderOf(content);
    if (holder !== undefined && Date.now() < deadline) {
      pause(20);
      attempt -= 1;
      continue;
    }
    if (holder !== undefined) {
      throw new McpConfigError(
        reference,
        `another cursor-wrap (pid ${holder}) is changing this file; try again when it is done (or remove ${lockPath} if it is not running)`,
      );
    }
    removeFile(lockPath);
  }
  throw new McpConfigError(reference, `cannot take the lock ${lockPath}: it keeps coming back`);
}

/**
 * Create the lock with its content in one step: written to a file of its own first, then
 * linked into place (link(2) fails if the name exists, and never follows a link there). A lock
 * is never seen empty, so a reader never mistakes one being created for one left behind.
 * Where a file system has no hard links, it is created exclusively and then written.
 */
function createLockFile(lockPath: string, content: string): void {
  const staging = `${lockPath}.${process.pid}.${randomBytes(6).toString("hex")}`;
  createExclusive(staging, content);
  try {
    linkSync(staging, lockPath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "EXDEV") {
      throw error;
    }
    createExclusive(lockPath, content);
  } finally {
    removeFile(staging);
  }
}

/** Remove a name (never what a link there points to); a missing one is no error. */
export function removeFile(path: string): void {
  try {
    // unlink(2) removes a name, never what a link points to.
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

/** A config read from disk. */
export interface ConfigText {
  /** Its text. */
  text: string;
  /** Its exact bytes. */
  bytes: Buffer;
  /** Its text, parsed. */
  config: unknown;
  /** It begins with a UTF-8 byte order mark (not in `text`): written back with it. */
  bom: boolean;
}

const BOM = "\uFEFF";

/** The bytes to write for `text`, a new version of `current`: its byte order mark kept. */
export function configBytes(current: Pick<ConfigText, "bom">, text: string): Buffer {
  return Buffer.from(current.bom && !text.startsWith(BOM) ? `${BOM}${text}` : text, "utf8");
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Strict JSON: the syntax of every client's config but VS Code's and Zed's. */
const STRICT: JsonSyntax = { comments: false };

/**
 * Parse config bytes as its client does (strict JSON, or JSON with comments), with a clear
 * error for text that is not UTF-8 or does not parse.
 */
export function parseConfig(
  path: string,
  bytes: Buffer,
  syntax: JsonSyntax = STRICT,
  role = "the config",
): ConfigText {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch (error) {
    throw new McpConfigError(path, `${role} is not UTF-8 text`, { cause: error });
  }
  // The decoder drops a byte order mark: its edits and checks see the text after it.
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  try {
    return { text, bytes, config: parseJsonText(text, syntax), bom };
  } catch (error) {
    throw new McpConfigError(path, `not valid JSON (${(error as Error).message})`, {
      cause: error,
    });
  }
}

/**
 * Read a config file: never through a planted link's target other than the config's own,
 * never blocking on a FIFO; a clear error for a missing, broken or odd one.
 */
export function readConfigFile(path: string, syntax: JsonSyntax = STRICT): ConfigText {
  const { target } = configTarget(path);
  return parseConfig(path, readRegularFile(target, "the config"), syntax);
}

/**
 * The text a rewrite gives: its edits applied to the current text, checked to parse to the
 * document the rewrite meant (so an edit in the wrong place can never reach the disk).
 */
export function rewrittenText(
  path: string,
  current: ConfigText,
  result: Pick<RewriteResult, "config" | "edits">,
  syntax: JsonSyntax,
): string {
  const after = applyJsonEdits(current.text, result.edits);
  let parsed: unknown;
  try {
    parsed = parseJsonText(after, syntax);
  } catch {
    parsed = Symbol("unparsable");
  }
  if (JSON.stringify(parsed) !== JSON.stringify(result.config)) {
    throw new McpConfigError(
      path,
      "cannot change this file in place (its entries are not where they seem, e.g. a duplicate key); nothing was changed",
    );
  }
  return after;
}

/** What {@link updateConfigFile} did (or, with `dryRun`, would do). */
export interface ConfigUpdate extends Omit<RewriteResult, "config"> {
  /** The path as given. */
  path: string;
  /** The file changed when `path` is a link (or in a linked directory): its target. */
  target?: string;
  before: string;
  after: string;
  /** Where the previous file was kept (not with `dryRun`, nor when nothing changed). */
  backup?: string;
  /** `after` is the backup's exact bytes (an unwrap with no edits since the wrap). */
  restoredFromBackup?: boolean;
}

/** Options for {@link updateConfigFile}. */
export interface UpdateOptions {
  /** Change nothing; say what would change. */
  dryRun?: boolean;
  /**
   * When the backup beside the config means exactly what the rewrite gives (an unwrap with
   * nothing edited since the wrap), write the backup's bytes back rather than a re-serialisation,
   * so the file is byte for byte what it was.
   */
  restoreExactly?: boolean;
  /** How the file is parsed: strict JSON (default) or JSON with comments (VS Code, Zed). */
  syntax?: JsonSyntax;
}

/** How often a change is tried again when the file changed under it (its client wrote it). */
const CONCURRENT_CHANGE_ATTEMPTS = 5;

/**
 * Apply a rewrite to a config file (R-MCP6, R-MCP8): under a lock created exclusively beside
 * it; the previous bytes kept in a backup that is written in full, read back and moved into
 * place before the config changes; the config replaced atomically by a file created
 * exclusively under a fresh name. A backup, lock or config that is a link, FIFO or directory
 * is refused (a config that is a link is changed at its target, reported in `target`). Any
 * failure (a full disk, a read-only directory) throws {@link McpConfigError} with one clear line
 * and leaves the config and an earlier backup as they were. With `dryRun` nothing is written.
 */
export function updateConfigFile(
  path: string,
  rewrite: (config: unknown) => RewriteResult,
  options: UpdateOptions = {},
): ConfigUpdate {
  const { target } = configTarget(path);
  const backupPath = `${target}${CONFIG_SIDE_FILES.backup}`;
  refuseUnlessRegular(backupPath, "the backup", path);
  const release = options.dryRun ? () => {} : lockConfig(target, path);
  try {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return updateLocked(path, target, backupPath, rewrite, options);
      } catch (error) {
        // The client wrote the file between the read and the replace (Claude Code rewrites
        // ~/.claude.json as it runs): read it again and redo the change on the new text.
        if (!ConcurrentChangeError.isInstance(error) || attempt >= CONCURRENT_CHANGE_ATTEMPTS) {
          if (ConcurrentChangeError.isInstance(error)) {
            throw new McpConfigError(
              path,
              "keeps being changed by another program; nothing was changed",
            );
          }
          throw error;
        }
      }
    }
  } finally {
    release();
  }
}

function updateLocked(
  path: string,
  target: string,
  backupPath: string,
  rewrite: (config: unknown) => RewriteResult,
  options: UpdateOptions,
): ConfigUpdate {
  const syntax = options.syntax ?? STRICT;
  const stats = statOf(target)!;
  const current = parseConfig(path, readRegularFile(target, "the config"), syntax);
  const result = rewrite(current.config);
  let after = rewrittenText(path, current, result, syntax);
  let restoredFromBackup = false;
  if (options.restoreExactly && result.changed.length > 0 && statOf(backupPath)) {
    const backup = parseConfig(
      path,
      readRegularFile(backupPath, "the backup"),
      syntax,
      "the backup",
    );
    // Same data and same comments: only whitespace differs, so the backup's bytes lose nothing.
    if (sameMeaning(backup.text, after, syntax)) {
      after = backup.text;
      restoredFromBackup = true;
    }
  }
  const update: ConfigUpdate = {
    path,
    ...(target === resolve(path) ? {} : { target }),
    before: current.text,
    after,
    changed: result.changed,
    entries: result.entries,
    skipped: result.skipped,
    edits: result.edits,
    ...(restoredFromBackup ? { restoredFromBackup } : {}),
  };
  if (options.dryRun || result.changed.length === 0) return update;
  // The file is replaced, not written in place, so a read-only one would change all the same
  // (the directory allows it): its mode says no, and so does its owner's (root aside).
  if ((stats.mode & 0o222) === 0 || !writable(target)) {
    throw new McpConfigError(path, "is read-only; nothing was changed");
  }
  const owner = { uid: stats.uid, gid: stats.gid };
  // The backup is complete (and verified) before the config changes; an earlier backup is
  // replaced only by a finished new one.
  replaceFile(backupPath, current.bytes, {
    mode: 0o600,
    owner,
    role: "the backup",
    reference: path,
  });
  replaceFile(target, configBytes(current, after), {
    mode: stats.mode & 0o777,
    owner,
    role: "the config",
    reference: path,
    unchangedSince: stats,
  });
  return { ...update, backup: backupPath };
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
