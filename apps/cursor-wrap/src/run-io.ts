import type { AgentProcess, StartOptions } from "@cursor-wrap/supervisor";

/**
 * The process streams a command talks to, and how a run starts its agent (both injectable for
 * tests: in-process tests of the command line pass streams of their own and an agent in memory).
 */
export interface RunIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream & { isTTY?: boolean; writableNeedDrain?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; writableNeedDrain?: boolean };
  /** Starts the agent of each turn. Default: the supervisor's `start` (a real process group). */
  startAgent?: (options: StartOptions) => Promise<AgentProcess>;
}
