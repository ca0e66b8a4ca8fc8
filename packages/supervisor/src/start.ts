import { isUtf8 } from "node:buffer";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { accessSync, constants, readSync, statSync } from "node:fs";
import { constants as osConstants } from "node:os";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { DEFAULT_DRAIN_GRACE_MS, DEFAULT_KILL_GRACE_MS } from "./defaults.js";
import { AgentSpawnError, PtyUnavailableError } from "./errors.js";
import { type KillStep, killTree, killTreeSync } from "./kill-tree.js";
import { loadPty } from "./load-pty.js";
import { type ExitInfo, spawnProcessGroup } from "./process-group.js";
import { AGENT_TOKEN_VARIABLE, newTreeToken } from "./process-tree.js";
import { createControlStripper } from "./terminal-controls.js";
import { createTreeSampler, type TreeSample, type TreeSampler } from "./tree-sampler.js";

export type { ExitInfo } from "./process-group.js";

/** What {@link AgentProcess.kill} did. */
export interface KillReport extends ExitInfo {
  reason: string;
  /** The agent had already exited: nothing was signalled. */
  alreadyExited: boolean;
  steps: KillStep[];
  /** Processes of the tree still alive after SIGKILL (normally none). */
  survivors: number[];
  /** Time from the kill request to the agent's exit, ms. */
  durationMs: number;
}

/** The records the supervisor writes to its logger, by message. */
export const SUPERVISOR_RECORDS = [
  "kill_step",
  "kill_survivors",
  "stdout_held_open_after_exit",
] as const;

/** The small logger interface the supervisor reports to (pino's call shape). */
export interface SupervisorLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

/** Terminal size for `pty` mode. */
export interface PtySize {
  cols: number;
  rows: number;
}

/** Options for {@link start}. */
export interface StartOptions {
  /** The agent binary: a name looked up on PATH, or a path. */
  bin: string;
  /** Its arguments (cursor-agent's for a headless turn: `--print --output-format stream-json …`). */
  args?: readonly string[];
  /**
   * The prompt, written to stdin (its bytes as they are), which is then closed. With a pty it
   * is the last argument instead: it must then be UTF-8 text without NUL, under
   * {@link MAX_PTY_PROMPT_BYTES}.
   */
  prompt: string | Uint8Array;
  cwd?: string;
  /** Environment (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /**
   * Run the agent on a pseudo-terminal (R-SUP5) of this size (`true`: 80×24). Output is then
   * one stream with terminal control sequences removed, and the prompt becomes the last argument.
   */
  pty?: boolean | PtySize;
  /** Time between SIGTERM and SIGKILL when killing, ms. Default {@link DEFAULT_KILL_GRACE_MS}. */
  killGraceMs?: number;
  /** How long after the agent's exit its stdout may stay open (held by a descendant), ms. Default {@link DEFAULT_DRAIN_GRACE_MS}. */
  drainGraceMs?: number;
  logger?: SupervisorLogger;
}

/** A running agent. */
export interface AgentProcess {
  readonly pid: number;
  /** The token every process of this run carries in its environment (`AGENT_TOKEN_VARIABLE`). */
  readonly token: string;
  /** The agent's stdout, as bytes. */
  readonly stdout: Readable;
  /** The agent's stderr, drained continuously so a full pipe never stalls it; undefined with a pty. */
  readonly stderr: Readable | undefined;
  /** Resolves when the process exits. */
  readonly exited: Promise<ExitInfo>;
  /**
   * Resolves when the turn is over (R-SUP6b): the process exited and its stdout and stderr
   * reached EOF, or `drainGraceMs` after the exit if a descendant keeps them open (they are
   * then closed).
   */
  readonly closed: Promise<ExitInfo>;
  /** Exit info once the process has exited. */
  readonly exitInfo: ExitInfo | undefined;
  /** `kill()` has been called (the staged kill may still be waiting out its grace). */
  readonly killRequested: boolean;
  /**
   * Kill the agent and every process it started: SIGTERM, `killGraceMs`, SIGKILL (R-SUP2).
   * Idempotent; never blocks the event loop; resolves once the agent has exited.
   */
  kill(reason?: string): Promise<KillReport>;
  /**
   * SIGKILL the whole tree synchronously, for a wrapper about to exit (an error, a second
   * Ctrl+C). Once the agent has exited, only a kill already under way is finished (what the
   * agent left running after a normal exit is the user's).
   */
  killSync(): void;
  /** Follow the user's terminal size (pty mode only; no-op otherwise). */
  resize(size: PtySize): void;
  /**
   * What the agent's process tree did since the previous sample (CPU time, bytes moved, its
   * processes), for telling a quiet agent that works from a parked one (R-MON11). The first
   * sample covers the tree's life so far. Undefined where processes cannot be read.
   */
  sampleTree(): TreeSample | undefined;
}

