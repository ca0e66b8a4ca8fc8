import {
  type AgentEvent,
  type ContractEvent,
  type ContractTool,
  DEFAULT_PARSE_CAP,
} from "@cursor-wrap/events";
import { combineFormatters, createContractStream, type Formatter } from "@cursor-wrap/format";
import { openSessionLog, type SessionLog } from "@cursor-wrap/logger";
import { checkMonitorOptions, DEFAULT_THRESHOLDS, type MonitorOptions } from "@cursor-wrap/monitor";
import { DEFAULT_POLICY, type RecoveryClock, type RecoveryPolicy } from "@cursor-wrap/recovery";
import {
  type AgentProcess,
  DEFAULT_DRAIN_GRACE_MS,
  DEFAULT_KILL_GRACE_MS,
  type StartOptions,
  startTreeSentinel,
  type TreeSentinel,
} from "@cursor-wrap/supervisor";
import { type AgentArgument, plainAgentArguments, signInArgs, turnArgs } from "./agent-args.js";
import { findAgentBinary } from "./agent-binary.js";
import type { DrainableOutput, StderrMode, StderrShow } from "./agent-output.js";
import type { CancelReason } from "./ending.js";
import { RunUsageError } from "./errors.js";
import { createEventQueue } from "./event-queue.js";
import { closeLogAfterFailure } from "./log-records.js";
import { discardingLog } from "./no-log.js";
import type { WaitDisplay } from "./recovery-wait.js";
import type { TerminalSize, TurnSettings } from "./run-turn.js";
import {
  type AttemptStart,
  type PromptSource,
  runInteractiveSession,
  runPrintSession,
  type SessionContext,
  type SessionControl,
  type SessionResult,
} from "./session.js";

/** One item of a run's event stream: read them with `for await (const event of run)`. */
export type RunEvent =
  /** A line of the agent's stdout, parsed once (`kind: "json"`, or a line that is not JSON). */
  | { kind: "agent"; event: AgentEvent }
  /** The adapter contract's normalised event (`protocol`, `assistant_delta`, …, `done`). */
  | { kind: "contract"; event: ContractEvent }
  /** An attempt at the prompt begins (the first, or a retry the recovery policy decided). */
  | { kind: "attempt"; attempt: AttemptStart }
  /**
   * An agent process started: its pid, and the token every process of its tree carries in
   * its environment (`CURSOR_WRAP_AGENT_TOKEN`), so an orchestrator can record both.
   */
  | { kind: "started"; pid: number; token: string };

/** Which events the run keeps for its reader. */
export type RunEventSelection = "all" | "contract" | "agent" | "none";

/** Where the session log goes: a directory (the run opens and closes it), or a log of yours. */
export type RunLogOption =
  | { dir: string; redact?: boolean; retentionMs?: number }
  | { log: SessionLog };

/**
 * What hosts a run that owns the process (the `cursor-wrap` CLI): its signals, its terminal.
 * A library caller needs none of it: `cancel()` and `signal` stop a run.
 */
export interface RunHost {
  /** Resolves when the host wants the whole run stopped (a signal it received, its output gone). */
  shutdown?: Promise<CancelReason>;
  /** An attempt started: aborting `controller` cancels it (the CLI's Ctrl+C in a turn). */
  turnStarted?(controller: AbortController): void;
  turnEnded?(): void;
  /** One line for people about a failure. Default: none (the events and the result say it). */
  printError?(message: string): void;
  /** The running agent, and `undefined` when it is gone (for a last-resort kill on a crash). */
  onAgent?(agent: AgentProcess | undefined): void;
  /** A countdown while the run waits between attempts. */
  waitDisplay?: WaitDisplay;
  /** The output reaches people (a text rendering): it shows verdicts and errors itself. */
  rendersForPeople?: boolean;
  /** The terminal a pty takes its size from and follows. */
  terminal?: TerminalSize;
  /** Told each chunk's bytes once forwarded (see `createBufferFreer`). */
  freeBuffers?: (bytes: number, largeBytes: number) => void;
}

