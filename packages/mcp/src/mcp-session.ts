// MCP sessions (seed F-009, F-010, F-019, F-020): a client's configs wrapped for as long as one
// agent runs, and given back when it ends, whatever happens: a normal end, a signal, a crash,
// or a SIGKILL (the next cursor-wrap start finds the session's record and gives the configs
// back for it).
//
// Two records keep that promise:
// - beside each config, a journal (`<config>.cursor-wrap-session`): the config's bytes before
//   the first session wrapped it, a hash of the bytes the last session change wrote, and the
//   sessions holding it with the entries each one needs wrapped;
// - in the registry directory (`~/.cursor-wrap/mcp-sessions`), one record per session: its
//   process (pid and start time, so a reused pid is not taken for it) and its configs. It is
//   written before any config changes and removed after every config is given back.
//
// Sessions nest: a second session on a config wraps what is not wrapped yet, shares what a live
// session wrapped, and an entry is given back when the last session needing it ends. A config
// nobody touched since the last session change gets its original bytes back; one the user or
// the client edited meanwhile gets only the session's entries unwrapped, every edit kept.
// Every file is read and written by the same safe path as `mcp wrap` (config-file.ts).

import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { processExists, processStartTime } from "@cursor-wrap/supervisor";
import {
  type EntryRef,
  type ProxyInvocation,
  sameEntry,
  serverStatuses,
  unwrapConfig,
  wrapConfig,
} from "./config.js";
import {
  type ConfigDialect,
  DIALECTS,
  type DialectContext,
  type DialectId,
} from "./config-dialects.js";
import { McpConfigError } from "./config-error.js";
import {
  CONFIG_SIDE_FILES,
  type ConfigText,
  configBytes,
  configTarget,
  lockConfig,
  parseConfig,
  removeFile,
  rewrittenText,
} from "./config-file.js";
import { sameMeaning } from "./json-text.js";
import {
  ConcurrentChangeError,
  createExclusive,
  readRegularFile,
  refuseUnlessRegular,
  replaceFile,
  statOf,
} from "./safe-file.js";

/** One config a session wraps. */
export interface SessionConfig {
  path: string;
  dialect: ConfigDialect;
  context: DialectContext;
}

/** Options for {@link beginMcpSession}. */
export interface SessionOptions {
  configs: readonly SessionConfig[];
  proxy: ProxyInvocation;
  /** The agent's command line, for people (`claude --resume`). */
  command: string;
  /** Where session records are kept (`~/.cursor-wrap/mcp-sessions`). */
  registryDir: string;
}

/** What a session did to one config at its start. */
export interface SessionConfigStart {
  path: string;
  /** The file changed, when `path` is a link. */
  target?: string;
  /** Entries this session wrapped. */
  wrapped: EntryRef[];
  /** Entries already wrapped by another live session, which this one needs too. */
  shared: EntryRef[];
  /** Entries left alone, and why (remote servers, entries wrapped by `mcp wrap`, …). */
  skipped: Array<{ name: string; why: string; scope?: string }>;
}

/** What giving one config back did. */
export interface SessionRelease {
  path: string;
  /** Entries unwrapped. */
  restored: EntryRef[];
  /** The config got its original bytes back (nothing else changed it meanwhile). */
  exact: boolean;
  /** Entries left wrapped for other live sessions. */
  kept: EntryRef[];
  /** Why the config could not be given back (it stays recorded, to be tried again). */
  error?: string;
}

/** A running session. */
export interface McpSession {
  /** The session's id (its record's name). */
  readonly id: string;
  readonly configs: readonly SessionConfigStart[];
  /**
   * Give every config back. Synchronous, so it can run in an `exit` handler; a second call
   * does nothing. A config that cannot be given back stays recorded for the next start.
   */
  end(): SessionRelease[];
}

/** One session's record in the registry. */
export interface SessionRecord {
  id: string;
  pid: number;
  /** The process's start time, where it can be read (Linux). */
  start?: string;
  command: string;
  /** When it began (ISO 8601). */
  since: string;
  configs: Array<{ path: string; target: string; dialect: DialectId; project?: string }>;
  /** Whether its process still runs. */
  live: boolean;
}

