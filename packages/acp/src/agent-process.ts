// The agent the proxy talks to, as the proxy needs it: its stdio, its exit, a staged kill of
// its whole tree, and samples of what the tree is doing. The default runs it the way
// cursor-wrap runs every program whose tree it answers for (the supervisor's
// `spawnProcessGroup`: its own process group and session, a token on every process, its stdin
// kept open, the sentinel, the staged kill); tests pass streams.

import type { Readable, Writable } from "node:stream";
import {
  AgentSpawnError,
  createTreeSampler,
  DEFAULT_DRAIN_GRACE_MS,
  DEFAULT_KILL_GRACE_MS,
  findExecutable,
  type KillStep,
  spawnProcessGroup,
  startTreeSentinel,
  type TreeSample,
  type TreeSampler,
  type TreeSentinel,
} from "@cursor-wrap/supervisor";

/** How an agent process ended. */
export interface AgentExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** What a kill of the agent's tree did. */
export interface AgentKill {
  steps: readonly KillStep[];
  /** Processes of the tree still alive after SIGKILL (normally none). */
  survivors: readonly number[];
}

/** One running agent process, as the proxy uses it. */
export interface AcpAgentHandle {
  /** Its pid (also its process group), when it is a process. */
  readonly pid: number | undefined;
  /** What the proxy writes to it. */
  readonly stdin: Writable;
  /** What it writes: ACP, a line per message. */
  readonly stdout: Readable;
  /** Its diagnostics, if they are to be read. */
  readonly stderr: Readable | undefined;
  /** Resolves when it has exited. */
  readonly exited: Promise<AgentExit>;
  /** Kill it and every process it started, in stages; resolves once it has exited. */
  kill(reason: string): Promise<AgentKill>;
  /** What its process tree did since the previous sample; undefined where that cannot be seen. */
  sampleTree(): TreeSample | undefined;
}

/** Starts a new agent process; rejects (e.g. with an `AgentSpawnError`) when it cannot. */
export type AcpAgentLauncher = () => Promise<AcpAgentHandle>;

/** Options for {@link supervisedAgent}. */
export interface SupervisedAgentOptions {
  /** The agent's binary (a name on PATH, or a path). */
  bin: string;
  /** Its arguments, e.g. `["acp"]`. */
  args: readonly string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Time between SIGTERM and SIGKILL when its tree is killed, ms. Default 3 s. */
  killGraceMs?: number;
  /**
   * How long its output may stay open after it exits (held by a process it started), ms;
   * then the pipes are let go. Default 2 s.
   */
  drainGraceMs?: number;
  /**
   * Guard each agent's tree with the supervisor's sentinel, so that a SIGKILL of this process
   * still ends it. Default true.
   */
  sentinel?: boolean;
  /** Called with each process once started (e.g. to record its token). */
  onStart?: (agent: { pid: number; token: string }) => void;
}

/**
 * Start the agent with the supervisor: in a process group of its own, with a token in the
 * environment of every process it starts, so its whole tree can be sampled and killed; when it
 * exits by itself, what it left running in its tree is stopped too.
 */
export function supervisedAgent(options: SupervisedAgentOptions): AcpAgentLauncher {
  const killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const drainGraceMs = options.drainGraceMs ?? DEFAULT_DRAIN_GRACE_MS;
  // One sentinel for every agent process of this launcher (restarts included).
  let sentinel: TreeSentinel | undefined;
  return async () => {
    const env = options.env ?? process.env;
    const cwd = options.cwd ?? process.cwd();
    // A missing binary is said before anything is spawned, as the run path says it.
    const found = findExecutable(options.bin, env, cwd);
    if (found.path === undefined) {
      const detail =
        found.reason === "EACCES"
          ? `${found.denied} is not executable`
          : options.bin.includes("/")
            ? "no such file"
            : "not found on PATH";
      throw new AgentSpawnError(options.bin, found.reason, detail);
    }
    if (options.sentinel !== false) sentinel ??= startTreeSentinel({ killGraceMs });
    const group = spawnProcessGroup({
      command: found.path,
      args: options.args,
      cwd,
      env,
      stderr: "pipe",
      killGraceMs,
      ...(sentinel ? { sentinel } : {}),
    });
    try {
      await group.spawned;
    } catch (error) {
      const cause = error as NodeJS.ErrnoException;
      throw new AgentSpawnError(options.bin, cause.code, cause.message, { cause });
    }
    const pid = group.pid!;
    options.onStart?.({ pid, token: group.token });
    void group.exited.then(() => {
      // Helpers in its group, or a `setsid` grandchild with its token, go with it.
      void group.stop();
      // A process it started may hold its output open: let the pipes go after the grace.
      const release = setTimeout(() => {
        group.stdout.destroy();
        group.stderr?.destroy();
      }, drainGraceMs);
      release.unref();
      group.stdout.once("close", () => clearTimeout(release));
    });
    let sampler: TreeSampler | undefined;
    return {
      pid,
      stdin: group.stdin,
      stdout: group.stdout,
      stderr: group.stderr ?? undefined,
      exited: group.exited,
      async kill() {
        const report = await group.stop();
        return { steps: report.steps, survivors: report.survivors };
      },
      sampleTree() {
        sampler ??= createTreeSampler(pid, group.token);
        return sampler.sample();
      },
    };
  };
}