const DEFAULT_PTY: PtySize = { cols: 80, rows: 24 };

export { DEFAULT_DRAIN_GRACE_MS, DEFAULT_KILL_GRACE_MS };

/**
 * Resolves once the handles closed so far have been released: libuv runs close callbacks at
 * the end of a loop iteration, after `setImmediate` callbacks, so two of them get past it.
 */
function afterClosingHandles(): Promise<void> {
  return new Promise((resolveLater) => setImmediate(() => setImmediate(resolveLater)));
}

/** Resolves once a stream has ended or been destroyed, and closed. */
function closeOf(stream: Readable): Promise<void> {
  if (stream.closed || stream.destroyed) return Promise.resolve();
  return new Promise((resolveClose) => stream.once("close", () => resolveClose()));
}

function signalName(value: number | string | null | undefined): NodeJS.Signals | null {
  if (value === null || value === undefined || value === 0) return null;
  if (typeof value === "string") return value as NodeJS.Signals;
  const entry = Object.entries(osConstants.signals).find(([, number]) => number === value);
  return (entry?.[0] as NodeJS.Signals | undefined) ?? null;
}

/**
 * Find an executable like the shell would: a path (relative to `cwd`) as it is, a bare name
 * on `PATH`. Returns its path, or undefined with the reason (`ENOENT`, or `EACCES` with the
 * path of a file that is there but not executable).
 */
export function findExecutable(
  bin: string,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): { path: string } | { path: undefined; reason: "ENOENT" | "EACCES"; denied?: string } {
  const candidates = bin.includes("/")
    ? [isAbsolute(bin) ? bin : resolve(cwd, bin)]
    : (env.PATH ?? "")
        .split(delimiter)
        .filter(Boolean)
        .map((directory) => join(directory, bin));
  let denied: string | undefined;
  for (const candidate of candidates) {
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return { path: candidate };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EACCES") denied = candidate;
    }
  }
  return denied === undefined
    ? { path: undefined, reason: "ENOENT" }
    : { path: undefined, reason: "EACCES", denied };
}

/** Resolve the binary, so a missing one is reported before spawning. */
function resolveBinary(bin: string, env: NodeJS.ProcessEnv, cwd: string): string {
  checkWorkingDirectory(bin, cwd);
  const found = findExecutable(bin, env, cwd);
  if (found.path !== undefined) return found.path;
  if (found.reason === "EACCES") {
    throw new AgentSpawnError(bin, "EACCES", `${found.denied} is not executable`);
  }
  if (bin.includes("/") && isDirectory(resolve(cwd, bin))) {
    throw new AgentSpawnError(bin, "EISDIR", "is a directory, not a program");
  }
  throw new AgentSpawnError(
    bin,
    "ENOENT",
    bin.includes("/") ? "no such file" : "not found on PATH",
  );
}

/**
 * A working directory that is not one fails the spawn as ENOENT or EACCES, which read as the
 * binary's: said as what it is.
 */