/** A session holding a config, as its journal says. */
interface Holder {
  id: string;
  pid: number;
  start?: string;
  command: string;
  since: string;
  entries: EntryRef[];
}

/** A config's journal. */
interface Journal {
  format: 1;
  /** The config's bytes before the first session wrapped it, base64. */
  original: string;
  /** sha256 of the bytes the last session change wrote. */
  written: string;
  holders: Holder[];
}

const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

/** How long a session waits for another cursor-wrap holding a config's lock (milliseconds). */
const LOCK_WAIT_MS = 5_000;
const CHANGE_ATTEMPTS = 5;

function isLive(holder: { pid: number; start?: string }): boolean {
  if (!Number.isSafeInteger(holder.pid) || holder.pid <= 1) return false;
  if (holder.pid === process.pid) return true;
  if (!processExists(holder.pid)) return false;
  const actual = processStartTime(holder.pid);
  return holder.start === undefined || actual === undefined || actual === holder.start;
}

const isRef = (value: unknown): value is EntryRef =>
  value !== null &&
  typeof value === "object" &&
  Array.isArray((value as EntryRef).map) &&
  typeof (value as EntryRef).name === "string";

function readJournal(target: string, reference: string): Journal | undefined {
  const path = `${target}${CONFIG_SIDE_FILES.session}`;
  refuseUnlessRegular(path, "the session journal", reference);
  if (statOf(path) === undefined) return undefined;
  const text = readRegularFile(path, "the session journal").toString("utf8");
  try {
    const journal = JSON.parse(text) as Journal;
    if (
      journal.format === 1 &&
      typeof journal.original === "string" &&
      typeof journal.written === "string" &&
      Array.isArray(journal.holders) &&
      journal.holders.every(
        (holder) =>
          typeof holder.id === "string" &&
          typeof holder.pid === "number" &&
          Array.isArray(holder.entries) &&
          holder.entries.every(isRef),
      )
    ) {
      return journal;
    }
  } catch {
    // reported below
  }
  throw new McpConfigError(
    reference,
    `the session journal ${path} is not one cursor-wrap wrote; nothing was changed (remove it if the config is as you want it)`,
  );
}

/** A config's journal, if any, refused unless a session of this user's wrote it. */
function trustedJournal(
  target: string,
  reference: string,
  registryDir: string,
): Journal | undefined {
  const journal = readJournal(target, reference);
  if (journal === undefined || journalHeldHere(journal, target, registryDir)) return journal;
  throw new McpConfigError(
    reference,
    `the session journal ${target}${CONFIG_SIDE_FILES.session} was not written by a cursor-wrap session of yours (none of its sessions is recorded in ${registryDir}); nothing was changed (remove it if the config is as you want it)`,
  );
}

function writeJournal(target: string, reference: string, journal: Journal, owner: Owner): void {
  replaceFile(`${target}${CONFIG_SIDE_FILES.session}`, Buffer.from(JSON.stringify(journal)), {
    mode: 0o600,
    owner,
    role: "the session journal",
    reference,
  });
}

type Owner = { uid: number; gid: number };

/** A config under its lock: read, and written back only if it is still what was read. */
interface Locked {
  target: string;
  current: ConfigText;
  owner: Owner;
  mode: number;
  journal: Journal | undefined;
  write(bytes: Uint8Array): void;
}

/**
 * Whether a config's journal was written by a session of this user's: one of its holders has a
 * record in the registry naming the config. A journal shipped beside a config (a cloned
 * repository's) names none, and its "original" must never be written back.
 */
function journalHeldHere(journal: Journal, target: string, registryDir: string): boolean {
  return journal.holders.some((holder) => {
    if (!/^[0-9a-f]{16}$/.test(holder.id)) return false;
    try {
      const record = JSON.parse(
        readRegularFile(recordPath(registryDir, holder.id), "a session record", 1 << 20).toString(
          "utf8",
        ),
      ) as { configs?: Array<{ target?: unknown }> };
      return Array.isArray(record.configs) && record.configs.some((c) => c.target === target);
    } catch {
      return false;
    }
  });
}

