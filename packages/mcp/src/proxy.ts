// The MCP watchdog (docs/requirements.md §7b): a stdio proxy between an MCP client (cursor-agent) and one MCP
// server. Every byte passes through unchanged; what it adds is a deadline for each request the
// client sends, and an answer when the server misses it, so a hung tool call becomes an error
// the agent recovers from instead of a dead session. This file starts the server and decides
// how the proxy ends; `proxy-link.ts` is the watchdog between the streams, `server-process.ts`
// the server's life.

import { basename } from "node:path";
import type { Readable, Writable } from "node:stream";
import { linkMcpPeers } from "./proxy-link.js";
import type { McpProxyLog, McpRecordName } from "./records.js";
import { MCP_DEFAULTS } from "./request-policy.js";
import { startServerProcess } from "./server-process.js";

// With the proxy, for `@cursor-wrap/mcp/proxy`: what a host needs to log what it does.
export { MCP_RECORDS, type McpProxyLog, type McpRecordName } from "./records.js";
export { MCP_DEFAULTS } from "./request-policy.js";

/** Options for {@link startMcpProxy}. Durations in ms; `Infinity` is no limit. */
export interface McpProxyOptions {
  /** The server's command (a name on PATH or a path) and its arguments. */
  command: string;
  args?: readonly string[];
  /** How the server is named in errors and logs. Default: the command's base name. */
  serverId?: string;
  /** What the client sends (the proxy's stdin). */
  input: Readable;
  /** Where the client reads (the proxy's stdout). */
  output: Writable;
  /** The server's stderr: inherited (default), or piped into this stream. */
  serverStderr?: "inherit" | Writable;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** A client request's time to be answered (restarted by its progress). Default 5 min. */
  requestTimeoutMs?: number;
  /** Per tool (`tools/call` by `params.name`), overriding `requestTimeoutMs`. */
  toolTimeouts?: Readonly<Record<string, number>>;
  /** `initialize`'s time to be answered. Default 60 s. */
  initTimeoutMs?: number;
  /** The most any request may take, progress or not. Default 30 min. */
  maxRequestTimeMs?: number;
  /** Lines longer than this pass through in pieces, unparsed. Default 64 MiB. */
  maxLineBytes?: number;
  /** Bytes that may wait for a side that does not read, per direction. Default 16 MiB. */
  maxQueuedBytes?: number;
  /** Unanswered requests from the server remembered, at most. Default 1000. */
  maxServerRequests?: number;
  /** On shutdown: time the server gets to exit after its stdin closes. Default 5 s. */
  stdinCloseGraceMs?: number;
  /** Then: time between SIGTERM to its process group and SIGKILL. Default 2 s. */
  killGraceMs?: number;
  /** Guard the server's tree with a sentinel, so a SIGKILL of the proxy ends it. Default true. */
  sentinel?: boolean;
  log?: McpProxyLog;
  /** Fields added to the first record (`mcp_proxy_start`), e.g. the run the proxy is part of. */
  context?: Readonly<Record<string, unknown>>;
  /** Monotonic clock, ms. Default `performance.now()`. */
  now?: () => number;
}

/** How the proxy ended. */
export interface McpProxyEnd {
  /** The proxy's exit code: the server's own (0 after a requested shutdown), or non-zero when the server failed. */
  exitCode: number;
  /** Why it ended, for people. */
  reason: string;
  /** The server's exit, if it started. */
  serverExit?: { code: number | null; signal: NodeJS.Signals | null };
}

/** A running proxy. */
export interface McpProxy {
  /** The server's pid (its process group too), once started. */
  readonly pid: number | undefined;
  /** The token every process of the server's tree carries. */
  readonly token: string;
  readonly done: Promise<McpProxyEnd>;
  /**
   * Shut the server down in stages (stdin closed, grace, SIGTERM to its group, grace, SIGKILL).
   * Asked while a shutdown is under way (the client closed stdin, then sent SIGTERM as the MCP
   * SDK does after 2 s), it skips what is left of the stdin grace.
   */
  shutdown(reason: string): void;
}

/**
 * Start the server and proxy between it and the client (R-MCP1 to R-MCP4, R-MCP8). Lines pass
 * through byte for byte in both directions; client requests are tracked by id, and one timer
 * waits for the earliest deadline. A request past its deadline is answered with a JSON-RPC
 * error (code -32001), the server is sent `notifications/cancelled` for it (never for
 * `initialize`: a timed-out `initialize` ends the proxy), and its late response is dropped.
 * When the server exits, every pending request is answered with an error at once. However the
 * proxy ends, the server's whole tree ends with it.
 */
