// Runs the built cursor-wrap executable against the fake agent, for the end-to-end tests.

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadPty } from "@cursor-wrap/supervisor";
import {
  type FakeAgentOptions,
  fakeAgentBin,
  fakeAgentEnv,
  type Invocation,
  isAlive,
  readInvocations,
  readPids,
} from "@cursor-wrap/testkit";
import { afterAll, expect } from "vitest";

/** Thresholds short enough that hangs and lingers show within a second. */
export const FAST = ["--idle-timeout", "500ms", "--tool-grace", "300ms", "--exit-grace", "300ms"];

/** At the end of the file's tests: fail if any process they started is still alive, and kill it. */
export function checkNoSurvivorsAfterAll(): void {
  afterAll(() => {
    const left = survivors();
    killSurvivors();
    expect(left).toEqual([]);
  });
}

/** The built executable, as users run it. */
export const CLI = fileURLToPath(new URL("../bin/cursor-wrap.js", import.meta.url));

/** Every directory a test run used, for the orphan check at the end of the suite. */
const runDirs: string[] = [];

// The runs' directories (logs, the fake agent's records) go once the file's tests are done:
// registered first, this hook runs after every other (vitest runs them as a stack), the
// orphan check's included, which reads them.
afterAll(() => {
  for (const dir of runDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export interface WrapOptions {
  scenario?: FakeAgentOptions["scenario"];
  /** Written to stdin, which is then closed; `null` leaves stdin open. Default: closed empty. */
  input?: string | null;
  env?: Record<string, string>;
  /** Default flags are added unless false: --agent-bin, --log-dir, short kill/drain graces. */
  defaults?: boolean;
  speed?: number;
  /** Extra Node.js flags for the wrapper process, e.g. `--expose-gc`. */
  nodeArgs?: string[];
  /** The wrapper's working directory. Default: the test process's. */
  cwd?: string;
}

export interface WrapRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
  dir: string;
  logDir: string;
  /** Wall time from spawn to exit, ms. */
  elapsedMs: number;
}

export interface Wrapped {
  child: ChildProcessWithoutNullStreams;
  dir: string;
  logDir: string;
  /** Resolves once stdout contains `text`. */
  stdoutHas(text: string): Promise<void>;
  done: Promise<WrapRun>;
}

/**
 * A directory for one run (its log, the fake agent's record of invocations and pids), checked
 * for surviving processes by {@link checkNoSurvivorsAfterAll}.
 */
export function runDirectory(prefix = "cursor-wrap-e2e-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  runDirs.push(dir);
  return dir;
}

/** The fake agent's environment for a run in `dir`: its scenario, and where it records itself. */
export function fakeAgentEnvIn(
  dir: string,
  options: { scenario?: FakeAgentOptions["scenario"]; speed?: number },
): Record<string, string> {
  return fakeAgentEnv({
    scenario: options.scenario,
    record: join(dir, "invocations.jsonl"),
    pidFile: join(dir, "pids"),
    // Attempt counters of scenarios that fail the first N times (`overloaded:2`).
    state: join(dir, "state.json"),
    descendantTtlMs: 30_000,
    ...(options.speed === undefined ? {} : { speed: options.speed }),
  });
}

/**
 * A command line with the tests' defaults in front (the fake agent, a log directory, short
 * kill and drain graces), except for the commands that take no agent (`logs`, `replay`,
 * `demo`) or when `defaults` is false.
 */
export function withDefaults(args: string[], logDir: string, defaults = true): string[] {
  const command = args[0];
  if (!defaults || command === "logs" || command === "replay" || command === "demo") return args;
  return [
    "--agent-bin",
    fakeAgentBin,
    "--log-dir",
    logDir,
    "--kill-grace",
    "300ms",
    "--drain-grace",
    "300ms",
    ...args,
  ];
}

/**
 * What every test run of the CLI sets over the test process's environment: a test run in CI
 * must not turn every run into a GitHub or traced one (the operations tests ask for those
 * themselves), and no colours.
 */
export const QUIET_ENVIRONMENT: Readonly<Record<string, string>> = {
  GITHUB_ACTIONS: "",
  GITHUB_STEP_SUMMARY: "",
  OTEL_EXPORTER_OTLP_ENDPOINT: "",
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "",
  OTEL_TRACES_EXPORTER: "",
  TRACEPARENT: "",
  NO_COLOR: "1",
};

/** Start cursor-wrap with the fake agent. */
export function wrap(args: string[], options: WrapOptions = {}): Wrapped {
  const dir = runDirectory();
  const logDir = join(dir, "logs");
  const finalArgs = withDefaults(args, logDir, options.defaults !== false);
  const started = performance.now();
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), CLI, ...finalArgs], {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env: {
      ...process.env,
      ...QUIET_ENVIRONMENT,
      ...fakeAgentEnvIn(dir, options),
      ...options.env,
    },
  });
  const stdout: Buffer[] = [];
  let stderr = "";
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  child.stdout.on("data", (chunk: Buffer) => {
    stdout.push(chunk);
    // Joining everything read so far at every chunk costs the square of the output (minutes
    // for a 50 MB line): only when a test waits for something.
    if (waiters.length === 0) return;
    const text = Buffer.concat(stdout).toString("utf8");
    for (const waiter of waiters.splice(0)) {
      if (text.includes(waiter.text)) waiter.resolve();
      else waiters.push(waiter);
    }
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  child.stdin.on("error", () => {});
  if (options.input !== null) child.stdin.end(options.input ?? "");
  const done = new Promise<WrapRun>((resolve) => {
    child.on("close", (code, signal) =>
      resolve({
        code,
        signal,
        stdout: Buffer.concat(stdout),
        stderr,
        dir,
        logDir,
        elapsedMs: performance.now() - started,
      }),
    );
  });
  return {
    child,
    dir,
    logDir,
    done,
    stdoutHas(text) {
      if (Buffer.concat(stdout).toString("utf8").includes(text)) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ text, resolve }));
    },
  };
}