function checkWorkingDirectory(bin: string, cwd: string): void {
  const refuse = (code: string, what: string): never => {
    throw new AgentSpawnError(bin, code, `its working directory ${cwd} ${what}`);
  };
  let directory: boolean;
  try {
    directory = statSync(cwd).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") refuse(code, "does not exist");
    if (code === "ENOTDIR") refuse(code, "does not exist (a part of its path is a file)");
    if (code === "EACCES") refuse(code, "cannot be reached (permission denied)");
    return;
  }
  if (!directory) refuse("ENOTDIR", "is not a directory");
  try {
    accessSync(cwd, constants.X_OK);
  } catch {
    refuse("EACCES", "cannot be entered (permission denied)");
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Start the agent in its own process group with the prompt on stdin (R-SUP1). Rejects with
 * {@link AgentSpawnError} when the binary cannot be started, {@link PtyUnavailableError} when
 * a pty was asked for and no pty package loads.
 */
export async function start(options: StartOptions): Promise<AgentProcess> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const path = resolveBinary(options.bin, env, cwd);
  // Every process of this run inherits the token, so the kill finds even daemonized descendants.
  const token = newTreeToken();
  const childEnv = { ...env, [AGENT_TOKEN_VARIABLE]: token };
  const launched = options.pty
    ? await launchPty(
        path,
        options,
        childEnv,
        cwd,
        options.pty === true ? DEFAULT_PTY : options.pty,
      )
    : await launchPipes(path, options, childEnv, cwd);

  const killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  const drainGraceMs = options.drainGraceMs ?? DEFAULT_DRAIN_GRACE_MS;
  let exitInfo: ExitInfo | undefined;
  const exited = launched.exited.then((info) => {
    exitInfo = info;
    return info;
  });
  // The turn is over once every output stream has been read to its end (and closed), or
  // drainGraceMs after the exit if a descendant keeps one open: then they are released.
  const closed = exited.then(async (info) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expire = (): void => {
      // Data still waiting for a slow reader is the agent's own output: keep waiting for it.
      if (launched.stdout.readableLength > 0) {
        timer = setTimeout(expire, drainGraceMs);
        return;
      }
      options.logger?.info({ drain_grace_ms: drainGraceMs }, "stdout_held_open_after_exit");
      launched.release();
    };
    timer = setTimeout(expire, drainGraceMs);
    await launched.outputClosed;
    clearTimeout(timer);
    return info;
  });

  let killing: Promise<KillReport> | undefined;
  // A kill that began while the agent ran (not one asked for after its exit, which does nothing).
  let killedRunning = false;
  // When the kill began, and what killSync added to it (a second Ctrl+C: SIGKILL at once).
  let killStartedAt: number | undefined;
  const hurriedSteps: KillStep[] = [];
  let sampler: TreeSampler | undefined;
  return {
    pid: launched.pid,
    token,
    stdout: launched.stdout,
    stderr: launched.stderr,
    exited,
    closed,
    get exitInfo() {
      return exitInfo;
    },
    get killRequested() {
      return killing !== undefined;
    },
    kill(reason = "killed") {
      killing ??= (async () => {
        const started = performance.now();
        if (exitInfo) {
          return {
            ...exitInfo,
            reason,
            alreadyExited: true,
            steps: [],
            survivors: [],
            durationMs: 0,
          };
        }
        killedRunning = true;
        killStartedAt = started;
        const { steps: staged, survivors } = await killTree({
          rootPid: launched.pid,
          token,
          graceMs: killGraceMs,
          onStep: (step) => options.logger?.info({ ...step, reason }, "kill_step"),
        });
        const info = await exited;
        if (survivors.length > 0) options.logger?.warn({ survivors }, "kill_survivors");
        const steps = [...staged, ...hurriedSteps].sort((a, b) => a.atMs - b.atMs);
        return {
          ...info,
          reason,
          alreadyExited: false,
          steps,
          survivors,
          durationMs: Math.round(performance.now() - started),
        };
      })();
      return killing;
    },
    killSync() {
      let pids: number[] | undefined;
      if (!exitInfo) {
        pids = killTreeSync(launched.pid, token);
      } else if (killedRunning) {
        // A kill under way outlived the agent (a descendant ignores SIGTERM): what is left goes
        // now, found by the token. After a normal exit nothing is touched.
        pids = killTreeSync(launched.pid, token, true);
      }
      if (pids === undefined || pids.length === 0) return;
      // A stage of the kill like the others (R-LOG3), also in its report.
      const step: KillStep = {
        signal: "SIGKILL",
        atMs: killStartedAt === undefined ? 0 : Math.round(performance.now() - killStartedAt),
        pids,
      };
      hurriedSteps.push(step);
      options.logger?.info({ ...step, reason: "at once" }, "kill_step");
    },
    resize(size) {
      launched.resize(size);
    },
    sampleTree() {
      sampler ??= createTreeSampler(launched.pid, token);
      return sampler.sample();
    },
  };
}

