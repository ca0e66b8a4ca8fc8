import { randomUUID } from "node:crypto";
import { type EventContext, agentEvents as ev } from "./agent-events.js";

/** One thing the fake agent does. A scenario is a list of steps, run in order. */
export type Step =
  /** Write a line to stdout (objects are JSON-encoded); `eol` defaults to `\n`. */
  | { type: "line"; value: string | Record<string, unknown>; eol?: string }
  /** Write exact bytes (base64) to stdout or stderr. */
  | { type: "bytes"; base64: string; stream?: "stdout" | "stderr" }
  /** Write a line of text to stderr. */
  | { type: "stderr"; text: string }
  | { type: "sleep"; ms: number }
  /**
   * Wait until the file at `path` exists: a test holds the agent at this point until what it
   * waits for has happened (a record in the wrapper's log, say), instead of a guessed delay.
   */
  | { type: "waitForFile"; path: string }
  /** Stay alive and print nothing, forever. */
  | { type: "silence" }
  | { type: "exit"; code: number }
  /** Ignore SIGTERM from now on (only SIGKILL ends the agent). */
  | { type: "ignoreSigterm" }
  /**
   * Start a long-running descendant: `group` stays in the agent's process group, `session`
   * calls setsid, `daemon` double-forks (reparented, found only by its environment),
   * `hidden` double-forks into a process group of its own with an empty environment (no
   * token, reparented: only the agent's session still ties it), `term-spawner` starts a new
   * descendant (with its own session) from its SIGTERM handler, then exits.
   * Each writes its pid to `FAKE_AGENT_PID_FILE`; the step waits until it has.
   */
  | {
      type: "spawn";
      mode: "group" | "session" | "daemon" | "hidden" | "term-spawner";
      ignoreSigterm?: boolean;
      holdStdout?: boolean;
    }
  /** Write `bytes` bytes to stderr (`stream: "stderr"`) or one JSON line of about that size to stdout. */
  | { type: "flood"; stream: "stdout" | "stderr"; bytes: number }
  /** Replay a capture file with its recorded timing, `speed` times faster. */
  | { type: "replay"; path: string; speed?: number }
  /**
   * Print nothing for `ms` (Infinity: for ever) while burning CPU, as during a silent
   * generation; with `untilFile`, on past `ms` until that file exists.
   */
  | { type: "spin"; ms: number; untilFile?: string }
  /**
   * Print nothing for `ms` while reading bytes (a reply streaming in), with next to no CPU;
   * with `untilFile`, on past `ms` until that file exists.
   */
  | { type: "read"; ms: number; untilFile?: string }
  /**
   * Run `command` as a shell call the CLI moves to the background: a real process of `ms`
   * (in a process group of its own, carrying the run's token), a `tool_call` started and
   * completed with `isBackground` and its pid, then silence until the process ends, then a
   * `system/task_notification` for it.
   */
  | { type: "background"; callId: string; command: string; ms: number }
  /**
   * Call `tool` on an MCP server over stdio, as cursor-agent does: `started` is written, the
   * server is started (`FAKE_AGENT_MCP_SERVER`: a JSON array of its command and arguments, as
   * an mcp.json entry gives them; by default the test kit's fake MCP server), initialized and
   * asked, then `completed` is written with its answer as the result (`success`, or `error`
   * for a JSON-RPC error). A server that never answers holds the agent for ever, as it holds
   * cursor-agent.
   */
  | {
      type: "mcpCall";
      started: Record<string, unknown>;
      completed: Record<string, unknown>;
      tool: string;
      arguments: Record<string, unknown>;
    };

