// Runs a cursor-wrap command line inside the test process, for tests that check what the CLI
// decides and prints rather than what only a real process shows (signals, process groups,
// pipes, terminals: those stay in the end-to-end tests that run the built executable). The
// command line goes through the same `runCli` the executable calls, with streams of the test's
// own; a run's agent is started in memory (`@cursor-wrap/run/testing`), not as a process.

import { join } from "node:path";
import { PassThrough } from "node:stream";
import { fakeAgentProcess } from "@cursor-wrap/run/testing";
import { type AgentProcess, type StartOptions, start } from "@cursor-wrap/supervisor";
import { agentEvents, type FakeAgentOptions } from "@cursor-wrap/testkit";
import { runCli } from "../src/cli.js";
import { fakeAgentEnvIn, QUIET_ENVIRONMENT, runDirectory, withDefaults } from "./harness.js";

/** What an in-process run printed and its exit code, as {@link run} of the harness gives it. */
export interface InProcessRun {
  code: number;
  stdout: Buffer;
  stderr: string;
  /** The run's log directory (the one `--log-dir` named, with the default flags). */
  logDir: string;
}

/**
 * Starts the fake agent (`@cursor-wrap/testkit`) as a real process for an in-process run, with
 * its scenario and its record in `dir`: the agent's behaviour is the end-to-end tests' own, only
 * the CLI runs in the test process. `env` is added to the agent's environment.
 */
export function fakeAgentStarter(
  dir: string,
  options: {
    scenario?: FakeAgentOptions["scenario"];
    speed?: number;
  },
): (options: StartOptions) => Promise<AgentProcess> {
  // `options.env` reaches the agent through the CLI's environment, as it would for real.
  return (startOptions) =>
    start({ ...startOptions, env: { ...startOptions.env, ...fakeAgentEnvIn(dir, options) } });
}

/** Options for {@link runInProcess}. */
export interface InProcessOptions {
  /** Written to stdin, which is then closed. Default: closed empty. */
  input?: string | Buffer;
  /** Added to the test process's environment (the command reads only this, not `process.env`). */
  env?: Record<string, string>;
  /**
   * Default flags are added to a run's command line unless false, as the harness adds them:
   * --agent-bin, --log-dir (a fresh directory), short kill and drain graces.
   */
  defaults?: boolean;
  /** The log directory the default flags name. Default: a fresh one. */
  logDir?: string;
  /** Starts each turn's agent (see {@link inMemoryAgent}); without it a run starts real processes. */
  startAgent?: (options: StartOptions) => Promise<AgentProcess>;
}

/** Run a command line in-process to the end. */
export async function runInProcess(
  args: string[],
  options: InProcessOptions = {},
): Promise<InProcessRun> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  let err = "";
  stdout.on("data", (chunk: Buffer) => out.push(chunk));
  stderr.on("data", (chunk: Buffer) => {
    err += chunk.toString("utf8");
  });
  stdin.end(options.input ?? "");
  const logDir = options.logDir ?? logDirectory();
  const code = await runCli(
    withDefaults(args, logDir, options.defaults !== false),
    {
      stdin,
      stdout,
      stderr,
      ...(options.startAgent ? { startAgent: options.startAgent } : {}),
    },
    // As the executable's tests run it: no CI integrations, no colours.
    { ...process.env, ...QUIET_ENVIRONMENT, ...options.env },
  );
  stdout.end();
  stderr.end();
  return { code, stdout: Buffer.concat(out), stderr: err, logDir };
}

/** One start of an in-memory agent: its arguments and the prompt it was given on stdin. */
export interface AgentStart {
  args: readonly string[];
  /** The prompt as the agent reads it from stdin. */
  prompt: string;
}

/**
 * What an in-memory agent does when started: print its stdout (and stderr) bytes, then exit
 * with `code`, or (`null`) stay alive and silent until it is killed, as a hung agent does.
 */
export type AgentScript = (start: AgentStart) => {
  stdout: string | Buffer;
  stderr?: string | Buffer;
  code: number | null;
};

/**
 * The fake agent's `quick` scenario, in memory: an init, the prompt echoed as the user's
 * message, `Done: <prompt>` as the answer, and a successful result.
 */
export const quickTurn: AgentScript = ({ prompt }) => {
  const context = { sessionId: "00000000-0000-4000-8000-0000000000aa", requestId: "req-quick" };
  const text = `Done: ${prompt}`;
  const lines = [
    agentEvents.init(context),
    agentEvents.user(context, prompt),
    agentEvents.assistant(context, text),
    agentEvents.result(context, text, { durationMs: 1_000 }),
  ];
  return { stdout: lines.map((line) => `${JSON.stringify(line)}\n`).join(""), code: 0 };
};

/**
 * An agent in memory for {@link runInProcess}: each start prints what `script` says and exits;
 * `starts` records every start, as the fake agent's invocations file does.
 */
export function inMemoryAgent(script: AgentScript = quickTurn): {
  starts: AgentStart[];
  start(options: StartOptions): Promise<AgentProcess>;
} {
  const starts: AgentStart[] = [];
  return {
    starts,
    async start(options) {
      const agent = fakeAgentProcess();
      const handle = await agent.start(options);
      const prompt =
        typeof options.prompt === "string"
          ? options.prompt
          : Buffer.from(options.prompt).toString("utf8");
      const start = { args: options.args ?? [], prompt };
      starts.push(start);
      const { stdout, stderr, code } = script(start);
      // After the caller has its handle: as a real process's output comes after its spawn.
      setImmediate(() => {
        agent.stdout(stdout);
        if (stderr !== undefined) agent.stderr(stderr);
        if (code !== null) agent.exit({ code, signal: null });
      });
      return handle;
    },
  };
}

/** A fresh directory for a run's logs. */
export function logDirectory(): string {
  return join(runDirectory("cursor-wrap-in-process-"), "logs");
}

/** An in-process run with the fake agent as a real process: what {@link runWithFakeAgent} gives. */
export interface FakeAgentRun extends InProcessRun {
  /** The run's directory: the fake agent's invocations (`invocations()` of the harness). */
  dir: string;
}

/**
 * Run a command line in-process against the fake agent started as a real process with
 * `scenario`: for tests of what the CLI decides from what the agent does (recovery, rendering,
 * reports), which need no process of the CLI's own. `env` reaches both the CLI and the agent.
 */
export async function runWithFakeAgent(
  args: string[],
  options: {
    scenario?: FakeAgentOptions["scenario"];
    env?: Record<string, string>;
    input?: string;
    /** Replay speed of `replay:` scenarios. */
    speed?: number;
  } = {},
): Promise<FakeAgentRun> {
  const dir = runDirectory();
  const result = await runInProcess(args, {
    logDir: join(dir, "logs"),
    ...(options.input === undefined ? {} : { input: options.input }),
    ...(options.env === undefined ? {} : { env: options.env }),
    startAgent: fakeAgentStarter(dir, options),
  });
  return { ...result, dir };
}