/** Options for {@link runAgent}. */
export interface RunAgentOptions {
  /**
   * The prompt of a one-prompt run (`-p`): the agent reads it on stdin, its bytes as they are.
   * Give `prompt` or `prompts`.
   */
  prompt?: string | Uint8Array;
  /** An interactive run: one turn per prompt, the session resumed across them. */
  prompts?: PromptSource;
  /** The first prompt of an interactive run, before `prompts` is asked. */
  firstPrompt?: string;
  /** The agent binary. Default: `cursor-agent`, `agent`, then `~/.local/bin/…` (see `findAgentBinary`). */
  agentBin?: string;
  /**
   * The agent's own flags, passed on as they are after the run's `--print --output-format
   * stream-json` (and `--force`, `--resume`, `--model`), e.g. `["--workspace", dir]`. Its
   * sign-in flags are read as such: an auth profile's key replaces `--api-key`/`--auth-token`,
   * and they and `-e`/`-H` go to `agent status` after a sign-in failure.
   */
  args?: readonly string[];
  /** The model (`--model`); a fallback model of the recovery policy replaces it. */
  model?: string;
  /** Pass `--force` so the agent may act without asking (it cannot ask in `--print`). Default true. */
  force?: boolean;
  /** The session to resume on the first turn. */
  resume?: string;
  /** The agent's working directory. Default: this process's. */
  cwd?: string;
  /** The agent's environment. Default: `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Run the agent on a pseudo-terminal (needs `node-pty`). Default false: pipes. */
  pty?: boolean;
  /** Hang detection thresholds (see `@cursor-wrap/monitor`). Default: its defaults. */
  monitor?: MonitorOptions;
  /** SIGTERM to SIGKILL when the tree is killed, ms. Default 3000. */
  killGraceMs?: number;
  /** How long the agent's stdout may stay open after it exited, ms. Default 2000. */
  drainGraceMs?: number;
  /** After a hang: resume with this prompt (retries up to `maxHangRetries`). Default: no retry. */
  promptAfterHang?: string;
  /** Retries after hangs in a row. Default 3 (only with `promptAfterHang`). */
  maxHangRetries?: number;
  /** How other failures are retried (see `decideRecovery`). Default: `DEFAULT_POLICY`. */
  recovery?: Partial<Omit<RecoveryPolicy, "hang">>;
  /** The session log. Default: none. */
  log?: RunLogOption;
  /** Aborting it cancels the run (staged shutdown, as `cancel()`). */
  signal?: AbortSignal;
  /**
   * The turn input's id, echoed in every contract event (`--input-format turn`), and its
   * allow-list of tools (`parseTurnInput` from `@cursor-wrap/run/turn-input` makes both).
   */
  turnId?: string;
  tools?: readonly ContractTool[];
  /**
   * Stop the run on a tool call the list does not allow, or whose arguments fail its schema.
   * The agent runs its own tools, so the call has already started when the run sees it.
   */
  enforceTools?: boolean;
  /** Which events the run keeps for its reader. Default `all`; `none` for a run only awaited. */
  events?: RunEventSelection;
  /**
   * Where the agent's output goes as it arrives, besides the events: a formatter of
   * `@cursor-wrap/format` (the CLI's byte-identical stream-json), and the stream it writes to,
   * whose backpressure pauses the agent.
   */
  output?: { formatter: Formatter; stream: DrainableOutput };
  /** Where the agent's stderr lines are shown, per `stderrMode`. Default: nowhere. */
  stderr?: StderrShow;
  /** Which stderr lines are shown. Default `errors` (with `stderr`), else `none`. */
  stderrMode?: StderrMode;
  /** Longest stdout line parsed; longer lines pass unparsed. Default 64 MiB. */
  parseCap?: number;
  /**
   * The agent's arguments for each attempt, instead of those `args`, `model`, `force` and
   * `resume` make (the CLI builds them from its command line).
   */
  agentArgs?: TurnSettings["agentArgs"];
  /**
   * The flags `agent status` gets before its command to explain a sign-in failure, instead of
   * the sign-in flags found in `args` (`--api-key`, `--auth-token`, `-H`, `-e`). With
   * `agentArgs` and without this, none.
   */
  statusArgs?: TurnSettings["statusArgs"];
  /** The agent's arguments as the log shows them, secrets hidden. */
  redactArgs?: TurnSettings["redactArgs"];
  /** What an auth profile of the recovery policy puts in the agent's environment. */
  profileEnv?: TurnSettings["profileEnv"];
  /**
   * Variables every agent process gets on top of `env`, read at each start (a trace's
   * `TRACEPARENT` naming the attempt).
   */
  agentEnv?: TurnSettings["agentEnv"];
  /** The host of a run that owns the process (signals, terminal). */
  host?: RunHost;
  /** Starts the agent. Default: the supervisor's `start`; tests pass an in-memory agent. */
  start?: (options: StartOptions) => Promise<AgentProcess>;
  /**
   * Guard each agent's tree with the supervisor's tree sentinel (R-SUP3b): if this process dies
   * without cleaning up (SIGKILL, the OOM killer), the agent's tree is killed within the kill
   * grace and a second. Default true, unless `start` is given (an agent of the caller's own);
   * the CLI guards its agents itself.
   */
  treeSentinel?: boolean;
  /** Wall clock and jitter for recovery decisions (tests pass fixed ones). */
  clock?: RecoveryClock;
}

