import { createContractNormalizer } from "@cursor-wrap/events";
import {
  combineFormatters,
  createAnswerFormatter,
  createFormatter,
  type Formatter,
  type OutputFormat,
} from "@cursor-wrap/format";
import { openSessionLog } from "@cursor-wrap/logger";
import { DEFAULT_BACKOFF, DEFAULT_POLICY } from "@cursor-wrap/recovery";
import {
  type CancelReason,
  closeLogAfterFailure,
  createBufferFreer,
  type Ending,
  EXIT,
  exitCodeOf,
  type RunAgentOptions,
  recordsWhere,
  requestedModel,
  runAgent,
  signInArgs,
  turnArgs,
  type WaitDisplay,
  writeRecord,
} from "@cursor-wrap/run";
import type { TurnInput } from "@cursor-wrap/run/turn-input";
import type { SUPERVISOR_RECORDS } from "@cursor-wrap/supervisor";
import { SHARED_LOG_DIRECTORY_ADVICE } from "../../error-hints.js";
import { redactHeldSecrets } from "../../known-secrets.js";
import { openRunOperations, type RunOperations } from "../../operations/run-operations.js";
import { agentBaseEnvironment } from "../../options/agent-environment.js";
import { type AgentArgument, redactAgentArgs } from "../../options/agent-flags.js";
import { loadAuthProfiles, type ProfileEnvironment } from "../../options/auth-profiles.js";
import { monitorOptions } from "../../options/monitor-options.js";
import type { RunOptions } from "../../options/run-options.js";
import type { PromptReader } from "../../prompt-reader.js";
import { createRunControl } from "../../run-control.js";
import type { RunIo } from "../../run-io.js";
import { formatterCountdown, stderrCountdown } from "../../session/countdown.js";
import { type HintInOutput, resumeHintLine, trackResumeHint } from "../../session/resume-hint.js";
import { UsageError } from "../../usage-error.js";

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

/**
 * Why there is no prompt, and, when a word that looks like a prompt was taken as one of the
 * agent's options because it starts with `-`, how to give it.
 */
function noPrompt(why: string, options: RunOptions): UsageError {
  const first = (argument: AgentArgument): string => argument.tokens[0] ?? "";
  // No flag has a space in its name, and glued values (`-mgpt-5`) rarely do: a prompt does.
  // Else a flag cursor-agent's table does not know (`-dash-prompt`) may well be the prompt.
  const taken =
    options.agentArguments.map(first).find((token) => /\s/.test(token.split("=", 1)[0]!)) ??
    options.agentArguments
      .filter((argument) => argument.flag === undefined)
      .map(first)
      .find(Boolean);
  const hint =
    taken === undefined
      ? ""
      : `; ${JSON.stringify(taken)} was passed to cursor-agent as a flag: a prompt that starts with - goes after --, as in cursor-wrap -p -- ${JSON.stringify(taken)}`;
  return new UsageError(`no prompt: ${why}${hint}`);
}

/** The prompt of a `-p` run, and the turn input it came from (`--input-format turn`). */
interface PrintInput {
  prompt: string | Buffer;
  turn?: TurnInput;
}

/**
 * The prompt of a `-p` run (R-CLI2): the arguments, else stdin read to EOF, its bytes as they
 * are (the agent reads them the same way without the wrapper); a terminal is an error. With
 * `--input-format turn`, stdin is one turn object: anything else fails here, before the agent
 * starts (and, with `--output-format events`, the stream still says so and ends).
 */