/** Run `change` on a config under its lock, again if its client rewrites it meanwhile. */
function withConfig<T>(
  config: SessionConfig,
  registryDir: string,
  change: (locked: Locked) => T,
): T {
  const { target } = configTarget(config.path);
  const release = lockConfig(target, config.path, LOCK_WAIT_MS);
  try {
    for (let attempt = 1; ; attempt += 1) {
      const stats = statOf(target);
      if (stats === undefined) configTarget(config.path);
      const current = parseConfig(
        config.path,
        readRegularFile(target, "the config"),
        config.dialect,
      );
      const locked: Locked = {
        target,
        current,
        owner: { uid: stats!.uid, gid: stats!.gid },
        mode: stats!.mode & 0o777,
        journal: trustedJournal(target, config.path, registryDir),
        write(bytes) {
          if (Buffer.compare(Buffer.from(bytes), current.bytes) === 0) return;
          replaceFile(target, bytes, {
            mode: stats!.mode & 0o777,
            owner: locked.owner,
            role: "the config",
            reference: config.path,
            unchangedSince: stats!,
          });
        },
      };
      try {
        return change(locked);
      } catch (error) {
        if (!ConcurrentChangeError.isInstance(error) || attempt >= CHANGE_ATTEMPTS) {
          if (ConcurrentChangeError.isInstance(error)) {
            throw new McpConfigError(config.path, "keeps being changed by another program");
          }
          throw error;
        }
      }
    }
  } finally {
    release();
  }
}

/**
 * The hash a journal records after a session change: of the new bytes, when the file was as
 * the last session change left it; else none, since the original bytes no longer stand for
 * the file (someone edited it meanwhile, and their edit must survive the final restore).
 */
function nextWritten(locked: Locked, after: Uint8Array): string {
  const journal = locked.journal;
  if (journal !== undefined && sha256(locked.current.bytes) !== journal.written) return "";
  return sha256(after);
}

const inList = (list: readonly EntryRef[]) => (ref: EntryRef) =>
  list.some((item) => sameEntry(item, ref));

/** Wrap a config for a session; returns what it did. */
function holdConfig(
  config: SessionConfig,
  holder: Omit<Holder, "entries">,
  proxy: ProxyInvocation,
  registryDir: string,
): SessionConfigStart {
  return withConfig(config, registryDir, (locked) => {
    const scope = { dialect: config.dialect, context: config.context };
    const held = (locked.journal?.holders ?? []).flatMap((other) => other.entries);
    // Entries another session wrapped (and still needs, or left behind): shared, not wrapped again.
    const shared = serverStatuses(locked.current.config, scope)
      .filter((status) => status.wrapped)
      .map((status) => ({
        map: status.map!,
        name: status.name,
        ...(status.scope === undefined ? {} : { scope: status.scope }),
      }))
      .filter(inList(held));
    const wrap = wrapConfig(locked.current.config, proxy, scope);
    const skipped = wrap.skipped.filter(
      (item) => !(item.why === "already wrapped" && shared.some((ref) => ref.name === item.name)),
    );
    const start: SessionConfigStart = {
      path: config.path,
      ...(locked.target === resolve(config.path) ? {} : { target: locked.target }),
      wrapped: wrap.entries,
      shared,
      skipped,
    };
    if (wrap.entries.length === 0 && shared.length === 0) return start;
    const after =
      wrap.entries.length === 0
        ? locked.current.bytes
        : configBytes(
            locked.current,
            rewrittenText(config.path, locked.current, wrap, config.dialect),
          );
    const journal: Journal = {
      format: 1,
      original: locked.journal?.original ?? locked.current.bytes.toString("base64"),
      written: nextWritten(locked, after),
      holders: [
        ...(locked.journal?.holders ?? []),
        { ...holder, entries: [...wrap.entries, ...shared] },
      ],
    };
    // The journal (with the original bytes) is complete before the config changes; if the
    // config then cannot be written, the journal goes back to what it was.
    writeJournal(locked.target, config.path, journal, locked.owner);
    try {
      locked.write(after);
    } catch (error) {
      try {
        if (locked.journal) writeJournal(locked.target, config.path, locked.journal, locked.owner);
        else removeFile(`${locked.target}${CONFIG_SIDE_FILES.session}`);
      } catch {
        // the journal names a session whose config never changed: releasing it changes nothing
      }
      throw error;
    }
    return start;
  });
}

