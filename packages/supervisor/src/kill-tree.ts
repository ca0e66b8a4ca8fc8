import { setTimeout as sleep } from "node:timers/promises";
import { findAgentTree, findAgentTreeSync, isRunning, type ProcessEntry } from "./process-tree.js";

/** One stage of a staged kill. */
export interface KillStep {
  signal: "SIGTERM" | "SIGKILL";
  /** Time since the kill started, ms. */
  atMs: number;
  /** Processes signalled (the process group is always signalled too). */
  pids: number[];
}

/** Options for {@link killTree}. */
export interface KillTreeOptions {
  /** The agent's pid, which is also its process group id. */
  rootPid: number;
  /** The token in the agent's environment (see `AGENT_TOKEN_VARIABLE`). */
  token: string;
  /** Time between SIGTERM and SIGKILL, ms. */
  graceMs: number;
  /** Called as each stage starts, before its signals are sent. */
  onStep?: (step: KillStep) => void;
  /** How often to look whether the processes are gone, ms. Default 20. */
  pollMs?: number;
}

/** What a staged kill did. */
export interface KillTreeResult {
  steps: KillStep[];
  /** Processes still alive after SIGKILL (normally none). */
  survivors: number[];
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone (ESRCH) or not ours (EPERM): nothing to do
  }
}

async function stillRunning(entries: ProcessEntry[]): Promise<ProcessEntry[]> {
  const alive = await Promise.all(entries.map(isRunning));
  return entries.filter((_, index) => alive[index]);
}

async function waitGone(
  entries: ProcessEntry[],
  deadline: number,
  pollMs: number,
): Promise<ProcessEntry[]> {
  let remaining = await stillRunning(entries);
  while (remaining.length > 0 && performance.now() < deadline) {
    await sleep(Math.min(pollMs, Math.max(1, deadline - performance.now())));
    remaining = await stillRunning(remaining);
  }
  return remaining;
}

function merge(first: ProcessEntry[], second: ProcessEntry[]): ProcessEntry[] {
  const byPid = new Map(first.map((entry) => [entry.pid, entry]));
  for (const entry of second) byPid.set(entry.pid, entry);
  return [...byPid.values()];
}

/**
 * Kill an agent and every process it started (R-SUP2): SIGTERM to its process group and to
 * each descendant (also those that left the group or were reparented), wait up to `graceMs`
 * for them to go, then SIGKILL to the group and to everything still alive, including
 * descendants that appeared meanwhile. Never blocks the event loop.
 */
export async function killTree(options: KillTreeOptions): Promise<KillTreeResult> {
  const { rootPid, token, graceMs, onStep } = options;
  const pollMs = options.pollMs ?? 20;
  const started = performance.now();
  const steps: KillStep[] = [];
  const send = (name: KillStep["signal"], entries: ProcessEntry[]): void => {
    const step: KillStep = {
      signal: name,
      atMs: Math.round(performance.now() - started),
      pids: entries.map((entry) => entry.pid),
    };
    steps.push(step);
    onStep?.(step);
    signal(-rootPid, name);
    for (const entry of entries) signal(entry.pid, name);
  };

  const first = await findAgentTree(rootPid, token);
  send("SIGTERM", first);
  let remaining = await waitGone(first, started + graceMs, pollMs);
  // Descendants spawned during the grace period (or missed while their parent was exiting).
  const late = (await findAgentTree(rootPid, token)).filter(
    (entry) => !first.some((known) => known.pid === entry.pid),
  );
  remaining = merge(remaining, late);
  if (remaining.length > 0) {
    send("SIGKILL", remaining);
    remaining = await waitGone(remaining, performance.now() + 2_000, pollMs);
  }
  return { steps, survivors: remaining.map((entry) => entry.pid) };
}

/** SIGKILL the whole tree at once, synchronously: for a wrapper that is about to die. */
export function killTreeSync(rootPid: number, token: string): number[] {
  const entries = findAgentTreeSync(rootPid, token);
  signal(-rootPid, "SIGKILL");
  for (const entry of entries) signal(entry.pid, "SIGKILL");
  return entries.map((entry) => entry.pid);
}