interface Launched {
  pid: number;
  stdout: Readable;
  stderr: Readable | undefined;
  exited: Promise<ExitInfo>;
  /** Resolves when every output stream of the agent has ended and closed. */
  outputClosed: Promise<void>;
  /** Stop reading the agent's output (its stdout is held open by a descendant). */
  release(): void;
  resize(size: PtySize): void;
}

async function launchPipes(
  path: string,
  options: StartOptions,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<Launched> {
  // The agent leads a new session and process group (see spawnProcessGroup), so the whole
  // tree can be signalled as one, and the terminal's Ctrl+C reaches the wrapper only.
  const group = spawnProcessGroup({
    command: path,
    args: options.args ?? [],
    cwd,
    env,
    token: env[AGENT_TOKEN_VARIABLE],
    killGraceMs: options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
  });
  const child = group.child as ChildProcessWithoutNullStreams;
  const exited = group.exited;
  try {
    await group.spawned;
  } catch (error) {
    const cause = error as NodeJS.ErrnoException;
    throw new AgentSpawnError(options.bin, cause.code, cause.message, { cause });
  }
  // cursor-agent reads its prompt to EOF: an open stdin makes it wait forever.
  child.stdin.end(options.prompt);

  // Read stderr as fast as it comes, whatever the consumer does, so the agent never blocks on it.
  const stderr = new PassThrough({ highWaterMark: 1024 * 1024 });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr.write(chunk);
  });
  child.stderr.once("end", () => stderr.end());
  child.stderr.once("error", () => stderr.end());
  child.stdout.once("error", () => child.stdout.destroy());

  return {
    pid: child.pid!,
    stdout: child.stdout,
    stderr,
    exited,
    // 'close': the process exited and all of its pipes closed. Their handles are released at
    // the end of a later turn of the event loop: wait for that too, so a turn leaves nothing.
    outputClosed: new Promise<void>((resolveClose) =>
      child.once("close", () => resolveClose()),
    ).then(afterClosingHandles),
    release() {
      child.stdout.destroy();
      child.stderr.destroy();
      stderr.end();
    },
    resize() {},
  };
}

/** Longest argument Linux passes to a program (MAX_ARG_STRLEN, with its NUL), bytes. */
export const MAX_PTY_PROMPT_BYTES = 128 * 1024 - 1;

/** The prompt as the agent's last argument, or why it cannot be one. */
function promptArgument(prompt: string | Uint8Array, bin: string): string {
  const bytes = typeof prompt === "string" ? Buffer.from(prompt, "utf8") : Buffer.from(prompt);
  const refuse = (detail: string): never => {
    throw new AgentSpawnError(
      bin,
      "E2BIG",
      `with a pty the prompt is passed as an argument, ${detail}; run without a pty to send it on stdin`,
    );
  };
  if (bytes.includes(0) || !isUtf8(bytes)) refuse("which cannot hold binary data");
  if (bytes.length > MAX_PTY_PROMPT_BYTES) {
    refuse(`and at ${bytes.length} bytes it is over the system's limit of ${MAX_PTY_PROMPT_BYTES}`);
  }
  return bytes.toString("utf8");
}