/** Give a config back for one session (and for sessions that died holding it). */
function releaseConfig(
  config: SessionConfig,
  holderId: string,
  ownEntries: readonly EntryRef[],
  registryDir: string,
): SessionRelease {
  return withConfig(config, registryDir, (locked): SessionRelease => {
    const journal = locked.journal;
    const holders = journal?.holders ?? [];
    const own = holders.find((holder) => holder.id === holderId);
    const others = holders.filter((holder) => holder.id !== holderId);
    const live = others.filter(isLive);
    const dead = others.filter((holder) => !isLive(holder));
    const needed = live.flatMap((holder) => holder.entries);
    const candidates = [
      ...(own?.entries ?? (journal ? [] : ownEntries)),
      ...dead.flatMap((h) => h.entries),
    ];
    const releasing = candidates.filter((ref, index) => {
      const first = candidates.findIndex((other) => sameEntry(other, ref));
      return first === index && !needed.some((other) => sameEntry(other, ref));
    });
    const kept = (own?.entries ?? ownEntries).filter(inList(needed));
    const maps = [
      ...new Map(
        releasing.map((ref) => [JSON.stringify(ref.map), { path: ref.map }] as const),
      ).values(),
    ];
    const unwrap = unwrapConfig(locked.current.config, {
      dialect: config.dialect,
      only: inList(releasing),
      maps,
    });
    let after = rewrittenText(config.path, locked.current, unwrap, config.dialect);
    let exact = false;
    if (journal !== undefined && live.length === 0) {
      const original = Buffer.from(journal.original, "base64");
      // Untouched since the last session change, or only whitespace differs: the original bytes.
      if (
        sha256(locked.current.bytes) === journal.written ||
        sameMeaning(original.toString("utf8").replace(/^\uFEFF/, ""), after, config.dialect)
      ) {
        after = original.toString("utf8");
        exact = true;
      }
      locked.write(exact ? Buffer.from(after, "utf8") : configBytes(locked.current, after));
      removeFile(`${locked.target}${CONFIG_SIDE_FILES.session}`);
    } else {
      const bytes = configBytes(locked.current, after);
      locked.write(bytes);
      if (journal !== undefined && (own !== undefined || dead.length > 0)) {
        writeJournal(
          locked.target,
          config.path,
          { ...journal, written: nextWritten(locked, bytes), holders: live },
          locked.owner,
        );
      }
    }
    return { path: config.path, restored: unwrap.entries, exact, kept };
  });
}

function recordPath(registryDir: string, id: string): string {
  return join(registryDir, `${id}.json`);
}

/** Every session record in the registry, with whether its process still runs. */
export function listMcpSessions(registryDir: string): SessionRecord[] {
  let names: string[];
  try {
    names = readdirSync(registryDir);
  } catch {
    return [];
  }
  const records: SessionRecord[] = [];
  for (const name of names.sort()) {
    if (!/^[0-9a-f]{16}\.json$/.test(name)) continue;
    try {
      const record = JSON.parse(
        readRegularFile(join(registryDir, name), "a session record", 1 << 20).toString("utf8"),
      ) as Omit<SessionRecord, "live">;
      if (record.id !== name.slice(0, -5) || !Array.isArray(record.configs)) continue;
      records.push({ ...record, live: isLive(record) });
    } catch {
      // not a record this version can read: left alone
    }
  }
  return records;
}