async function printPrompt(options: RunOptions, io: RunIo): Promise<PrintInput> {
  if (options.inputFormat === "turn") {
    if (options.prompt !== undefined) {
      throw new UsageError("--input-format turn reads the turn on stdin: give no prompt argument");
    }
    if (io.stdin.isTTY) throw new UsageError("--input-format turn reads one turn object on stdin");
    const bytes = await readAll(io.stdin);
    // Ajv and the zod schemas load only for a turn input: a prompt never needs them.
    const { parseTurnInput, TurnInputError } = await import("@cursor-wrap/run/turn-input");
    try {
      const turn = parseTurnInput(bytes);
      return { prompt: turn.prompt, turn };
    } catch (error) {
      if (TurnInputError.isInstance(error) && options.outputFormat === "events") {
        const stream = createContractNormalizer();
        const events = [...stream.error("turn-input", error.message, true), ...stream.end("error")];
        io.stdout.write(events.map((event) => `${JSON.stringify(event)}\n`).join(""));
      }
      throw error;
    }
  }
  if (options.prompt !== undefined) return { prompt: options.prompt };
  if (io.stdin.isTTY) throw noPrompt("give it as an argument or pipe it on stdin", options);
  const bytes = await readAll(io.stdin);
  if (bytes.toString("latin1").trim() === "") throw noPrompt("stdin was empty", options);
  return { prompt: bytes };
}

/** What the run reads of the options (and the auth profiles' credentials, read at start). */
function runSettings(
  options: RunOptions & { agentBin: string },
  profiles: ReadonlyMap<string, ProfileEnvironment>,
  operations: RunOperations | undefined,
  env: NodeJS.ProcessEnv,
) {
  return {
    ...(operations ? { agentEnv: operations.agentEnv } : {}),
    agentBin: options.agentBin,
    agentArgs: ({ resume, firstTurn, model, profile }) =>
      turnArgs({
        given: options.agentArguments,
        force: options.force,
        resume,
        firstTurn,
        fromEnv: options.agentArgumentsFromEnv,
        model,
        profileCredentials: profile !== undefined,
      }),
    statusArgs: ({ profile }) => signInArgs(options.agentArguments, profile !== undefined),
    profileEnv: (profile) => profiles.get(profile) ?? {},
    env: agentBaseEnvironment(env),
    redactArgs: redactAgentArgs,
    pty: options.pty,
    killGraceMs: options.killGraceMs,
    drainGraceMs: options.drainGraceMs,
    parseCap: options.parseCap,
    stderrMode: options.stderrMode,
    monitor: monitorOptions(options),
    resume: options.resume,
    ...(options.promptAfterHang === undefined ? {} : { promptAfterHang: options.promptAfterHang }),
    maxHangRetries: options.maxHangRetries,
    recovery: {
      maxRetries: options.maxRetries,
      // A base above the usual ceiling is its own ceiling: the first wait is never cut.
      backoff: {
        baseMs: options.retryBackoffMs,
        maxMs: Math.max(DEFAULT_BACKOFF.maxMs, options.retryBackoffMs),
      },
      fallbackModels: options.fallbackModels,
      waitForReset: options.waitForReset,
      maxWaitMs: options.maxWaitMs,
      authProfiles: options.authProfiles,
      continuePrompt: options.promptAfterHang ?? DEFAULT_POLICY.continuePrompt,
    },
    ...modelOf(options),
  } satisfies Partial<RunAgentOptions>;
}

/** The model the user asked for, for the recovery policy (the arguments already carry it). */
function modelOf(options: RunOptions): { model?: string } {
  const model = requestedModel(options.agentArguments, options.agentArgumentsFromEnv);
  return model === undefined ? {} : { model };
}

// Records people already see: by the session's one-line errors, and in text mode by the formatter.
const SHOWN_BY_SESSION = recordsWhere((spec) => spec.shownBy === "session");
const SHOWN_BY_TEXT = recordsWhere((spec) => spec.shownBy === "text");
// Beside a text rendering, the steps of a kill repeat its "⚠ Hang detected" block.
const KILL_STEP: (typeof SUPERVISOR_RECORDS)[number] = "kill_step";
const DETAILS_OF_TEXT = [...recordsWhere((spec) => spec.detailOfText === true), KILL_STEP];

/** How a run presents itself beyond what its options say. */
export interface Presentation {
  /** Render text fully even to a pipe (the demo, which is for people wherever it is shown). */
  alwaysRender?: boolean;
}

