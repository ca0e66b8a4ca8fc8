// The MCP watchdog (SPEC 7b): a stdio proxy between an MCP client (cursor-agent) and one MCP
// server. Every byte passes through unchanged; what it adds is a deadline for each request the
// client sends, and an answer when the server misses it, so a hung tool call becomes an error
// the agent recovers from instead of a dead session.

import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { basename } from "node:path";
import type { Readable, Writable } from "node:stream";
import { createDeadlineTimer, formatDuration } from "@cursor-wrap/monitor";
import { killTree } from "@cursor-wrap/supervisor";
import {
  cancelledKeyOf,
  cancelledNotification,
  classify,
  errorResponse,
  idKey,
  type JsonRpcId,
  type Message,
  progressKeyOf,
  REQUEST_TIMEOUT_CODE,
  SERVER_GONE_CODE,
} from "./jsonrpc.js";
import { createLineSplitter, type Framed } from "./line-splitter.js";
import type { McpProxyLog, McpRecordName } from "./records.js";

/** Defaults of the watchdog, ms (and bytes). */
export const MCP_DEFAULTS = {
  requestTimeoutMs: 300_000,
  initTimeoutMs: 60_000,
  maxLineBytes: 64 * 1024 * 1024,
  stdinCloseGraceMs: 5_000,
  killGraceMs: 2_000,
} as const;

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
  /** A client request's time to be answered. Default 5 min. */
  requestTimeoutMs?: number;
  /** Per tool (`tools/call` by `params.name`), overriding `requestTimeoutMs`. */
  toolTimeouts?: Readonly<Record<string, number>>;
  /** `initialize`'s time to be answered. Default 60 s. */
  initTimeoutMs?: number;
  /** Lines longer than this pass through in pieces, unparsed. Default 64 MiB. */
  maxLineBytes?: number;
  /** On shutdown: time the server gets to exit after its stdin closes. Default 5 s. */
  stdinCloseGraceMs?: number;
  /** Then: time between SIGTERM to its process group and SIGKILL. Default 2 s. */
  killGraceMs?: number;
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
  readonly done: Promise<McpProxyEnd>;
  /** Shut the server down in stages (stdin closed, grace, SIGTERM to its group, grace, SIGKILL). */
  shutdown(reason: string): void;
}

interface Pending {
  id: JsonRpcId;
  key: string;
  method: string;
  tool: string | undefined;
  progressKey: string | undefined;
  startedAt: number;
  timeoutMs: number;
  deadline: number;
}

/** How many timed-out ids are remembered, to drop their late responses. */
const REMEMBERED_TIMEOUTS = 10_000;

/** An `"id"` field in the head or tail of a line too long to parse. */
const ID_FIELD = /"id"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|"(?:[^"\\]|\\.)*")/g;

/** The id an oversize line carries, read from its tail (where responses put it) or its head. */
function idOfOversize(head: Buffer, tail: Buffer): string | undefined {
  for (const part of [tail, head]) {
    const matches = [...part.toString("latin1").matchAll(ID_FIELD)];
    const last = matches.at(part === tail ? -1 : 0)?.[1];
    if (last === undefined) continue;
    try {
      return idKey(JSON.parse(last));
    } catch {
      // not an id after all
    }
  }
  return undefined;
}

const describeRequest = (method: string, tool: string | undefined): string =>
  tool === undefined ? method : `${method} ${JSON.stringify(tool)}`;

/**
 * Start the server and proxy between it and the client (R-MCP1 to R-MCP4). Lines pass through
 * byte for byte in both directions; client requests are tracked by id, and one timer waits for
 * the earliest deadline. A request past its deadline is answered with a JSON-RPC error (code
 * {@link REQUEST_TIMEOUT_CODE}), the server is sent `notifications/cancelled` for it, and its
 * late response is dropped. Progress notifications for a request restart its clock. Lines from
 * the server that are not JSON-RPC (banners, log lines) never reach the client. When the server
 * exits, every pending request is answered with an error at once.
 */