const configOf = (entry: SessionRecord["configs"][number]): SessionConfig => ({
  path: entry.path,
  dialect: DIALECTS[entry.dialect] ?? DIALECTS["mcp-servers"],
  context: entry.project === undefined ? {} : { project: entry.project },
});

/**
 * Give back the configs of every session whose process is gone without having done it (a
 * SIGKILL, a crash of the machine): what the next cursor-wrap start does. Returns one item per
 * such session; a session whose configs are all given back loses its record.
 */
export function recoverMcpSessions(
  registryDir: string,
): Array<{ record: SessionRecord; releases: SessionRelease[] }> {
  const recovered: Array<{ record: SessionRecord; releases: SessionRelease[] }> = [];
  for (const record of listMcpSessions(registryDir)) {
    if (record.live) continue;
    const releases = record.configs.map((entry) =>
      releaseSafely(configOf(entry), record.id, [], registryDir),
    );
    if (releases.every((release) => release.error === undefined)) {
      removeFile(recordPath(registryDir, record.id));
    }
    recovered.push({ record, releases });
  }
  return recovered;
}

function releaseSafely(
  config: SessionConfig,
  holderId: string,
  ownEntries: readonly EntryRef[],
  registryDir: string,
): SessionRelease {
  try {
    if (statOf(config.path) === undefined) {
      return { path: config.path, restored: [], exact: false, kept: [] };
    }
    return releaseConfig(config, holderId, ownEntries, registryDir);
  } catch (error) {
    return {
      path: config.path,
      restored: [],
      exact: false,
      kept: [],
      error: error instanceof Error ? error.message : String(error),
    };
  }
}

/**
 * The sessions holding a config, as its journal says (none when it has no journal), with
 * whether each still runs: for `mcp status`.
 */
export function sessionHolders(
  path: string,
): Array<{ pid: number; command: string; since: string; entries: EntryRef[]; live: boolean }> {
  const { target } = configTarget(path);
  return (readJournal(target, path)?.holders ?? []).map((holder) => ({
    pid: holder.pid,
    command: holder.command,
    since: holder.since,
    entries: holder.entries,
    live: isLive(holder),
  }));
}

/**
 * Begin a session: first give back what dead sessions left wrapped, then record this session,
 * then wrap each config (its stdio entries not wrapped yet; entries a live session wrapped are
 * shared). A config that cannot be wrapped undoes the session's changes so far and throws
 * {@link McpConfigError}: the agent then never starts on half-wrapped configs.
 */
export function beginMcpSession(options: SessionOptions): McpSession {
  recoverMcpSessions(options.registryDir);
  const id = randomBytes(8).toString("hex");
  const start = processStartTime(process.pid);
  const holder = {
    id,
    pid: process.pid,
    ...(start === undefined ? {} : { start }),
    command: options.command,
    since: new Date().toISOString(),
  };
  const targets = options.configs.map((config) => ({
    config,
    target: configTarget(config.path).target,
  }));
  mkdirSync(options.registryDir, { recursive: true, mode: 0o700 });
  const record: Omit<SessionRecord, "live"> = {
    ...holder,
    configs: targets.map(({ config, target }) => ({
      path: config.path,
      target,
      dialect: config.dialect.id,
      ...(config.context.project === undefined ? {} : { project: config.context.project }),
    })),
  };
  // Recorded before any config changes: a SIGKILL from here on is found by the next start.
  createExclusive(recordPath(options.registryDir, id), JSON.stringify(record));
  const started: SessionConfigStart[] = [];
  let ended = false;
  const end = (): SessionRelease[] => {
    if (ended) return [];
    ended = true;
    const releases = started.map((item, index) =>
      releaseSafely(
        targets[index]!.config,
        id,
        [...item.wrapped, ...item.shared],
        options.registryDir,
      ),
    );
    if (releases.every((release) => release.error === undefined)) {
      removeFile(recordPath(options.registryDir, id));
    }
    return releases;
  };
  try {
    for (const { config } of targets) {
      started.push(holdConfig(config, holder, options.proxy, options.registryDir));
    }
  } catch (error) {
    end();
    throw error;
  }
  return { id, configs: started, end };
}