/** Where a run's output goes. */
interface Outputs {
  formatter: Formatter;
  /** A text rendering reaches people (it shows verdicts and errors itself). */
  rendersForPeople: boolean;
  /** Where the output shows how to resume a session that ended abnormally. */
  hint: HintInOutput;
  /** The wrapper's stderr for people: erases the live status line before each write. */
  stderr: {
    write(text: string | Buffer): unknown;
    readonly writableNeedDrain?: boolean;
    isTTY?: boolean;
    hasColors?: () => boolean;
  };
}

/** A stream that asks the formatter to erase its status line before each write. */
function beforeWriting(stream: RunIo["stderr"], formatter: Formatter): Outputs["stderr"] {
  const terminal = stream as { hasColors?: () => boolean };
  return {
    write(text) {
      formatter.interrupt();
      return stream.write(text);
    },
    get writableNeedDrain() {
      return stream.writableNeedDrain === true;
    },
    isTTY: stream.isTTY === true,
    ...(typeof terminal.hasColors === "function"
      ? { hasColors: terminal.hasColors.bind(stream) }
      : {}),
  };
}

/**
 * The formatter for the output format and where stdout goes (R-FMT, R-CLI1e): `-p
 * --output-format text` to a pipe or a file prints the final answer only, as cursor-agent's own
 * text format does, with the rendering of tools and progress on stderr when that is a terminal.
 */
function createOutputs(
  options: RunOptions,
  io: RunIo,
  presentation: Presentation,
  turn: TurnInput | undefined,
): Outputs {
  if (
    options.outputFormat === "text" &&
    options.print &&
    io.stdout.isTTY !== true &&
    !presentation.alwaysRender
  ) {
    if (io.stderr.isTTY !== true) {
      const answer = createAnswerFormatter(io.stdout);
      return { formatter: answer, rendersForPeople: false, hint: "none", stderr: io.stderr };
    }
    const rendering = createFormatter("text", io.stderr, { tty: true });
    // The answer's reader (`| head`, `| less`) likely prints on the same terminal: the status
    // line goes before the answer does, and the rendering sees each event first, so it does
    // not draw the line again in between.
    const answer = createAnswerFormatter({
      write: (chunk) => {
        rendering.interrupt();
        return io.stdout.write(chunk);
      },
    });
    return {
      formatter: combineFormatters(rendering, answer),
      rendersForPeople: true,
      hint: "wrapper",
      stderr: beforeWriting(io.stderr, rendering),
    };
  }
  const formatter = createFormatter(options.outputFormat, io.stdout, {
    tty: io.stdout.isTTY === true,
    ...(turn
      ? {
          contract: {
            turnId: turn.turnId,
            ...(turn.tools ? { tools: turn.tools } : {}),
            enforceTools: options.enforceTools,
          },
        }
      : {}),
  });
  const text = options.outputFormat === "text";
  return {
    formatter,
    rendersForPeople: text,
    // The events stream has no place for a resume hint: it goes on stderr.
    hint: hintIn(options.outputFormat),
    stderr: text && io.stdout.isTTY === true ? beforeWriting(io.stderr, formatter) : io.stderr,
  };
}

/** Where an output format shows how to resume (see `HintInOutput`). */
function hintIn(format: OutputFormat): HintInOutput {
  switch (format) {
    case "json":
      return "wrapper-unless-result";
    case "events":
      return "none";
    case "stream-json":
    case "text":
      return "wrapper";
    default: {
      const unreachable: never = format;
      return unreachable;
    }
  }
}

/**
 * The countdown of a wait between attempts, on a terminal: in the text rendering's status line
 * when stdout is a terminal that shows one, else on stderr when that is a terminal; none
 * elsewhere (the retry line and the log say how long the wait is).
 */
function waitDisplayOf(
  formatter: Formatter,
  rendersForPeople: boolean,
  io: RunIo,
): { waitDisplay?: WaitDisplay } {
  if (rendersForPeople && io.stdout.isTTY === true) {
    return { waitDisplay: formatterCountdown(formatter, () => performance.now()) };
  }
  if (io.stderr.isTTY === true) return { waitDisplay: stderrCountdown(io.stderr) };
  return {};
}

