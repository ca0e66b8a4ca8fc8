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
  /** How long SIGKILLed processes get to disappear before they count as survivors, ms. Default 2000. */
  reapWaitMs?: number;
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

/** How a kill sees and touches processes (the system's; tests pass their own). */
export interface KillIo {
  findTree(rootPid: number, token: string): Promise<ProcessEntry[]>;
  isRunning(entry: ProcessEntry): Promise<boolean>;
  signal(pid: number, name: NodeJS.Signals): void;
}

const SYSTEM: KillIo = { findTree: findAgentTree, isRunning, signal };

// The global timer, not node:timers/promises: tests drive it with a fake clock.
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function merge(first: ProcessEntry[], second: ProcessEntry[]): ProcessEntry[] {
  const byPid = new Map(first.map((entry) => [entry.pid, entry]));
  for (const entry of second) byPid.set(entry.pid, entry);
  return [...byPid.values()];
}

/**
 * Whether the process group numbered like the agent can be signalled: only while a process
 * found to be of this run (by token, ancestry or session) is still in it. Once the agent is
 * reaped and its group empty, the number may belong to a stranger (PID reuse).
 */
function groupIsOurs(rootPid: number, entries: readonly ProcessEntry[]): boolean {
  return entries.some((entry) => entry.pgid === rootPid);
}

/**
 * Kill an agent and every process it started (R-SUP2): SIGTERM to its process group and to
 * each descendant (also those that left the group or were reparented), wait up to `graceMs`
 * for them to go, then SIGKILL to the group and to everything still alive, including
 * descendants that appeared meanwhile; a last look then finds whatever is still there, kills
 * it, and reports it as a survivor. A pid or group is signalled only while it is verifiably
 * still this run's (same start time; a live member in the group). Never blocks the event loop.
 */
export async function killTree(
  options: KillTreeOptions,
  io: KillIo = SYSTEM,
): Promise<KillTreeResult> {
  const { rootPid, token, graceMs, onStep } = options;
  const pollMs = options.pollMs ?? 20;
  const reapWaitMs = options.reapWaitMs ?? 2_000;
  const started = performance.now();
  const stillRunning = async (entries: ProcessEntry[]): Promise<ProcessEntry[]> => {
    const alive = await Promise.all(entries.map((entry) => io.isRunning(entry)));
    return entries.filter((_, index) => alive[index]);
  };
  const waitGone = async (entries: ProcessEntry[], deadline: number): Promise<ProcessEntry[]> => {
    let remaining = await stillRunning(entries);
    while (remaining.length > 0 && performance.now() < deadline) {
      await sleep(Math.min(pollMs, Math.max(1, deadline - performance.now())));
      remaining = await stillRunning(remaining);
    }
    return remaining;
  };
  const steps: KillStep[] = [];
  const send = async (name: KillStep["signal"], entries: ProcessEntry[]): Promise<void> => {
    const alive = await stillRunning(entries);
    const step: KillStep = {
      signal: name,
      atMs: Math.round(performance.now() - started),
      pids: alive.map((entry) => entry.pid),
    };
    steps.push(step);
    onStep?.(step);
    if (groupIsOurs(rootPid, alive)) io.signal(-rootPid, name);
    for (const entry of alive) io.signal(entry.pid, name);
  };

  const first = await io.findTree(rootPid, token);
  await send("SIGTERM", first);
  // The grace runs from the SIGTERM, not from the kill's start: finding the tree reads all of
  // /proc, which on a loaded machine can take longer than the whole grace.
  let remaining = await waitGone(first, performance.now() + graceMs);
  // Descendants spawned during the grace period (from a SIGTERM handler, say) or missed
  // while their parent was exiting.
  remaining = merge(remaining, await io.findTree(rootPid, token));
  if (remaining.length > 0) {
    await send("SIGKILL", remaining);
    remaining = await waitGone(remaining, performance.now() + reapWaitMs);
  }
  // A last look, so that what the log calls survivors is what is really left.
  const left = merge(remaining, await io.findTree(rootPid, token));
  if (left.length > 0) {
    await send("SIGKILL", left);
    remaining = await waitGone(left, performance.now() + reapWaitMs);
  }
  return { steps, survivors: remaining.map((entry) => entry.pid) };
}

/**
 * SIGKILL the whole tree at once, synchronously: for a wrapper that is about to die.
 * `rootGone`: the agent has exited (its descendants may not have: one that ignores SIGTERM
 * outlives a staged kill's first step); they are found by the run's token.
 */
export function killTreeSync(rootPid: number, token: string, rootGone = false): number[] {
  const entries = findAgentTreeSync(rootPid, token, rootGone);
  if (groupIsOurs(rootPid, entries)) signal(-rootPid, "SIGKILL");
  for (const entry of entries) signal(entry.pid, "SIGKILL");
  return entries.map((entry) => entry.pid);
}