/** What a scenario is built from. */
export interface ScenarioContext extends EventContext {
  prompt: string;
  /** The part after `:` in `name:param`. */
  param: string | undefined;
  /** The session asked for with `--resume`, if any. */
  resume: string | undefined;
  /** The model asked for with `--model`/`-m`, as given; undefined: the agent's default. */
  modelId?: string | undefined;
  /** The API key in the agent's environment (`CURSOR_API_KEY`), if any. */
  apiKey?: string | undefined;
  /** Replay speed factor (FAKE_AGENT_SPEED). */
  speed: number;
  /**
   * Count one more play of `key` across invocations and return how many came before this one
   * (0 the first time): kept in the file `FAKE_AGENT_STATE`, so "overloaded twice, then fine"
   * holds across processes.
   */
  count?: (key: string) => number;
  /** Read and write a value that outlives the invocation (in `FAKE_AGENT_STATE`). */
  state?: { get(key: string): unknown; set(key: string, value: unknown): void };
}

type Scenario = (context: ScenarioContext) => Step[];

const line = (value: Extract<Step, { type: "line" }>["value"]): Step => ({ type: "line", value });
const sleep = (ms: number): Step => ({ type: "sleep", ms });
const now = (): number => Date.now();

function opening(context: ScenarioContext): Step[] {
  return [line(ev.init(context)), line(ev.user(context, context.prompt))];
}

function thinking(context: ScenarioContext, deltas: number): Step[] {
  const steps: Step[] = [];
  for (let index = 0; index < deltas; index += 1) {
    steps.push(line(ev.thinkingDelta(context, index === 0 ? "Let me" : " think", now())), sleep(5));
  }
  steps.push(line(ev.thinkingCompleted(context, now())));
  return steps;
}

function shellCall(
  context: ScenarioContext,
  callId: string,
  command: string,
  runMs: number,
  timeoutMs: number,
): Step[] {
  const args = ev.shellArgs(command, timeoutMs);
  const modelCallId = `${context.requestId}-0-fake`;
  return [
    line(ev.toolStarted(context, callId, "shellToolCall", args, { modelCallId })),
    sleep(runMs),
    line(
      ev.toolCompleted(
        context,
        callId,
        "shellToolCall",
        args,
        ev.shellResult(command, 0, { executionTime: runMs }),
        {
          modelCallId,
        },
      ),
    ),
  ];
}

function closing(context: ScenarioContext, text: string, said = ""): Step[] {
  return [
    line(ev.assistant(context, text)),
    line(
      ev.result(context, `${said}${text}`, {
        durationMs: 1_000,
        usage: { inputTokens: 1200, outputTokens: 80, cacheReadTokens: 300, cacheWriteTokens: 0 },
      }),
    ),
  ];
}

const number = (param: string | undefined, fallback: number): number => {
  const value = Number(param);
  return param !== undefined && Number.isFinite(value) && value >= 0 ? value : fallback;
};

/**
 * A turn silent in the middle, `type` (burning CPU, or reading bytes) for `param`'s
 * `<ms>[|<path>]`: that long (default 3000), then on until the file at `path` exists.
 */
const silentTurn = (context: ScenarioContext, type: "spin" | "read", reply: string): Step[] => {
  const [ms, path] = (context.param ?? "").split("|", 2);
  return [
    ...opening(context),
    ...thinking(context, 2),
    { type, ms: number(ms === "" ? undefined : ms, 3_000), ...(path ? { untilFile: path } : {}) },
    ...closing(context, reply),
  ];
};

/** A normal turn with one shell call of `param` ms (default 200). */
const normal: Scenario = (context) => {
  const intro = "I'll run the command, then report back.";
  return [
    ...opening(context),
    ...thinking(context, 3),
    line(
      ev.assistant(context, intro, {
        modelCallId: `${context.requestId}-0-fake`,
        timestampMs: now(),
      }),
    ),
    ...shellCall(
      context,
      `call_${randomUUID().slice(0, 8)}\nfc_1`,
      "npm test",
      number(context.param, 200),
      30_000,
    ),
    ...closing(context, "All tests pass.", intro),
  ];
};