/**
 * The terminal's end of the output, which node-pty's stream can leave unread: when the agent
 * exits, its side of the terminal hangs up, and libuv takes a hang-up after a short read for
 * the end of the stream, while the kernel still holds what the agent wrote last (up to tens of
 * kilobytes: lines lost, a turn without its result). When that stream ends, the rest is read
 * here, before node-pty closes the terminal: the kernel gives all of it, then EIO. node-pty
 * does not expose its stream; without it (another version), nothing is read here.
 */
function readToTheEnd(terminal: object, take: (bytes: Buffer) => void): void {
  const { _socket: socket, fd } = terminal as { _socket?: unknown; fd?: unknown };
  if (!(socket instanceof Readable) || typeof fd !== "number") return;
  socket.prependOnceListener("end", () => {
    const buffer = Buffer.allocUnsafe(64 * 1024);
    for (;;) {
      let count: number;
      try {
        count = readSync(fd, buffer, 0, buffer.length, null);
      } catch {
        return; // EIO: everything is read (EAGAIN: the other side is still open, nothing waits)
      }
      if (count === 0) return;
      take(Buffer.from(buffer.subarray(0, count)));
    }
  });
}

async function launchPty(
  path: string,
  options: StartOptions,
  env: NodeJS.ProcessEnv,
  cwd: string,
  size: PtySize,
): Promise<Launched> {
  const prompt = promptArgument(options.prompt, options.bin);
  const pty = await loadPty();
  if (!pty) throw new PtyUnavailableError();
  let terminal: ReturnType<typeof pty.spawn>;
  try {
    // On a terminal the prompt cannot travel through stdin without being echoed into the
    // output, so it is the last argument; EOF is then sent for an agent that still reads stdin.
    // A prompt that looks like a flag ("-x is broken") comes after `--`, as its words.
    const args = options.args ?? [];
    const marked = prompt.startsWith("-") && !args.includes("--") ? ["--", prompt] : [prompt];
    terminal = pty.spawn(path, [...args, ...marked], {
      name: "xterm-256color",
      cols: size.cols,
      rows: size.rows,
      cwd,
      env: env as Record<string, string>,
      // Bytes, decoded here: the end of the output read below goes through the same decoder.
      // (node-pty then leaves IUTF8 off the terminal: it only changes how the terminal edits a
      // line typed into it, and the agent's stdin gets nothing but an end of input.)
      encoding: null,
    });
  } catch (error) {
    throw new AgentSpawnError(options.bin, undefined, (error as Error).message, { cause: error });
  }
  const stdout = new Readable({ read() {} });
  const stripper = createControlStripper();
  const decoder = new StringDecoder("utf8");
  const take = (bytes: Buffer): void => {
    const cleaned = stripper.push(decoder.write(bytes));
    if (cleaned) stdout.push(Buffer.from(cleaned, "utf8"));
  };
  // node-pty hands over bytes as a Buffer when it decodes nothing; its type says string.
  const dataSubscription = terminal.onData((data) => take(data as unknown as Buffer));
  readToTheEnd(terminal, take);
  const exited = new Promise<ExitInfo>((resolveExit) => {
    terminal.onExit(({ exitCode, signal }) => {
      const name = signalName(signal);
      resolveExit({ code: name ? null : exitCode, signal: name });
      // Output the terminal had buffered arrives right after the exit: give it a moment.
      setTimeout(() => {
        dataSubscription.dispose();
        const rest = stripper.push(decoder.end()) + stripper.end();
        if (rest) stdout.push(Buffer.from(rest, "utf8"));
        stdout.push(null);
      }, 50);
    });
  });
  terminal.write("\u0004");
  return {
    pid: terminal.pid,
    stdout,
    stderr: undefined,
    exited,
    outputClosed: closeOf(stdout),
    release() {
      dataSubscription.dispose();
      stdout.push(null);
    },
    resize(next) {
      try {
        terminal.resize(next.cols, next.rows);
      } catch {
        // the terminal is already gone
      }
    },
  };
}