export function startMcpProxy(options: McpProxyOptions): McpProxy {
  const now = options.now ?? (() => performance.now());
  const serverId = options.serverId ?? basename(options.command);
  const policy = {
    requestTimeoutMs: options.requestTimeoutMs ?? MCP_DEFAULTS.requestTimeoutMs,
    initTimeoutMs: options.initTimeoutMs ?? MCP_DEFAULTS.initTimeoutMs,
    maxRequestTimeMs: options.maxRequestTimeMs ?? MCP_DEFAULTS.maxRequestTimeMs,
    toolTimeouts: new Map(Object.entries(options.toolTimeouts ?? {})),
  };
  const killGraceMs = options.killGraceMs ?? MCP_DEFAULTS.killGraceMs;
  const stdinCloseGraceMs = options.stdinCloseGraceMs ?? MCP_DEFAULTS.stdinCloseGraceMs;
  const record = (name: McpRecordName, fields: Record<string, unknown>): void =>
    options.log?.record(name, fields);
  const { input, output } = options;

  record("mcp_proxy_start", {
    ...options.context,
    server_id: serverId,
    command: options.command,
    args: options.args ?? [],
    request_timeout_ms: policy.requestTimeoutMs,
    init_timeout_ms: policy.initTimeoutMs,
    max_request_time_ms: policy.maxRequestTimeMs,
    tool_timeouts: Object.fromEntries(policy.toolTimeouts),
  });

  const server = startServerProcess({
    command: options.command,
    args: options.args ?? [],
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env: options.env ?? process.env,
    stderr: options.serverStderr ?? "inherit",
    killGraceMs,
    ...(options.sentinel === undefined ? {} : { sentinel: options.sentinel }),
  });

  let stopping: string | undefined;
  // A failure that decides the exit code whatever the server's own (a timed-out initialize).
  let failure: string | undefined;
  let finished = false;
  let resolveDone: (end: McpProxyEnd) => void = () => {};
  const done = new Promise<McpProxyEnd>((resolve) => {
    resolveDone = resolve;
  });

  const link = linkMcpPeers({
    serverId,
    client: { input, output },
    server: { input: server.group.stdout, output: server.group.stdin },
    policy,
    maxLineBytes: options.maxLineBytes ?? MCP_DEFAULTS.maxLineBytes,
    maxQueuedBytes: options.maxQueuedBytes ?? MCP_DEFAULTS.maxQueuedBytes,
    maxServerRequests: options.maxServerRequests ?? MCP_DEFAULTS.maxServerRequests,
    ...(options.log ? { log: options.log } : {}),
    now,
    onInitializeTimeout() {
      failure ??= "initialize got no answer in time";
      stop("initialize got no answer in time: the server is not usable");
    },
    onClientEnd: () => stop("the client closed its stdin"),
    onClientGone: () => stop("the client closed its end"),
  });

  const finish = (end: McpProxyEnd): void => {
    if (finished) return;
    finished = true;
    link.close();
    record("mcp_proxy_end", { exit_code: end.exitCode, summary: end.reason });
    resolveDone(end);
  };

  /** Stop the server and its whole tree, once; resolves when nothing of it is left. */
  let treeStopped: Promise<unknown> | undefined;
  const stopTree = (): Promise<unknown> =>
    (treeStopped ??= server
      .stop(stdinCloseGraceMs, (signal, pids) =>
        record("mcp_shutdown", {
          step: signal,
          pids,
          summary:
            signal === "SIGTERM"
              ? "the server (or a helper of it) still ran after its stdin closed: SIGTERM to its process group and tree"
              : "still running after the grace: SIGKILL",
        }),
      )
      .then((report) => {
        if (report.steps.some((step) => step.pids.length > 0)) {
          record("mcp_shutdown", {
            step: "killed",
            steps: report.steps,
            survivors: report.survivors,
          });
        }
        return report;
      }));

  server.group.spawned.then(
    () => record("mcp_server_started", { pid: server.group.pid }),
    (error: NodeJS.ErrnoException) => {
      const why = `could not be started (${error.code ?? error.message})`;
      record("mcp_server_spawn_failed", {
        command: options.command,
        code: error.code,
        summary: `cannot start ${JSON.stringify(options.command)}: ${error.code ?? error.message}`,
      });
      link.serverGone(why);
      finish({ exitCode: 1, reason: `the server ${why}` });
    },
  );

  void server.exited.then(async (exit) => {
    // Everything the server wrote is passed on first (a helper holding its stdout open gets a
    // second), then what is still pending is answered.
    await server.outputClosed(1_000);
    link.serverOutputEnded();
    const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
    record("mcp_server_exited", {
      code: exit.code,
      signal: exit.signal,
      during_shutdown: stopping !== undefined,
    });
    link.serverGone(how);
    // Whatever ended it, its helpers go too.
    await stopTree();
    if (stopping !== undefined) {
      finish({
        exitCode: failure !== undefined ? 1 : exit.signal ? 0 : (exit.code ?? 0),
        reason: `shut down: ${stopping}`,
        serverExit: exit,
      });
    } else {
      finish({
        exitCode: exit.code !== null && exit.code !== 0 ? exit.code : 1,
        reason: `the server ${how} while the client was still connected`,
        serverExit: exit,
      });
    }
  });

  /** Shut the server down in stages (R-MCP4); `hurry`: a stop under way skips the rest of the stdin grace. */
  function stop(reason: string, hurry = false): void {
    if (finished) return;
    if (stopping !== undefined) {
      if (!hurry) return;
      record("mcp_shutdown", {
        reason,
        summary: `${reason} during the shutdown: the server's stdin grace is cut short`,
      });
      server.hurry();
      return;
    }
    stopping = reason;
    record("mcp_shutdown", { reason, summary: `shutting the server down: ${reason}` });
    void stopTree();
  }

  return {
    get pid() {
      return server.group.pid;
    },
    token: server.group.token,
    done,
    shutdown: (reason) => stop(reason, true),
  };
}