/** Nobody is left to read a last line: stdout's reader went away, or the terminal did. */
function endsUnheard(ending: Ending, stopping: CancelReason | undefined): boolean {
  if (stopping?.kind === "output" && stopping.code === "EPIPE") return true;
  return ending.kind === "signal" && ending.signal === "SIGHUP";
}

/** The session's outcome, or what stopped it: a signal, or stdout failing. */
function outcomeOf(stopping: CancelReason | undefined, outcome: string): string {
  if (stopping?.kind === "shutdown") return `signal ${stopping.signal}`;
  if (stopping?.kind === "output") return `stdout ${stopping.code}`;
  return outcome;
}

/** The prompts of a conversation: typed at a terminal (with history) or piped, a line each. */
async function openPromptReader(io: RunIo): Promise<PromptReader> {
  const [{ createPromptReader }, { openPromptHistory }] = await Promise.all([
    import("../../prompt-reader.js"),
    import("../../prompt-history.js"),
  ]);
  return createPromptReader(io.stdin, io.stderr, { history: openPromptHistory() });
}

/**
 * The main command: run cursor-agent under supervision, in print or interactive mode, and
 * return the exit code (R-CLI3). Signals, a closed stdout and crashes all kill the agent's
 * process tree before the wrapper exits (R-SUP3): see `run-control.ts`.
 */
