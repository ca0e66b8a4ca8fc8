import { execFile } from "node:child_process";
// `promises` read where used: loading fs/promises (and readline with it) cost every run's
// start-up, and a run needs it only once it samples or kills its tree (P6).
import { promises as fsPromises, readdirSync, readFileSync } from "node:fs";

/** One process, as far as killing it is concerned. */
export interface ProcessEntry {
  pid: number;
  ppid: number;
  pgid: number;
  /** Session id: the agent leads a session of its own, which daemons that left its group keep. */
  sid: number;
  /** Kernel start time (clock ticks since boot on Linux): tells a process from a reused pid. */
  startTime: string;
  /** Exited but not yet reaped: nothing left to kill. */
  zombie: boolean;
}

/** The environment variable that marks every process started for one agent run. */
export const AGENT_TOKEN_VARIABLE = "CURSOR_WRAP_AGENT_TOKEN";

let tokensMade = 0;

/**
 * A token for one tree that no other tree on this machine carries: this process's id (unique
 * among the processes alive together), the time and a count (a reused process id, a second
 * tree of this process), and a random part. Not a secret: every process of the tree reads it
 * in its environment. Not `crypto.randomUUID`: loading crypto took about 14 M instructions
 * (4 ms here) of every run's start-up (P6).
 */
export function newTreeToken(): string {
  tokensMade += 1;
  const random = Math.random().toString(36).slice(2, 10);
  return `${process.pid.toString(36)}-${Date.now().toString(36)}-${tokensMade.toString(36)}-${random}`;
}

const hasProc = process.platform === "linux";
const isPid = (name: string): boolean => /^\d+$/.test(name);

/** A process as `/proc/<pid>/stat` tells it: with the CPU time it has used. */
export interface ProcStat extends ProcessEntry {
  /** User plus system CPU time (utime + stime), clock ticks. */
  cpuTicks: number;
}