export function startMcpProxy(options: McpProxyOptions): McpProxy {
  const now = options.now ?? (() => performance.now());
  const serverId = options.serverId ?? basename(options.command);
  const requestTimeoutMs = options.requestTimeoutMs ?? MCP_DEFAULTS.requestTimeoutMs;
  const initTimeoutMs = options.initTimeoutMs ?? MCP_DEFAULTS.initTimeoutMs;
  const toolTimeouts = new Map(Object.entries(options.toolTimeouts ?? {}));
  const maxLineBytes = options.maxLineBytes ?? MCP_DEFAULTS.maxLineBytes;
  const record = (name: McpRecordName, fields: Record<string, unknown>): void =>
    options.log?.record(name, fields);
  const { input, output } = options;

  const pending = new Map<string, Pending>();
  const byProgress = new Map<string, string>();
  const timedOut = new Map<string, number>();
  // Requests the server sent the client (sampling, roots, elicitation), for their latency.
  const serverRequests = new Map<string, { method: string; startedAt: number }>();

  // Until it is gone (exited, or could not be started), writes to the server are buffered by
  // its stdin while it starts, and passed on.
  let serverGone = false;
  let stopping: string | undefined;
  let finished = false;
  let resolveDone: (end: McpProxyEnd) => void = () => {};
  const done = new Promise<McpProxyEnd>((resolve) => {
    resolveDone = resolve;
  });

  const child = spawn(options.command, [...(options.args ?? [])], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    // Its own process group (and session): the terminal's Ctrl+C reaches the proxy only, and
    // the whole server tree can be signalled at once.
    detached: true,
    stdio: [
      "pipe",
      "pipe",
      options.serverStderr === undefined || options.serverStderr === "inherit" ? "inherit" : "pipe",
    ],
  });
  if (options.serverStderr !== undefined && options.serverStderr !== "inherit") {
    child.stderr?.pipe(options.serverStderr, { end: false });
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });

  // ─── writing to each side, a whole line at a time ───────────────────────────────────────
  /** A side we write to: lines of our own wait while a long line is passing through. */
  const writer = (stream: Writable, onBlocked: () => void, onDrained: () => void) => {
    let midLine = false;
    let blocked = false;
    const queued: string[] = [];
    const write = (bytes: Buffer | string): void => {
      if (stream.destroyed || stream.writableEnded) return;
      if (!stream.write(bytes) && !blocked) {
        blocked = true;
        onBlocked();
        stream.once("drain", () => {
          blocked = false;
          onDrained();
        });
      }
    };
    return {
      /** Forward bytes as they came (`whole`: they end a line). */
      forward(bytes: Buffer, whole: boolean): void {
        write(bytes);
        midLine = !whole;
        if (!midLine) for (const line of queued.splice(0)) write(line);
      },
      /** A line of our own, between the lines passing through. */
      inject(line: string): void {
        if (midLine) queued.push(line);
        else write(line);
      },
    };
  };
  const toClient = writer(
    output,
    () => child.stdout?.pause(),
    () => child.stdout?.resume(),
  );
  const toServer = writer(
    child.stdin!,
    () => input.pause(),
    () => input.resume(),
  );
  child.stdin?.on("error", () => {
    // the server went away without reading: its exit says what happened
  });
  output.on("error", () => stop("the client closed its end"));

  // ─── deadlines ──────────────────────────────────────────────────────────────────────────
  const earliestDeadline = (): number | undefined => {
    let earliest: number | undefined;
    for (const request of pending.values()) {
      if (earliest === undefined || request.deadline < earliest) earliest = request.deadline;
    }
    return earliest;
  };
  const forget = (request: Pending): void => {
    pending.delete(request.key);
    if (request.progressKey !== undefined) byProgress.delete(request.progressKey);
  };
  const timer = createDeadlineTimer({
    nextDeadline: earliestDeadline,
    now,
    onDeadline(at) {
      for (const request of [...pending.values()]) {
        if (request.deadline > at) continue;
        forget(request);
        timedOut.set(request.key, at);
        if (timedOut.size > REMEMBERED_TIMEOUTS) timedOut.delete(timedOut.keys().next().value!);
        const what = describeRequest(request.method, request.tool);
        const limit = formatDuration(request.timeoutMs);
        toClient.inject(
          errorResponse(
            request.id,
            REQUEST_TIMEOUT_CODE,
            `MCP server "${serverId}" did not answer ${what} within ${limit}; cursor-wrap's MCP watchdog cancelled the request, and the server goes on serving others`,
            {
              server: serverId,
              method: request.method,
              ...(request.tool === undefined ? {} : { tool: request.tool }),
              timeoutMs: request.timeoutMs,
            },
          ),
        );
        if (!serverGone) {
          toServer.inject(cancelledNotification(request.id, `no response within ${limit}`));
        }
        record("mcp_request_timed_out", {
          id: request.id,
          method: request.method,
          tool: request.tool,
          timeout_ms: request.timeoutMs,
          elapsed_ms: Math.round(at - request.startedAt),
          summary: `${what} got no response within ${limit}: answered with an error, cancelled at the server`,
        });
      }
    },
  });

  const timeoutFor = (method: string, tool: string | undefined): number => {
    if (method === "initialize") return initTimeoutMs;
    if (tool !== undefined && toolTimeouts.has(tool)) return toolTimeouts.get(tool)!;
    return requestTimeoutMs;
  };

  /** Answer a client request at once: the server is not there to. */
  const answerGone = (
    id: JsonRpcId,
    method: string,
    tool: string | undefined,
    why: string,
  ): void => {
    toClient.inject(
      errorResponse(
        id,
        SERVER_GONE_CODE,
        `MCP server "${serverId}" ${why}; ${describeRequest(method, tool)} cannot be answered`,
        {
          server: serverId,
          method,
          ...(tool === undefined ? {} : { tool }),
        },
      ),
    );
  };

  // ─── client → server ────────────────────────────────────────────────────────────────────
  const clientSplitter = createLineSplitter({ maxLineBytes });
  const fromClient = (framed: Framed): void => {
    if (framed.kind === "oversize") {
      if (framed.first) {
        record("mcp_oversize_line", { dir: "client→server", head_bytes: framed.head.length });
      }
      if (!serverGone) toServer.forward(framed.raw, framed.final);
      return;
    }
    const message = classify(framed.line);
    logMessage("client→server", message, framed.raw.length);
    if (message.kind === "request") {
      if (serverGone) {
        answerGone(message.id, message.method, message.tool, goneReason ?? "is not running");
        return;
      }
      const timeoutMs = timeoutFor(message.method, message.tool);
      const at = now();
      const request: Pending = {
        id: message.id,
        key: message.key,
        method: message.method,
        tool: message.tool,
        progressKey: message.progressKey,
        startedAt: at,
        timeoutMs,
        deadline: at + timeoutMs,
      };
      const earlier = pending.get(message.key);
      if (earlier) forget(earlier);
      pending.set(message.key, request);
      if (request.progressKey !== undefined) byProgress.set(request.progressKey, message.key);
      // Requests come in time order with like timeouts: the timer moves only for an earlier
      // deadline (looking for the earliest is a scan, so not on every request).
      const armed = timer.armedFor;
      if (armed === undefined || request.deadline < armed) timer.rearm({ exact: true });
    } else if (message.kind === "notification" && message.method === "notifications/cancelled") {
      // The client gave up on a request itself: no deadline for it any more.
      const key = cancelledKeyOf(message.params);
      const request = key === undefined ? undefined : pending.get(key);
      if (request) forget(request);
    } else if (message.kind === "response") {
      serverRequests.delete(message.key);
    }
    if (!serverGone) toServer.forward(framed.raw, !framed.unterminated);
  };

  // ─── server → client ────────────────────────────────────────────────────────────────────
  const serverSplitter = createLineSplitter({ maxLineBytes });
  // A broken line that looked like the start of a message: what follows may have been inside it.
  let afterBrokenMessage = false;
  const fromServer = (framed: Framed): void => {
    if (framed.kind === "oversize") {
      toClient.forward(framed.raw, framed.final);
      if (framed.final) {
        const key = idOfOversize(framed.head, framed.tail ?? framed.head);
        const request = key === undefined ? undefined : pending.get(key);
        if (request) forget(request);
        record("mcp_oversize_line", {
          dir: "server→client",
          bytes: framed.bytes,
          id_found: key !== undefined,
          summary: `a line of ${framed.bytes} bytes passed through unparsed`,
        });
      }
      return;
    }
    const message = classify(framed.line);
    const broken = afterBrokenMessage;
    afterBrokenMessage = false;
    if (message.kind === "invalid") {
      const text = framed.line.subarray(0, 200).toString("utf8");
      afterBrokenMessage = text.trimStart().startsWith("{") && text.includes('"jsonrpc"');
      record("mcp_invalid_line", {
        reason: message.reason,
        bytes: framed.raw.length,
        head: text,
        summary: `dropped a line from the server that is not a JSON-RPC message (${message.reason})`,
      });
      return;
    }
    if (broken) {
      record("mcp_smuggled_line", {
        kind: message.kind,
        bytes: framed.raw.length,
        summary:
          "dropped a valid message that followed a broken one: it may have been smuggled inside it",
      });
      return;
    }
    logMessage("server→client", message, framed.raw.length);
    if (message.kind === "response") {
      const request = pending.get(message.key);
      if (!request && timedOut.has(message.key)) {
        timedOut.delete(message.key);
        record("mcp_late_response", {
          id: message.id,
          summary: "a response came after its request had timed out: dropped",
        });
        return;
      }
      if (request) forget(request);
      else {
        record("mcp_unknown_response", {
          id: message.id,
          summary: "a response to no pending request: forwarded",
        });
      }
    } else if (message.kind === "notification" && message.method === "notifications/progress") {
      // Progress for a request: it is alive, its clock starts again.
      const key = progressKeyOf(message.params);
      const request = key === undefined ? undefined : pending.get(byProgress.get(key) ?? "");
      if (request) request.deadline = now() + request.timeoutMs;
    } else if (message.kind === "request") {
      serverRequests.set(message.key, { method: message.method, startedAt: now() });
    }
    toClient.forward(framed.raw, !framed.unterminated);
  };

  function logMessage(direction: string, message: Message, bytes: number): void {
    if (!options.log) return;
    const fields: Record<string, unknown> = { dir: direction, kind: message.kind, bytes };
    switch (message.kind) {
      case "request":
        fields.id = message.id;
        fields.method = message.method;
        if (message.tool !== undefined) fields.tool = message.tool;
        break;
      case "notification":
        fields.method = message.method;
        break;
      case "response": {
        fields.id = message.id;
        const request = direction === "server→client" ? pending.get(message.key) : undefined;
        const asked = direction === "client→server" ? serverRequests.get(message.key) : undefined;
        if (request) {
          fields.method = request.method;
          if (request.tool !== undefined) fields.tool = request.tool;
          fields.latency_ms = Math.round((now() - request.startedAt) * 1000) / 1000;
        } else if (asked) {
          fields.method = asked.method;
          fields.latency_ms = Math.round((now() - asked.startedAt) * 1000) / 1000;
        }
        if (message.errorCode !== undefined) fields.error_code = message.errorCode;
        break;
      }
      case "invalid":
        fields.reason = message.reason;
        break;
    }
    record("mcp_message", fields);
  }

  // ─── the server's life ──────────────────────────────────────────────────────────────────
  let goneReason: string | undefined;
  // The staged kill of a shutdown, if one ran: the proxy ends once it is over and recorded.
  let killing: Promise<void> | undefined;
  /** Answer every pending request with an error at once (the server is gone). */
  const failPending = (why: string): void => {
    if (pending.size === 0) return;
    const failed = [...pending.values()];
    for (const request of failed) {
      forget(request);
      answerGone(request.id, request.method, request.tool, why);
    }
    record("mcp_pending_failed", {
      count: failed.length,
      ids: failed.map((request) => request.id).slice(0, 50),
      summary: `${failed.length} pending request${failed.length === 1 ? "" : "s"} answered with an error: the server ${why}`,
    });
  };

  const finish = (end: McpProxyEnd): void => {
    if (finished) return;
    finished = true;
    timer.stop();
    input.off("data", onClientData);
    input.off("end", onClientEnd);
    record("mcp_proxy_end", { exit_code: end.exitCode, summary: end.reason });
    resolveDone(end);
  };

  let spawned = false;
  child.once("spawn", () => {
    spawned = true;
    record("mcp_server_started", { pid: child.pid });
  });
  child.once("error", (error: NodeJS.ErrnoException) => {
    if (spawned) return;
    serverGone = true;
    goneReason = `could not be started (${error.code ?? error.message})`;
    record("mcp_server_spawn_failed", {
      command: options.command,
      code: error.code,
      summary: `cannot start ${JSON.stringify(options.command)}: ${error.code ?? error.message}`,
    });
    failPending(goneReason);
    finish({ exitCode: 1, reason: `the server ${goneReason}` });
  });

  // Everything the server wrote is passed on before the proxy ends: wait for its stdout to
  // close, or a moment after the exit if a descendant holds it open.
  const stdoutClosed = new Promise<void>((resolve) => {
    child.stdout?.once("close", () => resolve());
  });

  void exited.then(async (exit) => {
    serverGone = true;
    await Promise.race([
      stdoutClosed,
      new Promise((resolve) => setTimeout(resolve, 1_000).unref()),
    ]);
    for (const framed of serverSplitter.end()) fromServer(framed);
    const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
    goneReason ??= how;
    record("mcp_server_exited", {
      code: exit.code,
      signal: exit.signal,
      during_shutdown: stopping !== undefined,
    });
    failPending(how);
    await killing;
    if (stopping !== undefined) {
      finish({
        exitCode: exit.signal ? 0 : (exit.code ?? 0),
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

  child.stdout?.on("data", (chunk: Buffer) => {
    for (const framed of serverSplitter.push(chunk)) fromServer(framed);
  });

  const onClientData = (chunk: Buffer): void => {
    for (const framed of clientSplitter.push(chunk)) fromClient(framed);
  };
  const onClientEnd = (): void => {
    for (const framed of clientSplitter.end()) fromClient(framed);
    stop("the client closed its stdin");
  };
  input.on("data", onClientData);
  input.once("end", onClientEnd);

  /** Shut the server down in stages (R-MCP4). */
  function stop(reason: string): void {
    if (stopping !== undefined || finished) return;
    stopping = reason;
    record("mcp_shutdown", { reason, summary: `shutting the server down: ${reason}` });
    child.stdin?.end();
    if (serverGone || child.pid === undefined) return;
    const pid = child.pid;
    const grace = new Promise((resolve) =>
      setTimeout(resolve, options.stdinCloseGraceMs ?? MCP_DEFAULTS.stdinCloseGraceMs).unref(),
    );
    killing = Promise.race([exited.then(() => "exited"), grace.then(() => "grace")]).then(
      async (first) => {
        if (first === "exited") return;
        record("mcp_shutdown", {
          step: "SIGTERM",
          summary: "the server did not exit after its stdin closed: SIGTERM to its process group",
        });
        // A token no process carries: the kill finds the server's group, session and descendants.
        const report = await killTree({
          rootPid: pid,
          token: randomUUID(),
          graceMs: options.killGraceMs ?? MCP_DEFAULTS.killGraceMs,
        });
        record("mcp_shutdown", {
          step: "killed",
          steps: report.steps,
          survivors: report.survivors,
        });
      },
    );
  }

  record("mcp_proxy_start", {
    ...options.context,
    server_id: serverId,
    command: options.command,
    args: options.args ?? [],
    request_timeout_ms: requestTimeoutMs,
    init_timeout_ms: initTimeoutMs,
    tool_timeouts: Object.fromEntries(toolTimeouts),
  });

  return {
    get pid() {
      return child.pid;
    },
    done,
    shutdown: stop,
  };
}