export async function runCommand(
  options: RunOptions & { agentBin: string },
  io: RunIo,
  presentation: Presentation = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  // Read once, before anything starts: a profile without credentials is a usage error.
  const profiles = loadAuthProfiles(options.authProfiles, env);
  // Credentials have no shape the log's redaction knows: it is told their values.
  redactHeldSecrets(
    env,
    options.agentArguments.flatMap((argument) => argument.tokens),
    [...profiles.values()].flatMap((profile) => Object.values(profile)),
  );
  // The allow-list comes with the turn input: enforcing none would only look safe.
  if (options.enforceTools && options.inputFormat !== "turn") {
    throw new UsageError(
      "--enforce-tools enforces the tools of a turn input: add --input-format turn",
    );
  }
  if (options.inputFormat === "turn" && !options.print) {
    throw new UsageError("--input-format turn reads one turn: use it with -p");
  }
  const printed = options.print ? await printPrompt(options, io) : undefined;
  const startedAt = performance.now();
  const outputs = createOutputs(options, io, presentation, printed?.turn);
  const { rendersForPeople, stderr } = outputs;
  // Every abnormal ending says how to resume: in the output where the format has a place for
  // it, else in one line on stderr.
  const hint = trackResumeHint(outputs.formatter, outputs.hint);
  const formatter = hint.formatter;
  // Report, trace, notifications: fed by the log's tap; none of it when none is asked for.
  const operations = await openRunOperations(options, { stderr: io.stderr, env });
  const log = openSessionLog({
    ...(operations ? { onRecord: operations.onRecord } : {}),
    dir: options.logDir,
    sharedDirectoryAdvice: SHARED_LOG_DIRECTORY_ADVICE,
    console: {
      stream: stderr,
      level: options.logLevel,
      skip: [
        ...SHOWN_BY_SESSION,
        ...(rendersForPeople ? SHOWN_BY_TEXT : []),
        ...(rendersForPeople && options.logLevel !== "debug" ? DETAILS_OF_TEXT : []),
        // The agent's stderr lines are shown as they are, once, and only per `--stderr`.
        "agent_stderr",
      ],
    },
    redact: options.redact,
    retentionMs: options.logRetentionMs,
  });
  operations?.attach(log);
  writeRecord(log, "options", {
    mode: options.print ? "print" : "interactive",
    output_format: options.outputFormat,
    input_format: options.inputFormat,
    ...(printed?.turn
      ? {
          turn_id: printed.turn.turnId,
          ...(printed.turn.tools ? { tools: printed.turn.tools.map((tool) => tool.name) } : {}),
          enforce_tools: options.enforceTools,
        }
      : {}),
    monitor: monitorOptions(options),
    kill_grace_ms: options.killGraceMs,
    drain_grace_ms: options.drainGraceMs,
    prompt_after_hang: options.promptAfterHang,
    max_hang_retries: options.maxHangRetries,
    max_retries: options.maxRetries,
    retry_backoff_ms: options.retryBackoffMs,
    fallback_models: options.fallbackModels,
    wait_for_reset: options.waitForReset,
    max_wait_ms: options.maxWaitMs,
    auth_profiles: options.authProfiles,
    pty: options.pty,
    parse_cap: options.parseCap,
  });
  const control = createRunControl({
    print: options.print,
    log,
    stdout: io.stdout,
    stderr: io.stderr,
    show: stderr,
    sentinelKillGraceMs: options.killGraceMs,
  });
  // Loaded for a conversation only: readline is no part of a -p run's start-up (P6).
  const reader = options.print ? undefined : await openPromptReader(io);
  // The run itself is @cursor-wrap/run's: the CLI hands it the command line's settings, its
  // output, its log, and its control of signals and the terminal.
  const run = runAgent({
    ...(reader
      ? {
          prompts: reader,
          ...(options.prompt === undefined ? {} : { firstPrompt: options.prompt }),
        }
      : { prompt: printed!.prompt }),
    ...(printed?.turn
      ? {
          turnId: printed.turn.turnId,
          ...(printed.turn.tools ? { tools: printed.turn.tools } : {}),
          enforceTools: options.enforceTools,
        }
      : {}),
    ...runSettings(options, profiles, operations, env),
    output: { formatter, stream: io.stdout },
    stderr,
    ...(io.startAgent ? { start: io.startAgent } : {}),
    events: "none",
    log: { log },
    // The run control guards the agents' trees itself (its sentinel outlives a crash handler).
    treeSentinel: false,
    host: {
      shutdown: control.shutdown,
      turnStarted: (controller) => control.turnStarted(controller),
      turnEnded: () => control.turnEnded(),
      printError: (message) => control.printError(message),
      onAgent: (agent) => control.agentChanged(agent),
      rendersForPeople,
      terminal: io.stdout as NodeJS.WriteStream,
      freeBuffers: createBufferFreer(),
      ...waitDisplayOf(formatter, rendersForPeople, io),
    },
  });
  try {
    const result = await run.result;
    // A signal or a closed stdout decides the ending, whatever the interrupted turn was doing.
    const ending = control.ending(result.ending);
    const exitCode = exitCodeOf(ending);
    if (
      exitCode !== EXIT.completed &&
      result.sessionId !== undefined &&
      // The agent said it does not know the session: resuming it cannot work.
      result.failures.at(-1)?.kind !== "unknown-session" &&
      !hint.shown() &&
      !endsUnheard(ending, control.stopping)
    ) {
      stderr.write(resumeHintLine(result.sessionId));
    }
    log.close({
      outcome: outcomeOf(control.stopping, result.outcome),
      flagged: result.flagged,
      exit_code: exitCode,
      turns: result.turns,
      duration_ms: Math.round(performance.now() - startedAt),
      session_id: result.sessionId,
      agent_version: result.agentVersion,
    });
    return exitCode;
  } catch (error) {
    closeLogAfterFailure(log, error, Math.round(performance.now() - startedAt));
    throw error;
  } finally {
    reader?.close();
    const stopping = control.stopping;
    const hurried = control.hurried;
    control.dispose();
    // Stopped by a signal: whoever sent it may SIGKILL soon (docker and Kubernetes after 10 s
    // or more): notifications and the trace's export get a short while, not their timeouts;
    // after a second Ctrl+C, none.
    await operations?.finish(
      hurried ? 0 : stopping?.kind === "shutdown" ? SIGNAL_FINISH_MS : undefined,
    );
  }
}

/** After a stopping signal, how long notifications and the trace may hold up the exit, ms. */
const SIGNAL_FINISH_MS = 2_000;