/** How a run went: its ending, the agent's session, every attempt and what it cost. */
export interface RunResult extends SessionResult {
  /** The session log's path, when the run kept one. */
  logPath: string | undefined;
}

/** A supervised run: its events as they happen, its result, and how to stop it. */
export interface AgentRun extends AsyncIterable<RunEvent> {
  /**
   * Resolves when the run is over and no process of it is left: every agent tree killed and
   * reaped, the log closed. Rejects only when the run could not go on (the agent binary not
   * found or not startable, the log directory not writable): a typed error with a `code`.
   */
  readonly result: Promise<RunResult>;
  /**
   * Stop the run: the running agent's tree gets SIGTERM, then SIGKILL after `killGraceMs`; a
   * wait between attempts ends; no attempt follows. `done {finishReason: "cancelled"}` ends
   * the events. Idempotent; `result` still resolves.
   */
  cancel(reason?: string): void;
  /** Cancel only the running attempt (interactive: the run goes on with the next prompt). */
  cancelTurn(): void;
  /** The agent process running now, if any (its `pid`, its `token`). */
  readonly agent: AgentProcess | undefined;
}

/** An output that never holds the agent back (a run with no output of its own). */
const NO_OUTPUT: DrainableOutput = { on: () => undefined, off: () => undefined };

/**
 * The tap that feeds a run's events: the agent's lines as they are, and the contract stream
 * over them and the run's decisions.
 */
function eventTap(
  push: (event: RunEvent) => void,
  selection: RunEventSelection,
  options: RunAgentOptions,
): Formatter | undefined {
  if (selection === "none") return undefined;
  const contract =
    selection === "agent"
      ? undefined
      : createContractStream(
          (events) => {
            for (const event of events) push({ kind: "contract", event });
          },
          {
            ...(options.turnId === undefined ? {} : { turnId: options.turnId }),
            ...(options.tools === undefined ? {} : { tools: options.tools }),
            enforceTools: options.enforceTools === true,
          },
        );
  const raw = selection === "contract" ? undefined : push;
  return {
    startTurn: () => contract?.startTurn(),
    write(event) {
      raw?.({ kind: "agent", event });
      contract?.write(event);
    },
    flush() {},
    wrapper: (decision) => contract?.wrapper(decision),
    notice() {},
    interrupt() {},
    endTurn: (summary) => contract?.endTurn(summary),
    partialResult: () => contract?.partialResult() ?? "",
    close: (failure) => contract?.close(failure),
  };
}