/** Run cursor-wrap to the end. */
export function run(args: string[], options: WrapOptions = {}): Promise<WrapRun> {
  return wrap(args, options).done;
}

/** The agent invocations of a run, in order. */
export function invocations(run: { dir: string }): Invocation[] {
  return readInvocations(join(run.dir, "invocations.jsonl"));
}

/** The log files of a run. */
export function logFiles(run: { logDir: string }): string[] {
  try {
    return readdirSync(run.logDir).map((name) => join(run.logDir, name));
  } catch {
    return [];
  }
}

/** The records of a run's (only) log file. */
export function logRecords(run: { logDir: string }): Array<Record<string, unknown>> {
  const [file] = logFiles(run);
  if (!file) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/**
 * Resolves with the records of a running wrapper's log once `enough` holds for them (read as
 * the log grows), or with what is there when the wrapper ended first: the test's assertions
 * then say what is missing.
 */
export async function loggedUntil(
  wrapped: Wrapped,
  enough: (records: Array<Record<string, unknown>>) => boolean,
): Promise<Array<Record<string, unknown>>> {
  let ended = false;
  void wrapped.done.then(() => {
    ended = true;
  });
  for (;;) {
    const [file] = logFiles(wrapped);
    // Only whole lines: the wrapper may be half-way through writing the last one.
    const text = file ? readFileSync(file, "utf8") : "";
    const records = text
      .slice(0, text.lastIndexOf("\n") + 1)
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    if (enough(records) || ended) return records;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The processes every run started (agents and their descendants) that are still alive. */
export function survivors(): number[] {
  const pids = runDirs.flatMap((dir) => [
    ...readInvocations(join(dir, "invocations.jsonl")).map((invocation) => invocation.pid),
    ...readPids(join(dir, "pids")),
  ]);
  return pids.filter(isAlive);
}

/** Kill whatever runs left behind (after the check). */
export function killSurvivors(): void {
  for (const pid of survivors()) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
}

/** The wrapper lines cursor-wrap added to a stream-json output. */
export function wrapperLines(stdout: Buffer): Array<Record<string, unknown>> {
  return stdout
    .toString("utf8")
    .split("\n")
    .filter((line) => line.startsWith('{"type":"wrapper"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** A pseudo-terminal package, or null where none loads (terminal tests are then skipped). */
export const pty = await loadPty();
if (!pty)
  console.warn(
    "cursor-wrap terminal tests skipped: neither @lydell/node-pty nor node-pty could be loaded here",
  );

/** Options for {@link onTerminal}. */
export interface TerminalOptions {
  scenario?: string;
  env?: Record<string, string>;
  /** Default flags (--agent-bin, --log-dir) are added unless false. */
  defaults?: boolean;
  /**
   * Pipe stdout through `cat` to the same terminal (stderr stays on it), as `| head` or `| less`
   * would: cursor-wrap sees a pipe, and what it prints on both streams meets on one screen.
   */
  pipeStdout?: boolean;
  /**
   * Run it as a job of a shell with job control, as people do: Ctrl+Z stops it (a process
   * alone on a terminal is in an orphaned group, where the kernel ignores Ctrl+Z); the shell
   * then prints `stopped` and brings it back with `fg`. `exited` is the shell's exit code,
   * which is cursor-wrap's.
   */
  jobControl?: boolean;
  /**
   * Run it from a shell that, once it exits, reads a line from the terminal (for a moment) and
   * prints it as `shell read: [<line>]`: what a shell would get of the input left over.
   */
  shellReadsAfter?: boolean;
}

/** Run cursor-wrap on a terminal; resolves with its exit code and everything it printed. */
export function onTerminal(args: string[], options: TerminalOptions | string = {}) {
  const {
    scenario,
    env = {},
    defaults = true,
    jobControl = false,
    pipeStdout = false,
    shellReadsAfter = false,
  } = typeof options === "string" ? { scenario: options } : options;
  const dir = mkdtempSync(join(tmpdir(), "cursor-wrap-pty-"));
  runDirs.push(dir);
  const command = [
    process.execPath,
    CLI,
    ...(defaults ? ["--agent-bin", fakeAgentBin, "--log-dir", join(dir, "logs")] : []),
    ...args,
  ];
  const shell = jobControl
    ? ["/bin/bash", "--norc", "--noprofile", "-c", 'set -m; "$@"; echo stopped; fg', "bash"]
    : pipeStdout
      ? ["/bin/sh", "-c", '"$@" | cat', "sh"]
      : shellReadsAfter
        ? [
            "/bin/bash",
            "--norc",
            "--noprofile",
            "-c",
            '"$@"; code=$?; IFS= read -r -t 1 line; printf "\\nshell read: [%s]\\n" "$line"; exit $code',
            "bash",
          ]
        : [];
  const line = [...shell, ...command];
  const terminal = pty!.spawn(line[0]!, line.slice(1), {
    cols: 100,
    rows: 30,
    env: {
      ...process.env,
      NO_COLOR: "1",
      ...fakeAgentEnv({
        scenario,
        record: join(dir, "invocations.jsonl"),
        pidFile: join(dir, "pids"),
        state: join(dir, "state.json"),
        descendantTtlMs: 30_000,
      }),
      ...env,
    } as Record<string, string>,
  });
  let output = "";
  const waiters: Array<{ text: string; from: number; resolve: () => void }> = [];
  terminal.onData((data) => {
    output += data;
    for (const waiter of waiters.splice(0)) {
      if (output.indexOf(waiter.text, waiter.from) !== -1) waiter.resolve();
      else waiters.push(waiter);
    }
  });
  let seen = 0;
  const exited = new Promise<number>((resolve) =>
    terminal.onExit(({ exitCode }) => resolve(exitCode)),
  );
  return {
    terminal,
    exited,
    dir,
    logDir: join(dir, "logs"),
    output: () => output,
    /** Resolves when `text` appears after everything seen so far. */
    sees(text: string): Promise<void> {
      const found = output.indexOf(text, seen);
      if (found !== -1) {
        seen = found + text.length;
        return Promise.resolve();
      }
      const from = seen;
      return new Promise<void>((resolve) =>
        waiters.push({
          text,
          from,
          resolve: () => {
            seen = output.indexOf(text, from) + text.length;
            resolve();
          },
        }),
      );
    },
  };
}