/** The models the fake agent knows (`--model`). */
const KNOWN_MODELS = ["auto", "gpt-5", "gpt-5-mini", "sonnet-4.5"];

// Real wording (sources in @cursor-wrap/recovery's __fixtures__/cursor-wording.ts).
const NAMED_MODELS_UNAVAILABLE =
  "ActionRequiredError: Named models unavailable Free plans can only use Auto. Switch to Auto or upgrade plans to continue.";
const AUTHENTICATION_REQUIRED =
  "Authentication required. Please run 'agent login' first, or set CURSOR_API_KEY.";
const PROVIDER_ERROR =
  "Provider Error: We're having trouble connecting to the model provider. This might be temporary - please try again in a moment.";
const CONNECTION_FAILED =
  "Connection failed. If the problem persists, please check your internet connection or VPN";

const isAuto = (context: ScenarioContext): boolean => context.modelId?.toLowerCase() === "auto";

/** The usage-limit block as cursor-agent prints it on stderr (cursor/cursor#3703). */
function usageLimitBlock(fallbackModel: string, reset: string): Step[] {
  return [
    "Error: You've hit your usage limit",
    "  Get Cursor Pro for more Agent usage, unlimited Tab, and more.",
    `  fallbackModel: ${fallbackModel}`,
    "  spendLimitHit: false",
    "  chatMessage: *You've hit your free requests limit. [Upgrade to ",
    "  Pro](https://www.cursor.com/api/auth/checkoutDeepControl?tier=pro) for more usage, frontier models, Background Agents, ",
    `  and more. Your usage limits will reset ${reset}.*`,
    "  spendLimits: [50,100,200]",
  ].map((text) => ({ type: "stderr", text }));
}

/** The state kept across invocations; scenarios that count need FAKE_AGENT_STATE. */
function stateOf(
  context: ScenarioContext,
  scenario: string,
): NonNullable<ScenarioContext["state"]> {
  if (!context.state) {
    throw new Error(
      `fake-cursor-agent: ${scenario} needs FAKE_AGENT_STATE (a file to count attempts in)`,
    );
  }
  return context.state;
}

/**
 * The first `param` (default 2) plays of `key` start a turn and fail with `failure`, then exit
 * 1; later plays are a normal turn.
 */
function failsFirst(context: ScenarioContext, key: string, failure: Step[]): Step[] {
  if (!context.count) {
    throw new Error(
      `fake-cursor-agent: ${key} needs FAKE_AGENT_STATE (a file to count attempts in)`,
    );
  }
  if (context.count(key) >= number(context.param, 2)) return scenarios.quick!(context);
  return [...opening(context), ...failure, { type: "exit", code: 1 }];
}

const TOOL_SAMPLES: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
  [
    "readToolCall",
    { path: "src/index.ts" },
    { success: { totalLines: 42, readRange: { startLine: 1, endLine: 42 } } },
  ],
  [
    "grepToolCall",
    { pattern: "TODO", path: "src" },
    {
      success: {
        workspaceResults: { "/repo": { content: { matches: [], totalMatchedLines: 0 } } },
      },
    },
  ],
  [
    "editToolCall",
    { path: "src/index.ts", streamContent: "x" },
    { success: { linesAdded: 3, linesRemoved: 1 } },
  ],
  [
    "mcpToolCall",
    { providerIdentifier: "github", toolName: "search_issues" },
    { success: { content: [{ text: { text: "2 issues" } }] } },
  ],
];