/** Parse `/proc/<pid>/stat`. The command name may hold spaces and parentheses. */
export function parseProcStat(text: string): ProcStat | undefined {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return undefined;
  const fields = text.slice(close + 2).split(" ");
  const pid = Number(text.slice(0, open).trim());
  const ppid = Number(fields[1]);
  const pgid = Number(fields[2]);
  const sid = Number(fields[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(ppid) || !Number.isInteger(pgid))
    return undefined;
  return {
    pid,
    ppid,
    pgid,
    sid: Number.isInteger(sid) ? sid : 0,
    cpuTicks: Number(fields[11]) + Number(fields[12]),
    startTime: fields[19] ?? "",
    zombie: fields[0] === "Z" || fields[0] === "X",
  };
}

function markerIn(environ: Buffer, token: string): boolean {
  return environ.indexOf(`${AGENT_TOKEN_VARIABLE}=${token}\0`) !== -1;
}

/** Whether process `pid` carries the run's token in its environment (Linux; false if unreadable). */
export function carriesTokenSync(pid: number, token: string): boolean {
  try {
    return markerIn(readFileSync(`/proc/${pid}/environ`), token);
  } catch {
    return false;
  }
}

/** Every process on the machine (Linux: /proc; elsewhere: `ps`). */
async function listProcesses(): Promise<ProcessEntry[]> {
  if (!hasProc) return listWithPs();
  const names = (await fsPromises.readdir("/proc")).filter(isPid);
  const entries = await Promise.all(
    names.map((name) =>
      fsPromises.readFile(`/proc/${name}/stat`, "latin1").then(parseProcStat, () => undefined),
    ),
  );
  return entries.filter((entry): entry is ProcStat => entry !== undefined);
}

function listProcessesSync(): ProcessEntry[] {
  if (!hasProc) return [];
  const entries: ProcessEntry[] = [];
  for (const name of readdirSync("/proc")) {
    if (!isPid(name)) continue;
    try {
      const entry = parseProcStat(readFileSync(`/proc/${name}/stat`, "latin1"));
      if (entry) entries.push(entry);
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return entries;
}

function listWithPs(): Promise<ProcessEntry[]> {
  return new Promise((resolve) => {
    execFile("ps", ["-A", "-o", "pid=,ppid=,pgid=,sess=,stat=,lstart="], (error, stdout) => {
      if (error) return resolve([]);
      const entries: ProcessEntry[] = [];
      for (const line of stdout.split("\n")) {
        const [pid, ppid, pgid, sid, stat, ...start] = line.trim().split(/\s+/);
        if (!pid || !ppid || !pgid || !sid || !stat) continue;
        entries.push({
          pid: Number(pid),
          ppid: Number(ppid),
          pgid: Number(pgid),
          sid: Number(sid),
          startTime: start.join(" "),
          zombie: stat.startsWith("Z"),
        });
      }
      resolve(entries);
    });
  });
}

/**
 * Select the processes of one agent run among `entries`: the root, everything in its process
 * group and in its session (the agent leads both: a daemon that left the group but not the
 * session, even with a cleared environment, is still found), every descendant by parent chain
 * (also those that called `setsid`), and on Linux every process that still carries the run's
 * token in its environment (daemons that double-forked and were reparented). Zombies are left
 * out: there is nothing to kill. The numbers of a group and a session are not given to another
 * process while any member lives, so matching them never picks up a stranger.
 */
function selectTree(
  entries: ProcessEntry[],
  rootPid: number,
  carriesToken: (pid: number) => boolean,
  rootGone = false,
): ProcessEntry[] {
  const children = new Map<number, ProcessEntry[]>();
  for (const entry of entries) {
    const siblings = children.get(entry.ppid);
    if (siblings) siblings.push(entry);
    else children.set(entry.ppid, [entry]);
  }
  const selected = new Map<number, ProcessEntry>();
  // Once the root is reaped its number may be given to a stranger, which may lead a group and a
  // session of its own: then only the run's token (and the parent chain below it) tells.
  const queue = rootGone
    ? []
    : entries.filter(
        (entry) => entry.pid === rootPid || entry.pgid === rootPid || entry.sid === rootPid,
      );
  for (const entry of entries) {
    if (entry.pid !== process.pid && entry.pid !== rootPid && carriesToken(entry.pid))
      queue.push(entry);
  }
  while (queue.length > 0) {
    const entry = queue.pop()!;
    if (selected.has(entry.pid) || entry.pid === process.pid) continue;
    selected.set(entry.pid, entry);
    queue.push(...(children.get(entry.pid) ?? []));
  }
  return [...selected.values()].filter((entry) => !entry.zombie);
}

/** The live processes of the agent run rooted at `rootPid` and marked with `token`. */
export async function findAgentTree(rootPid: number, token: string): Promise<ProcessEntry[]> {
  const entries = await listProcesses();
  if (!hasProc) return selectTree(entries, rootPid, () => false);
  const marked = new Set<number>();
  await Promise.all(
    entries.map(async (entry) => {
      if (entry.zombie || entry.pid === process.pid) return;
      try {
        if (markerIn(await fsPromises.readFile(`/proc/${entry.pid}/environ`), token))
          marked.add(entry.pid);
      } catch {
        // gone, or another user's process: not ours
      }
    }),
  );
  return selectTree(entries, rootPid, (pid) => marked.has(pid));
}

/**
 * Synchronous {@link findAgentTree}, for last-moment cleanup when the wrapper is crashing.
 * `rootGone`: the agent itself has exited and been reaped; what it left is found by the token.
 */
export function findAgentTreeSync(
  rootPid: number,
  token: string,
  rootGone = false,
): ProcessEntry[] {
  return selectTree(listProcessesSync(), rootPid, (pid) => carriesTokenSync(pid, token), rootGone);
}

/**
 * When process `pid` started (kernel clock ticks since boot, from `/proc/<pid>/stat`), so a
 * record of a pid can tell that process from a later one given the same number. Undefined when
 * it is gone, or where processes cannot be read this way (not Linux).
 */
export function processStartTime(pid: number): string | undefined {
  if (!hasProc || !Number.isSafeInteger(pid) || pid <= 0) return undefined;
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, "latin1"))?.startTime;
  } catch {
    return undefined;
  }
}

/** Whether a process with this pid exists (EPERM: it does, and is someone else's). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether `entry` is still running (same pid, same start time, not a zombie). */
export async function isRunning(entry: ProcessEntry): Promise<boolean> {
  if (hasProc) {
    try {
      const current = parseProcStat(await fsPromises.readFile(`/proc/${entry.pid}/stat`, "latin1"));
      return current !== undefined && !current.zombie && current.startTime === entry.startTime;
    } catch {
      return false;
    }
  }
  try {
    process.kill(entry.pid, 0);
    return true;
  } catch {
    return false;
  }
}