/** The agent's arguments from the library's options (the CLI passes its own builder). */
function argsBuilder(
  options: RunAgentOptions,
  given: readonly AgentArgument[],
): TurnSettings["agentArgs"] {
  if (options.agentArgs) return options.agentArgs;
  const fromEnv = options.model === undefined ? [] : ["--model", options.model];
  return ({ resume, firstTurn, model, profile }) =>
    turnArgs({
      given,
      force: options.force !== false,
      resume,
      firstTurn,
      fromEnv,
      model,
      profileCredentials: profile !== undefined,
    });
}

const EVENT_SELECTIONS: readonly RunEventSelection[] = ["all", "contract", "agent", "none"];

/**
 * What `runAgent` is given, checked before anything starts: a bad option is the caller's
 * mistake (a {@link RunUsageError}), never an agent started and then left running.
 */
function checkOptions(options: RunAgentOptions): void {
  if ((options.prompt === undefined) === (options.prompts === undefined)) {
    throw new RunUsageError("runAgent: give either `prompt` or `prompts`");
  }
  try {
    checkMonitorOptions(options.monitor ?? {});
  } catch (error) {
    throw new RunUsageError(`runAgent: monitor: ${(error as Error).message}`);
  }
  const durations = { killGraceMs: options.killGraceMs, drainGraceMs: options.drainGraceMs };
  for (const [name, value] of Object.entries(durations)) {
    if (value !== undefined && !(typeof value === "number" && value >= 0 && value < Infinity)) {
      throw new RunUsageError(
        `runAgent: ${name} must be a number of milliseconds >= 0, got ${String(value)}`,
      );
    }
  }
  const counts = { maxHangRetries: options.maxHangRetries, parseCap: options.parseCap };
  for (const [name, value] of Object.entries(counts)) {
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) {
      throw new RunUsageError(
        `runAgent: ${name} must be a whole number >= 0, got ${String(value)}`,
      );
    }
  }
  if (options.events !== undefined && !EVENT_SELECTIONS.includes(options.events)) {
    throw new RunUsageError(
      `runAgent: events must be one of ${EVENT_SELECTIONS.join(", ")}, got ${String(options.events)}`,
    );
  }
}

function openLog(option: RunLogOption | undefined): { log: SessionLog; owned: boolean } {
  if (option === undefined) return { log: discardingLog(), owned: false };
  if ("log" in option) return { log: option.log, owned: false };
  return {
    log: openSessionLog({
      dir: option.dir,
      ...(option.redact === undefined ? {} : { redact: option.redact }),
      ...(option.retentionMs === undefined ? {} : { retentionMs: option.retentionMs }),
    }),
    owned: true,
  };
}

/**
 * Run the agent under supervision, as the `cursor-wrap` CLI does: start it (pipes or a pty),
 * watch its events for hangs, lingers and budgets, kill its whole process tree when it must
 * stop, recover as the recovery policy says (resume, retry, switch model or profile, wait for
 * a reset), and log every decision when asked. Nothing is global: no signal handler, no
 * `process.exit`, nothing written to this process's stdout or stderr.
 *
 * The run starts at once. Read its events with `for await`; leaving the loop early (`break`,
 * an exception) cancels the run and waits until its processes are gone. Await `result` for
 * how it went. Runs the real cursor-agent, or anything that speaks its stream-json.
 */