/** Built-in scenarios (docs/requirements.md §8), selected by name (`name` or `name:param`). */
export const scenarios: Readonly<Record<string, Scenario>> = {
  normal,

  /** The shortest complete turn: no tools, no thinking. */
  quick: (context) => [...opening(context), ...closing(context, `Done: ${context.prompt}`)],

  /** Thinking deltas every 50 ms for `param` ms (default 2000): long but healthy. */
  slow: (context) => {
    const steps = opening(context);
    for (let elapsed = 0; elapsed < number(context.param, 2_000); elapsed += 50) {
      steps.push(line(ev.thinkingDelta(context, ".", now())), sleep(50));
    }
    return [...steps, ...closing(context, "Finished thinking.")];
  },

  /** One shell call that runs `param` ms (default 1500) within its 5 s declared timeout. */
  "long-tool": (context) => [
    ...opening(context),
    ...shellCall(context, "call_long", "sleep 1.5", number(context.param, 1_500), 5_000),
    ...closing(context, "The long command finished."),
  ],

  /** Two shell calls in parallel that complete in reverse order. */
  parallel: (context) => {
    const modelCallId = `${context.requestId}-0-fake`;
    const a = ev.shellArgs("sleep 0.3", 10_000);
    const b = ev.shellArgs("sleep 0.1", 10_000);
    return [
      ...opening(context),
      line(ev.toolStarted(context, "call_a", "shellToolCall", a, { modelCallId })),
      line(ev.toolStarted(context, "call_b", "shellToolCall", b, { modelCallId })),
      sleep(100),
      line(
        ev.toolCompleted(context, "call_b", "shellToolCall", b, ev.shellResult("sleep 0.1", 0), {
          modelCallId,
        }),
      ),
      sleep(200),
      line(
        ev.toolCompleted(context, "call_a", "shellToolCall", a, ev.shellResult("sleep 0.3", 0), {
          modelCallId,
        }),
      ),
      ...closing(context, "done"),
    ];
  },

  /** One call of several tool kinds, for renderers. */
  tools: (context) => {
    const steps = opening(context);
    for (const [index, [key, args, result]] of TOOL_SAMPLES.entries()) {
      steps.push(line(ev.toolStarted(context, `call_${index}`, key, args)));
      steps.push(line(ev.toolCompleted(context, `call_${index}`, key, args, result)));
    }
    return [...steps, ...closing(context, "Looked around.")];
  },

  /** Thinks, then goes silent forever with no tool running. */
  "idle-hang": (context) => [...opening(context), ...thinking(context, 2), { type: "silence" }],

  /** Starts a shell call declaring a `param` ms timeout (default 1000), then goes silent forever. */
  "tool-hang": (context) => [
    ...opening(context),
    line(
      ev.assistant(context, "Running the build.", {
        modelCallId: `${context.requestId}-0-fake`,
        timestampMs: now(),
      }),
    ),
    line(
      ev.toolStarted(
        context,
        "call_hang\nfc_1",
        "shellToolCall",
        ev.shellArgs("npm run build", number(context.param, 1_000)),
      ),
    ),
    { type: "silence" },
  ],

  /** Completes the turn, then never exits (the known cursor-agent bug). */
  linger: (context) => [...opening(context), ...closing(context, "All done."), { type: "silence" }],

  /** Exits with code `param` (default 1) in the middle of a turn, without a result. */
  abnormal: (context) => [
    ...opening(context),
    ...thinking(context, 1),
    { type: "stderr", text: "Error: stream closed unexpectedly" },
    { type: "exit", code: number(context.param, 1) },
  ],

  /** Not logged in. */
  "auth-error": () => [
    {
      type: "stderr",
      text: "Authentication required. Please run 'agent login' first, or set CURSOR_API_KEY.",
    },
    { type: "exit", code: 1 },
  ],

  /** Auth failure reported on stdout as an error event. */
  unauthenticated: (context) => [
    line(ev.init(context)),
    line({
      type: "error",
      message: "ConnectError: [unauthenticated] Error",
      session_id: context.sessionId,
    }),
    { type: "exit", code: 1 },
  ],

  /** A named model on the free plan: fine on Auto (`--model auto`). */
  "plan-error": (context) =>
    isAuto(context)
      ? scenarios.quick!(context)
      : [
          ...opening(context),
          { type: "stderr", text: NAMED_MODELS_UNAVAILABLE },
          { type: "exit", code: 1 },
        ],

  /** The same, as a bare `T: ...` line on stdout. */
  "plan-error-text": (context) =>
    isAuto(context)
      ? scenarios.quick!(context)
      : [
          ...opening(context),
          line(`T: ${NAMED_MODELS_UNAVAILABLE.slice(21)}`),
          { type: "exit", code: 1 },
        ],

  /**
   * The usage-limit block (cursor/cursor#3703) on every model but Auto and the one it suggests
   * (`param`, printed on its `fallbackModel:` line; empty by default, as in the report). The
   * reset date is the end of a monthly cycle 20 days away.
   */
  "usage-limit": (context) => {
    const suggested = context.param ?? "";
    if (isAuto(context) || (suggested !== "" && context.modelId === suggested)) {
      return scenarios.quick!(context);
    }
    const cycleEnd = new Date(Date.now() + 20 * 86_400_000);
    return [
      ...opening(context),
      ...usageLimitBlock(
        suggested,
        `when your monthly cycle ends on ${cycleEnd.getMonth() + 1}/${cycleEnd.getDate()}/${cycleEnd.getFullYear()}`,
      ),
      { type: "exit", code: 1 },
    ];
  },

  /**
   * The usage-limit block, with a reset `param` seconds (default 2) after the first time it is
   * hit (kept in FAKE_AGENT_STATE): until then every run hits it, afterwards runs are fine.
   */
  "usage-limit-soon": (context) => {
    const store = stateOf(context, "usage-limit-soon");
    const seconds = number(context.param, 2);
    const resetAt =
      Number(store.get("usage-limit-soon:reset-at") ?? 0) || Date.now() + seconds * 1_000;
    store.set("usage-limit-soon:reset-at", resetAt);
    if (Date.now() >= resetAt) return scenarios.quick!(context);
    const left = Math.max(1, Math.ceil((resetAt - Date.now()) / 1_000));
    return [
      ...opening(context),
      ...usageLimitBlock("", `in ${left} seconds`),
      { type: "exit", code: 1 },
    ];
  },

  /**
   * The model provider is overloaded (cursor-agent's "Provider Error" line) the first `param`
   * times (default 2, counted in FAKE_AGENT_STATE), then a normal turn.
   */
  overloaded: (context) =>
    failsFirst(context, "overloaded", [{ type: "stderr", text: PROVIDER_ERROR }]),

  /** Rate limited (`ConnectError: [resource_exhausted] Error`) the first `param` times (2). */
  "rate-limited": (context) =>
    failsFirst(context, "rate-limited", [
      { type: "stderr", text: "ConnectError: [resource_exhausted] Error" },
    ]),

  /**
   * The connection drops the first `param` times (2): the CLI reconnects and retries
   * (`connection/reconnecting`, `retry/starting`), then gives up with "Connection failed".
   */
  "connection-lost": (context) =>
    failsFirst(context, "connection-lost", [
      ...thinking(context, 1),
      line({
        type: "connection",
        subtype: "reconnecting",
        attempt: 1,
        session_id: context.sessionId,
      }),
      line({ type: "retry", subtype: "starting", attempt: 2, session_id: context.sessionId }),
      { type: "stderr", text: CONNECTION_FAILED },
    ]),

  /**
   * A shell call completes, then the stream ends without a result and the agent exits 1, saying
   * nothing. Resumed (`--resume`), it finishes without calling the tool again.
   */
  "crash-after-tools": (context) => {
    if (context.resume !== undefined) {
      return [...opening(context), ...closing(context, "The tests I ran before pass; done.")];
    }
    const intro = "I'll run the tests first.";
    return [
      ...opening(context),
      line(
        ev.assistant(context, intro, {
          modelCallId: `${context.requestId}-0-fake`,
          timestampMs: now(),
        }),
      ),
      ...shellCall(context, "call_tests\nfc_1", "npm test", 50, 30_000),
      { type: "exit", code: 1 },
    ];
  },

  /**
   * Works only with `CURSOR_API_KEY` set to `param`: without a key, "Authentication required";
   * with another, "The provided API key is invalid" (as cursor-agent 2026.05 prints them).
   */
  "needs-key": (context) => {
    if (context.param !== undefined && context.apiKey === context.param) {
      return scenarios.quick!(context);
    }
    const lines =
      context.apiKey === undefined
        ? [AUTHENTICATION_REQUIRED]
        : [
            "⚠ Warning: The provided API key is invalid.",
            "The API key was loaded from the CURSOR_API_KEY environment variable.",
          ];
    return [...lines.map((text): Step => ({ type: "stderr", text })), { type: "exit", code: 1 }];
  },

  /** A `--model` the agent does not know: exit 1, nothing on stdout (CLI 2026.09). */
  "unknown-model": (context) =>
    context.modelId !== undefined && !KNOWN_MODELS.includes(context.modelId)
      ? [
          {
            type: "stderr",
            text: `Cannot use this model: ${context.modelId}. Available models: ${KNOWN_MODELS.join(", ")}`,
          },
          { type: "exit", code: 1 },
        ]
      : scenarios.quick!(context),

  /** A workspace not trusted for headless runs: the CLI 2026.09 message, exit 1. */
  "trust-required": () => [
    ...[
      "⚠ Workspace Trust Required",
      "  Cursor Agent can execute code and access files in this directory.",
      "  To proceed, you can either:",
      "    • Run 'agent' interactively to decide",
      "    • Pass --trust, --yolo, or -f if you trust this directory",
    ].map((text): Step => ({ type: "stderr", text })),
    { type: "exit", code: 1 },
  ],

  /** A session id that is not a UUID (CLI 2026.09). */
  "bad-session-id": (context) => [
    {
      type: "stderr",
      text: `Failed to claim persistent session for chat "${context.resume ?? context.sessionId}": Persistent-session chat ID must be a UUID`,
    },
    { type: "exit", code: 1 },
  ],

  /** An organisation that forbids headless runs (no published sample of the wording). */
  "headless-disabled": () => [
    { type: "stderr", text: "Error: Headless mode is disabled by your organization." },
    { type: "exit", code: 1 },
  ],

  /** An error event whose words nothing recognises, then exit 1. */
  "error-event": (context) => [
    ...opening(context),
    line({
      type: "error",
      message: "Unexpected response from the server",
      session_id: context.sessionId,
    }),
    { type: "exit", code: 1 },
  ],

  /**
   * The adapter contract's protocol event first, naming version `param` (default 2.0) on every
   * model but Auto, which speaks 1.0; then a normal turn.
   */
  protocol: (context) => [
    line({
      type: "protocol",
      data: { version: isAuto(context) ? "1.0" : (context.param ?? "2.0") },
    }),
    ...scenarios.quick!(context),
  ],

  /** `--resume` of a session the agent does not know. */
  "unknown-session": (context) => [
    { type: "stderr", text: `Error: Chat not found: ${context.resume ?? context.sessionId}` },
    { type: "exit", code: 1 },
  ],

  /** Mirrors every stdout event on stderr, as stream-json mode was reported to, plus a warning. */
  "stderr-mirror": (context) => {
    const steps: Step[] = [];
    for (const step of scenarios.quick!(context)) {
      steps.push(step);
      if (step.type === "line" && typeof step.value !== "string") {
        steps.push({ type: "stderr", text: JSON.stringify(step.value) });
      }
    }
    return [{ type: "stderr", text: "Warning: rate limited, retrying in 1s" }, ...steps];
  },

  /** Lines that are not events: bare text, invalid UTF-8, non-objects, CRLF, unknown types. */
  garbage: (context) => [
    ...opening(context),
    line("T: this is not JSON"),
    {
      type: "bytes",
      base64: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]).toString("base64"),
    },
    line("[1,2,3]"),
    { type: "line", value: ev.thinkingCompleted(context, now()), eol: "\r\n" },
    line({ type: "brand_new_event", subtype: "surprise", session_id: context.sessionId }),
    line("{truncated"),
    line(ev.assistant(context, "Survived the garbage.")),
    { type: "line", value: ev.result(context, "Survived the garbage."), eol: "" },
  ],

  /** One stdout line of `param` bytes (default 64 MiB), then the result. */
  "huge-line": (context) => [
    ...opening(context),
    { type: "flood", stream: "stdout", bytes: number(context.param, 64 * 1024 * 1024) },
    ...closing(context, "Read a very large file."),
  ],

  /** `param` bytes (default 10 MB) on stderr before any stdout, then a normal turn. */
  "stderr-flood": (context) => [
    { type: "flood", stream: "stderr", bytes: number(context.param, 10 * 1024 * 1024) },
    ...scenarios.quick!(context),
  ],

  /**
   * Silent for `param` ms (default 3000) while burning CPU, then a normal end;
   * `busy-silent:<ms>|<path>` stays silent and busy past `ms` until the file at `path` exists
   * (a test holds it until the wrapper's log shows what it waits for).
   */
  "busy-silent": (context) => silentTurn(context, "spin", "Generated a long reply."),

  /** Silent for `param` ms (default 3000) while reading bytes, then a normal end; `|<path>` as above. */
  "reading-silent": (context) => silentTurn(context, "read", "Read the streamed reply."),

  /** Silent for ever while burning CPU: only a cap on quiet work (--max-quiet) ends it. */
  "spin-forever": (context) => [
    ...opening(context),
    ...thinking(context, 2),
    { type: "spin", ms: Number.POSITIVE_INFINITY },
  ],

  /**
   * A shell moved to the background that lives `param` ms (default 2000); the agent waits for
   * it, silent, then ends normally.
   */
  "background-wait": (context) => [
    ...opening(context),
    {
      type: "background",
      callId: `call_${randomUUID().slice(0, 8)}\nfc_bg`,
      command: "npm run dev",
      ms: number(context.param, 2_000),
    },
    ...closing(context, "The dev server stopped; done."),
  ],

  /**
   * An MCP tool call (`param`: the fake MCP server's tool, default `hang`, which never answers),
   * then an answer that goes on without it. Without the MCP watchdog the agent waits for ever;
   * with it (FAKE_AGENT_MCP_SERVER running the server through `cursor-wrap mcp proxy`) the call
   * fails with the proxy's error and the turn completes.
   */
  "mcp-call": (context) => {
    const tool = context.param ?? "hang";
    const intro = "Let me look that up in the issue tracker.";
    const args = {
      name: `tracker-${tool}`,
      args: { query: "flaky login test" },
      toolCallId: `toolu_${randomUUID().slice(0, 8)}`,
      providerIdentifier: "tracker",
      toolName: tool,
    };
    const callId = `call_${randomUUID().slice(0, 8)}\nfc_mcp`;
    const modelCallId = `${context.requestId}-0-fake`;
    return [
      ...opening(context),
      line(ev.assistant(context, intro, { modelCallId, timestampMs: now() })),
      {
        type: "mcpCall",
        started: ev.toolStarted(context, callId, "mcpToolCall", args, { modelCallId }),
        completed: ev.toolCompleted(context, callId, "mcpToolCall", args, {}, { modelCallId }),
        tool,
        arguments: { text: "flaky login test" },
      },
      ...closing(
        context,
        tool === "hang"
          ? "The issue tracker gave no answer, so this comes from the code alone."
          : "The issue tracker answered; here is what it says.",
        intro,
      ),
    ];
  },

  /**
   * The result, then `param` ms (default 2000) of draining before the exit: background tasks
   * report in every 500 ms and the process keeps busy.
   */
  "drain-after-result": (context) => {
    const drainMs = number(context.param, 2_000);
    const steps: Step[] = [
      ...opening(context),
      ...closing(context, "Done; background tasks finishing."),
    ];
    for (let elapsed = 0; elapsed < drainMs; elapsed += 500) {
      steps.push(
        { type: "spin", ms: 500 },
        line({
          type: "system",
          subtype: "task_notification",
          session_id: context.sessionId,
          task_id: `task-${elapsed}`,
          title: "background task finished",
        }),
      );
    }
    return steps;
  },

  /** The result, then a process that stays parked (the linger bug). */
  "parked-after-result": (context) => [
    ...opening(context),
    ...closing(context, "All done."),
    { type: "silence" },
  ],

  /** Starts descendants of every kind (one ignoring SIGTERM), then hangs in a tool call. */
  descendants: (context) => [
    ...opening(context),
    { type: "spawn", mode: "group", ignoreSigterm: true },
    { type: "spawn", mode: "session" },
    { type: "spawn", mode: "daemon" },
    ...scenarios["tool-hang"]!(context).slice(2),
  ],

  /** Descendants that are hard to find: one hidden (no token, own group), one that spawns on SIGTERM. */
  "hard-descendants": (context) => [
    ...opening(context),
    { type: "spawn", mode: "hidden" },
    { type: "spawn", mode: "term-spawner" },
    ...scenarios["tool-hang"]!(context).slice(2),
  ],

  /** Ignores SIGTERM itself, then goes silent. */
  "ignore-sigterm": (context) => [{ type: "ignoreSigterm" }, ...scenarios["idle-hang"]!(context)],

  /** Leaves a background process holding its stdout open, completes the turn and exits 0. */
  "background-hold": (context) => [
    ...opening(context),
    { type: "spawn", mode: "group", holdStdout: true },
    ...closing(context, "Started the dev server in the background."),
  ],

  /** `--stream-partial-output`: deltas, their echo with model_call_id, and the final copy. */
  "partial-output": (context) => {
    const modelCallId = `${context.requestId}-0-fake`;
    const pieces = ["Checking", " the", " tests."];
    const steps = opening(context);
    for (const piece of pieces)
      steps.push(line(ev.assistant(context, piece, { timestampMs: now() })));
    steps.push(line(ev.assistant(context, pieces.join(""), { modelCallId })));
    steps.push(...shellCall(context, "call_p", "npm test", 50, 30_000));
    const final = ["All", " green."];
    for (const piece of final)
      steps.push(line(ev.assistant(context, piece, { timestampMs: now() })));
    steps.push(line(ev.assistant(context, final.join(""))));
    steps.push(line(ev.result(context, `${pieces.join("")}${final.join("")}`)));
    return steps;
  },

  /**
   * `after-file:<path>|<scenario>`: wait until the file at `path` exists, then play
   * `<scenario>` (a name with its own `:param`; default `normal`).
   */
  "after-file": (context) => {
    const [path, inner = "normal"] = (context.param ?? "").split("|", 2) as [string, string?];
    if (!path) throw new Error("after-file needs a path: after-file:/path/to/file|normal");
    const split = inner.indexOf(":");
    const name = split === -1 ? inner : inner.slice(0, split);
    const then = scenarios[name];
    if (!then) throw new Error(`fake-cursor-agent: unknown scenario ${JSON.stringify(name)}`);
    const param = split === -1 ? undefined : inner.slice(split + 1);
    return [{ type: "waitForFile", path }, ...then({ ...context, param })];
  },

  /** Replay the capture at path `param` with its recorded timing. */
  replay: (context) => {
    if (!context.param)
      throw new Error("replay needs a capture path: replay:/path/to/capture.jsonl");
    return [{ type: "replay", path: context.param, speed: context.speed }];
  },
};

/** Names of the built-in scenarios. */
export const scenarioNames: readonly string[] = Object.keys(scenarios);
