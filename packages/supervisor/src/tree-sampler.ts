// What the agent's process tree did between two moments: CPU time and bytes moved. Taken only
// when the monitor asks (a silence halfway and at its deadline), never polled (R-MON11).

import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { carriesTokenSync, type ProcStat, parseProcStat } from "./process-tree.js";

/** What the tree did since the previous sample. */
export interface TreeSample {
  /** CPU time (user + system) its processes used since the previous sample, ms. */
  cpuMs: number;
  /** Bytes its processes read and wrote since then (`rchar` + `wchar`); undefined where unknown (macOS). */
  ioBytes?: number;
  /** Its processes now. */
  pids: number[];
  /** How long taking the sample took, ms. */
  costMs: number;
}

/** Samples one agent's process tree; each sample covers the time since the previous one. */
export interface TreeSampler {
  /** Undefined where processes cannot be read at all. */
  sample(): TreeSample | undefined;
}

interface Usage {
  startTime: string;
  cpuTicks: number;
  ioBytes: number | undefined;
}

/** Clock ticks per second for /proc times (USER_HZ, 100 on every common Linux). */
const CLOCK_TICKS = 100;

function readIo(pid: number): number | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/io`, "latin1");
    const read = /^rchar: (\d+)$/m.exec(text)?.[1];
    const written = /^wchar: (\d+)$/m.exec(text)?.[1];
    return read === undefined || written === undefined ? undefined : Number(read) + Number(written);
  } catch {
    return undefined;
  }
}

/**
 * Linux: members are the root, its process group and session, its descendants, and processes
 * carrying the run's token (backgrounded shells in groups of their own, daemons). Only
 * processes not seen before are looked at closely (their environment read once); a known
 * stranger costs nothing but its directory entry, so a sample stays cheap however many
 * processes the machine runs.
 */
function createProcSampler(rootPid: number, token: string | undefined): TreeSampler {
  const strangers = new Set<number>(); // known not to be ours
  const tokenCarriers = new Set<number>();
  let previous = new Map<number, Usage>();
  return {
    sample() {
      const started = performance.now();
      let names: string[];
      try {
        names = readdirSync("/proc");
      } catch {
        return undefined;
      }
      const stats = new Map<number, ProcStat>();
      for (const name of names) {
        const pid = Number(name);
        if (!Number.isInteger(pid) || pid === process.pid) continue;
        // A stranger stays one (its parent, group and session are fixed or move to init).
        if (strangers.has(pid)) continue;
        let stat: ProcStat | undefined;
        try {
          stat = parseProcStat(readFileSync(`/proc/${pid}/stat`, "latin1"));
        } catch {
          continue;
        }
        if (stat && !stat.zombie) stats.set(pid, stat);
      }
      const members = new Set<number>();
      const isMember = (stat: ProcStat): boolean =>
        stat.pid === rootPid ||
        stat.pgid === rootPid ||
        stat.sid === rootPid ||
        tokenCarriers.has(stat.pid) ||
        members.has(stat.ppid);
      // Descendants by parent chain: repeat until nothing is added (a child may be listed first).
      for (let grew = true; grew; ) {
        grew = false;
        for (const stat of stats.values()) {
          if (members.has(stat.pid) || !isMember(stat)) continue;
          members.add(stat.pid);
          grew = true;
        }
      }
      for (const stat of stats.values()) {
        if (members.has(stat.pid)) continue;
        if (token !== undefined && carriesTokenSync(stat.pid, token)) {
          tokenCarriers.add(stat.pid);
          members.add(stat.pid);
        } else {
          strangers.add(stat.pid);
        }
      }
      // Forget strangers that are gone (their pid may come back as one of ours).
      const live = new Set(names.map(Number));
      for (const pid of strangers) if (!live.has(pid)) strangers.delete(pid);

      let cpuTicks = 0;
      let ioBytes: number | undefined = 0;
      const current = new Map<number, Usage>();
      for (const pid of members) {
        const stat = stats.get(pid)!;
        const io = readIo(pid);
        current.set(pid, { startTime: stat.startTime, cpuTicks: stat.cpuTicks, ioBytes: io });
        const before = previous.get(pid);
        const same = before !== undefined && before.startTime === stat.startTime;
        // A process new since the previous sample did all of its work in between.
        cpuTicks += Math.max(0, stat.cpuTicks - (same ? before.cpuTicks : 0));
        if (io === undefined) ioBytes = undefined;
        else if (ioBytes !== undefined) {
          ioBytes += Math.max(0, io - (same && before.ioBytes !== undefined ? before.ioBytes : 0));
        }
      }
      previous = current;
      const sample: TreeSample = {
        cpuMs: (cpuTicks * 1000) / CLOCK_TICKS,
        pids: [...members],
        costMs: performance.now() - started,
      };
      if (ioBytes !== undefined) sample.ioBytes = ioBytes;
      return sample;
    },
  };
}

/** `ps` time as `[[dd-]hh:]mm:ss[.ss]` → ms. */
export function parsePsTime(text: string): number {
  const [days, rest] = text.includes("-") ? text.split("-", 2) : ["0", text];
  const parts = rest!.split(":").map(Number);
  while (parts.length < 3) parts.unshift(0);
  const [hours, minutes, seconds] = parts as [number, number, number];
  return ((Number(days) * 24 + hours) * 60 + minutes) * 60_000 + seconds * 1000;
}

/** Elsewhere (macOS): CPU time from `ps`, for the root's group and session and descendants; no bytes. */
function createPsSampler(rootPid: number): TreeSampler {
  let previous = new Map<number, number>();
  return {
    sample() {
      const started = performance.now();
      let output: string;
      try {
        output = execFileSync("ps", ["-A", "-o", "pid=,ppid=,pgid=,sess=,time="], {
          encoding: "utf8",
          stdio: ["ignore", "pipe", "ignore"],
        });
      } catch {
        return undefined;
      }
      const rows = output
        .split("\n")
        .map((line) => line.trim().split(/\s+/))
        .filter((row) => row.length >= 5)
        .map(([pid, ppid, pgid, sid, time]) => ({
          pid: Number(pid),
          ppid: Number(ppid),
          pgid: Number(pgid),
          sid: Number(sid),
          cpuMs: parsePsTime(time!),
        }));
      const members = new Set<number>();
      for (let grew = true; grew; ) {
        grew = false;
        for (const row of rows) {
          if (members.has(row.pid)) continue;
          if (row.pid === rootPid || row.pgid === rootPid || members.has(row.ppid)) {
            members.add(row.pid);
            grew = true;
          }
        }
      }
      let cpuMs = 0;
      const current = new Map<number, number>();
      for (const row of rows) {
        if (!members.has(row.pid)) continue;
        current.set(row.pid, row.cpuMs);
        cpuMs += Math.max(0, row.cpuMs - (previous.get(row.pid) ?? 0));
      }
      previous = current;
      return { cpuMs, pids: [...members], costMs: performance.now() - started };
    },
  };
}

/**
 * A sampler for the tree of the agent started as `rootPid` (marked with `token`, see
 * `AGENT_TOKEN_VARIABLE`). Its first sample is a baseline: it covers the tree's whole life.
 */
export function createTreeSampler(rootPid: number, token?: string): TreeSampler {
  return process.platform === "linux"
    ? createProcSampler(rootPid, token)
    : createPsSampler(rootPid);
}
