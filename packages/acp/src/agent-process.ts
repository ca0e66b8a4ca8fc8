// The agent the proxy talks to, as the proxy needs it: its stdio, its exit, a staged kill of
// its whole tree, and samples of what the tree is doing. The default starts it with the
// supervisor (its own process group, a token every descendant carries); tests pass streams.

import type { Readable, Writable } from "node:stream";
import { type AgentProcess, type KillStep, start, type TreeSample } from "@cursor-wrap/supervisor";

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
  /** Time between SIGTERM and SIGKILL when its tree is killed, ms. */
  killGraceMs?: number;
  /** How long its output may stay open after it exits, ms. */
  drainGraceMs?: number;
  /** Called with each process once started (e.g. to record its token). */
  onStart?: (agent: AgentProcess) => void;
}

/**
 * Start the agent with the supervisor: in a process group of its own, with a token in the
 * environment of every process it starts, so its whole tree can be sampled and killed.
 */
export function supervisedAgent(options: SupervisedAgentOptions): AcpAgentLauncher {
  return async () => {
    const agent = await start({
      bin: options.bin,
      args: options.args,
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
      ...(options.drainGraceMs === undefined ? {} : { drainGraceMs: options.drainGraceMs }),
    });
    options.onStart?.(agent);
    return {
      pid: agent.pid,
      // Started without a prompt, the supervisor leaves stdin open: it is always there.
      stdin: agent.stdin!,
      stdout: agent.stdout,
      stderr: agent.stderr,
      exited: agent.exited,
      async kill(reason) {
        const report = await agent.kill(reason);
        return { steps: report.steps, survivors: report.survivors };
      },
      sampleTree: () => agent.sampleTree(),
    };
  };
}