export function runAgent(options: RunAgentOptions): AgentRun {
  checkOptions(options);
  const host = options.host ?? {};
  const selection = options.events ?? "all";
  let running: AgentProcess | undefined;
  const guardTrees = options.treeSentinel ?? options.start === undefined;
  let sentinel: TreeSentinel | undefined;
  let turn: AbortController | undefined;
  let stopping: CancelReason | undefined;
  let resolveShutdown: (reason: CancelReason) => void = () => {};
  const shutdown = new Promise<CancelReason>((resolve) => {
    resolveShutdown = resolve;
  });
  const stop = (reason: CancelReason): void => {
    if (stopping) return;
    stopping = reason;
    turn?.abort(reason);
    resolveShutdown(reason);
  };
  let settled: Promise<unknown> = Promise.resolve();
  const queue = createEventQueue<RunEvent>(async () => {
    stop({ kind: "shutdown", message: "the reader stopped reading" });
    await settled;
  });
  const push = selection === "none" ? () => {} : (event: RunEvent) => queue.push(event);

  const onAbort = (): void => {
    const why = options.signal?.reason;
    stop({
      kind: "shutdown",
      message: why instanceof Error ? why.message : why === undefined ? "aborted" : String(why),
    });
  };
  const result = (async (): Promise<RunResult> => {
    // Let the caller take the run object before anything can fail or emit.
    await Promise.resolve();
    let contractSeen = false;
    /** Why the run failed before its turn ended, for the contract's `error`. */
    let failure: string | undefined;
    const tap = eventTap(
      (event) => {
        if (event.kind === "contract") contractSeen = true;
        push(event);
      },
      selection,
      options,
    );
    const formatter =
      options.output && tap
        ? combineFormatters(options.output.formatter, tap)
        : (options.output?.formatter ?? tap ?? silentFormatter());
    const startedAt = performance.now();
    let log: SessionLog = discardingLog();
    let owned = false;
    void host.shutdown?.then(stop);
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });
    const control: SessionControl = {
      turnStarted(controller) {
        turn = controller;
        host.turnStarted?.(controller);
        if (stopping) controller.abort(stopping);
      },
      turnEnded() {
        turn = undefined;
        host.turnEnded?.();
      },
      shutdown,
      stopped: () => stopping,
      printError: (message) => host.printError?.(message),
    };
    const stderrMode = options.stderrMode ?? (options.stderr ? "errors" : "none");
    // The caller's flags, read once for the turns and for `agent status`.
    const given = plainAgentArguments(options.args ?? []);
    try {
      ({ log, owned } = openLog(options.log));
      const context: SessionContext = {
        turn: {
          settings: {
            agentBin: options.agentBin ?? findAgentBinary(undefined, options.env ?? process.env),
            agentArgs: argsBuilder(options, given),
            // A caller's own `agentArgs` may not use `args`: then only what it says.
            statusArgs:
              options.statusArgs ??
              (options.agentArgs
                ? () => []
                : ({ profile }) => signInArgs(given, profile !== undefined)),
            ...(options.profileEnv ? { profileEnv: options.profileEnv } : {}),
            ...(options.agentEnv ? { agentEnv: options.agentEnv } : {}),
            ...(options.redactArgs ? { redactArgs: options.redactArgs } : {}),
            ...(options.env ? { env: options.env } : {}),
            ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
            pty: options.pty === true,
            killGraceMs: options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
            drainGraceMs: options.drainGraceMs ?? DEFAULT_DRAIN_GRACE_MS,
            parseCap: options.parseCap ?? DEFAULT_PARSE_CAP,
            stderrMode,
            monitor: options.monitor ?? { ...DEFAULT_THRESHOLDS },
          },
          log,
          formatter,
          stdout: options.output?.stream ?? NO_OUTPUT,
          stderr: options.stderr ?? { write: () => undefined },
          onAgent(agent) {
            if (guardTrees) {
              if (running) sentinel?.release(running);
              if (agent) {
                sentinel ??= startTreeSentinel({
                  killGraceMs: options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
                });
                sentinel.guard(agent);
              }
            }
            running = agent;
            if (agent) push({ kind: "started", pid: agent.pid, token: agent.token });
            host.onAgent?.(agent);
          },
          ...(host.terminal ? { terminal: host.terminal } : {}),
          ...(host.freeBuffers ? { freeBuffers: host.freeBuffers } : {}),
          ...(options.start ? { start: options.start } : {}),
          ...(options.tools
            ? { tools: { tools: options.tools, enforce: options.enforceTools === true } }
            : {}),
        },
        control,
        resume: options.resume,
        promptAfterHang: options.promptAfterHang,
        maxHangRetries: options.maxHangRetries ?? DEFAULT_POLICY.hang.maxRetries,
        recovery: {
          ...DEFAULT_POLICY,
          ...options.recovery,
          continuePrompt:
            options.recovery?.continuePrompt ??
            options.promptAfterHang ??
            DEFAULT_POLICY.continuePrompt,
        },
        model: options.model,
        rendersForPeople: host.rendersForPeople === true,
        onAttempt: (attempt) => push({ kind: "attempt", attempt }),
        ...(host.waitDisplay ? { waitDisplay: host.waitDisplay } : {}),
        ...(options.clock ? { clock: options.clock } : {}),
      };
      const session = options.prompts
        ? await runInteractiveSession(context, options.prompts, options.firstPrompt)
        : await runPrintSession(context, toPromptBytes(options.prompt!));
      if (owned) {
        log.close({
          outcome: session.outcome,
          flagged: session.flagged,
          exit_code: session.exitCode,
          turns: session.turns,
          duration_ms: Math.round(performance.now() - startedAt),
          ...(session.sessionId === undefined ? {} : { session_id: session.sessionId }),
          ...(session.agentVersion === undefined ? {} : { agent_version: session.agentVersion }),
        });
      }
      // A run stopped before its first turn still has its events: protocol, then done, which
      // says it was cancelled when it was.
      if (!contractSeen) {
        tap?.startTurn();
        if (session.ending.kind === "cancelled" || stopping) {
          tap?.wrapper({ kind: "cancelled", terminal: true });
        }
      }
      return { ...session, logPath: log.path === "" ? undefined : log.path };
    } catch (error) {
      if (owned) closeLogAfterFailure(log, error, Math.round(performance.now() - startedAt));
      // A run that failed before its first turn still ends its events with an error and done.
      if (!contractSeen) tap?.startTurn();
      failure = error instanceof Error ? error.message : String(error);
      throw error;
    } finally {
      // The contract's `done` for a prompt the run could not finish (and why), then the end of
      // the events, whatever the caller's formatter does: one that throws in `close` (or has
      // none) rejects `result` with its error, after the events have ended.
      let closeFailure: { error: unknown } | undefined;
      try {
        formatter.close(failure);
      } catch (error) {
        closeFailure = { error };
        // The events' own `done`, had the caller's formatter kept it from coming.
        if (tap !== formatter) {
          try {
            tap?.close(failure);
          } catch {
            // The tap is ours: it has nothing to throw.
          }
        }
      }
      sentinel?.close();
      options.signal?.removeEventListener("abort", onAbort);
      queue.end();
      // biome-ignore lint/correctness/noUnsafeFinally: the caller's error is the run's outcome.
      if (closeFailure && failure === undefined) throw closeFailure.error;
    }
  })();
  settled = result.catch(() => undefined);

  return {
    result,
    cancel(reason) {
      stop({ kind: "shutdown", message: reason ?? "cancelled" });
    },
    cancelTurn() {
      turn?.abort({ kind: "turn" } satisfies CancelReason);
    },
    get agent() {
      return running;
    },
    [Symbol.asyncIterator]: () => queue[Symbol.asyncIterator](),
  };
}

/** A formatter that shows nothing (a run with neither output nor events). */
function silentFormatter(): Formatter {
  const nothing = (): void => {};
  return {
    startTurn: nothing,
    write: nothing,
    flush: nothing,
    wrapper: nothing,
    notice: nothing,
    interrupt: nothing,
    endTurn: nothing,
    partialResult: () => "",
    close: nothing,
  };
}

/** A prompt as the session takes it (a `Uint8Array` as a Buffer, without copying). */
function toPromptBytes(prompt: string | Uint8Array): string | Buffer {
  if (typeof prompt === "string" || Buffer.isBuffer(prompt)) return prompt;
  return Buffer.from(prompt.buffer, prompt.byteOffset, prompt.byteLength);
}
