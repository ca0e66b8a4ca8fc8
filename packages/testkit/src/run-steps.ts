import { spawn } from "node:child_process";
import { appendFileSync, closeSync, existsSync, openSync, readFileSync, readSync } from "node:fs";
import { homedir } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { fakeMcpServerBin } from "./fake-agent.js";
import type { Step } from "./scenarios.js";

/** Where the fake agent writes, and how it behaves towards its descendants. */
export interface StepIo {
  /** Output format asked for with `--output-format`. */
  outputFormat: "stream-json" | "json" | "text";
  /** File each descendant appends its pid to. */
  pidFile: string;
  /** Descendants exit on their own after this long, so a failed test leaves nothing behind. */
  descendantTtlMs: number;
}

function write(stream: NodeJS.WriteStream, data: string | Buffer): Promise<void> {
  return new Promise((resolve) => {
    if (stream.write(data)) resolve();
    else stream.once("drain", () => resolve());
  });
}

/** Write a stdout line in the requested output format (json: only the result; text: assistant text). */
async function emit(
  io: StepIo,
  step: string | Record<string, unknown>,
  eol: string,
): Promise<void> {
  // Timestamps say when the line was written, not when the scenario was built.
  const value =
    typeof step !== "string" && typeof step.timestamp_ms === "number"
      ? { ...step, timestamp_ms: Date.now() }
      : step;
  if (io.outputFormat === "stream-json" || typeof value === "string") {
    await write(
      process.stdout,
      `${typeof value === "string" ? value : JSON.stringify(value)}${eol}`,
    );
    return;
  }
  if (io.outputFormat === "json" && value.type === "result") {
    await write(process.stdout, `${JSON.stringify(value)}\n`);
  }
  if (io.outputFormat === "text" && value.type === "assistant") {
    const content =
      (value.message as { content?: Array<{ text?: string }> } | undefined)?.content ?? [];
    await write(process.stdout, `${content.map((part) => part.text ?? "").join("")}\n`);
  }
}

function descendantScript(ignoreSigterm: boolean, pidFile: string, ttlMs: number): string {
  return [
    ignoreSigterm ? "process.on('SIGTERM', () => {});" : "",
    `require('node:fs').appendFileSync(${JSON.stringify(pidFile)}, process.pid + '\\n');`,
    `setTimeout(() => process.exit(0), ${ttlMs});`,
  ].join("\n");
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

function pidCount(pidFile: string): number {
  return existsSync(pidFile) ? readFileSync(pidFile, "utf8").split("\n").filter(Boolean).length : 0;
}

async function spawnDescendant(step: Extract<Step, { type: "spawn" }>, io: StepIo): Promise<void> {
  const before = pidCount(io.pidFile);
  const script = descendantScript(step.ignoreSigterm === true, io.pidFile, io.descendantTtlMs);
  if (step.mode === "hidden") {
    // A job-control shell puts its background job in a group of its own (same session); the
    // job runs with an empty environment, and the shell exits, so it is reparented.
    const command = `set -m; env -i "${process.execPath}" -e ${shellQuote(script)} & exit 0`;
    spawn("/bin/sh", ["-c", command], { stdio: "ignore" }).unref();
  } else if (step.mode === "term-spawner") {
    // On SIGTERM it starts another descendant, in a session of its own, then exits.
    // The new descendant's pid is recorded at once: it may be killed before it could write it.
    const spawnOnTerm = [
      "process.on('SIGTERM', () => {",
      `  const child = require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(script)}], { detached: true, stdio: 'ignore' });`,
      `  require('node:fs').appendFileSync(${JSON.stringify(io.pidFile)}, child.pid + '\\n');`,
      "  child.unref();",
      "  setTimeout(() => process.exit(0), 50);",
      "});",
      script,
    ].join("\n");
    spawn(process.execPath, ["-e", spawnOnTerm], { stdio: "ignore" }).unref();
  } else if (step.mode === "daemon") {
    // Double fork: the intermediate starts a detached grandchild and exits at once, so the
    // grandchild is reparented and only its environment still ties it to this agent.
    const launcher = `require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(script)}], { detached: true, stdio: 'ignore' }).unref();`;
    spawn(process.execPath, ["-e", launcher], { stdio: "ignore" }).unref();
  } else {
    const child = spawn(process.execPath, ["-e", script], {
      detached: step.mode === "session",
      stdio: ["ignore", step.holdStdout ? "inherit" : "ignore", "ignore"],
    });
    child.unref();
  }
  const deadline = Date.now() + 10_000;
  while (pidCount(io.pidFile) <= before && Date.now() < deadline) await sleep(10);
}

async function flood(step: Extract<Step, { type: "flood" }>): Promise<void> {
  const chunk = Buffer.alloc(64 * 1024, "x");
  if (step.stream === "stderr") {
    const line = Buffer.concat([chunk.subarray(0, 1023), Buffer.from("\n")]);
    for (let sent = 0; sent < step.bytes; sent += line.length) await write(process.stderr, line);
    return;
  }
  await write(
    process.stdout,
    '{"type":"tool_call","subtype":"completed","call_id":"huge","tool_call":{"readToolCall":{"args":{"path":"big.txt"},"result":{"success":{"content":"',
  );
  for (let sent = 0; sent < step.bytes; sent += chunk.length) {
    await write(
      process.stdout,
      step.bytes - sent >= chunk.length ? chunk : chunk.subarray(0, step.bytes - sent),
    );
  }
  await write(process.stdout, '"}}}}}\n');
}

// The events package (its schemas) and the config reader are loaded by the steps that use them
// only: the tests start this agent hundreds of times, most of them for scenarios without.
const loadEvents = () => import("@cursor-wrap/events");

async function replay(path: string, speed: number): Promise<void> {
  const { createLineFramer, recordedTimeline } = await loadEvents();
  const framer = createLineFramer({ parseCap: Number.MAX_SAFE_INTEGER });
  const events = [...framer.push(readFileSync(path)), ...framer.end()];
  const times = recordedTimeline(events);
  for (const [index, event] of events.entries()) {
    const gap = index === 0 ? 0 : (times[index]! - times[index - 1]!) / speed;
    if (gap > 0) await sleep(gap);
    await write(process.stdout, event.raw);
  }
}

/** Whether a silent step of `ms` (and, past them, until `untilFile` exists) goes on. */
function silentUntil(ms: number, untilFile: string | undefined): () => boolean {
  const until = Date.now() + ms;
  return () => Date.now() < until || (untilFile !== undefined && !existsSync(untilFile));
}

/**
 * Burn CPU for `ms` (then until `untilFile` exists) without printing, yielding now and then so
 * signals are still handled.
 */
async function spin(ms: number, untilFile?: string): Promise<void> {
  const goOn = silentUntil(ms, untilFile);
  while (goOn()) {
    const slice = Date.now() + 50;
    while (Date.now() < slice) {
      // busy: a model reply being generated, as far as CPU time can tell
    }
    await sleep(1);
  }
}

/**
 * Read bytes for `ms` (then until `untilFile` exists) without printing and with next to no
 * CPU: 256 KiB every 25 ms.
 */
async function readBytes(ms: number, untilFile?: string): Promise<void> {
  const buffer = Buffer.alloc(256 * 1024);
  const fd = openSync("/dev/zero", "r");
  try {
    const goOn = silentUntil(ms, untilFile);
    while (goOn()) {
      readSync(fd, buffer, 0, buffer.length, null);
      await sleep(25);
    }
  } finally {
    closeSync(fd);
  }
}

/** A shell the CLI moved to the background, and the agent waiting for it (see the step). */
async function background(step: Extract<Step, { type: "background" }>, io: StepIo): Promise<void> {
  const seconds = Math.max(0, Math.min(step.ms, io.descendantTtlMs)) / 1000;
  const child = spawn("sleep", [String(seconds)], { detached: true, stdio: "ignore" });
  const pid = child.pid!;
  appendFileSync(io.pidFile, `${pid}\n`);
  const args = {
    command: step.command,
    timeout: 30_000,
    timeoutBehavior: "TIMEOUT_BEHAVIOR_BACKGROUND",
  };
  await emit(
    io,
    {
      type: "tool_call",
      subtype: "started",
      call_id: step.callId,
      tool_call: { shellToolCall: { args } },
    },
    "\n",
  );
  await emit(
    io,
    {
      type: "tool_call",
      subtype: "completed",
      call_id: step.callId,
      tool_call: {
        shellToolCall: {
          args,
          result: {
            success: { command: step.command, pid, shellId: `shell-${pid}` },
            isBackground: true,
          },
        },
      },
    },
    "\n",
  );
  await new Promise((resolve) => child.once("exit", resolve));
  await emit(
    io,
    {
      type: "system",
      subtype: "task_notification",
      task_id: `shell-${pid}`,
      title: `${step.command} exited`,
    },
    "\n",
  );
}

/** An MCP server on stdio, as cursor-agent talks to one: one request at a time, answers by id. */
async function startMcpServer(): Promise<{
  request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
  notify(method: string): void;
  close(): Promise<void>;
}> {
  const configured = process.env.FAKE_AGENT_MCP_SERVER;
  // As cursor-agent does: the entry of that name in .cursor/mcp.json, else ~/.cursor/mcp.json.
  const fromConfig = process.env.FAKE_AGENT_MCP_CONFIG_SERVER;
  const { createLineFramer } = await loadEvents();
  const entry =
    fromConfig === undefined
      ? undefined
      : (await import("./client-config-reader.js"))
          .readClientServers("cursor", { home: homedir(), cwd: process.cwd(), env: process.env })
          .find((server) => server.name === fromConfig);
  if (fromConfig !== undefined && entry === undefined) {
    throw new Error(`no MCP server ${JSON.stringify(fromConfig)} in Cursor's mcp.json`);
  }
  const [command, ...args] = entry
    ? [entry.command, ...entry.args]
    : configured
      ? (JSON.parse(configured) as string[])
      : [process.execPath, fakeMcpServerBin];
  const server = spawn(command!, args, {
    stdio: ["pipe", "pipe", "inherit"],
    env: { ...process.env, ...entry?.env },
  });
  const exited = new Promise<void>((resolve) => server.once("close", () => resolve()));
  const waiting = new Map<number, (message: Record<string, unknown>) => void>();
  const framer = createLineFramer({ parseCap: Number.MAX_SAFE_INTEGER });
  server.stdout.on("data", (chunk: Buffer) => {
    for (const event of framer.push(chunk)) {
      if (event.kind !== "json") continue;
      const message = event.data as Record<string, unknown>;
      const answer = typeof message.id === "number" ? waiting.get(message.id) : undefined;
      if (answer) {
        waiting.delete(message.id as number);
        answer(message);
      }
    }
  });
  let nextId = 1;
  const send = (message: Record<string, unknown>): void => {
    server.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  };
  return {
    request(method, params) {
      const id = nextId++;
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        send({ id, method, params });
      });
    },
    notify(method) {
      send({ method });
    },
    async close() {
      server.stdin.end();
      await Promise.race([exited, sleep(10_000)]);
    },
  };
}

/** The `mcpToolCall` result cursor-agent reports for an MCP answer. */
function mcpResult(answer: Record<string, unknown>): Record<string, unknown> {
  const error = answer.error as { message?: string } | undefined;
  if (error) return { error: { error: error.message ?? "MCP error" } };
  const result = (answer.result ?? {}) as {
    content?: Array<Record<string, unknown>>;
    isError?: boolean;
  };
  const content = (result.content ?? []).map((part) =>
    part.type === "text" ? { text: { text: part.text } } : part,
  );
  return { success: { content, isError: result.isError === true } };
}

async function mcpCall(step: Extract<Step, { type: "mcpCall" }>, io: StepIo): Promise<void> {
  await emit(io, step.started, "\n");
  const server = await startMcpServer();
  await server.request("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "fake-cursor-agent", version: "1" },
  });
  server.notify("notifications/initialized");
  const answer = await server.request("tools/call", { name: step.tool, arguments: step.arguments });
  const completed = structuredClone(step.completed) as {
    tool_call?: Record<string, { result?: unknown }>;
  };
  for (const call of Object.values(completed.tool_call ?? {})) call.result = mcpResult(answer);
  await emit(io, completed, "\n");
  await server.close();
}

/** Run a scenario's steps. Resolves when the last step is done (a `silence` never resolves). */
export async function runSteps(steps: readonly Step[], io: StepIo): Promise<number> {
  for (const step of steps) {
    switch (step.type) {
      case "line":
        await emit(io, step.value, step.eol ?? "\n");
        break;
      case "bytes":
        await write(
          step.stream === "stderr" ? process.stderr : process.stdout,
          Buffer.from(step.base64, "base64"),
        );
        break;
      case "stderr":
        await write(process.stderr, `${step.text}\n`);
        break;
      case "sleep":
        await sleep(step.ms);
        break;
      case "waitForFile":
        // The test's own time limit ends a wait for a file that never comes.
        while (!existsSync(step.path)) await sleep(10);
        break;
      case "silence":
        setInterval(() => {}, 1 << 30);
        await new Promise(() => {});
        break;
      case "exit":
        return step.code;
      case "ignoreSigterm":
        process.on("SIGTERM", () => {});
        break;
      case "spawn":
        await spawnDescendant(step, io);
        break;
      case "flood":
        await flood(step);
        break;
      case "replay":
        await replay(step.path, step.speed ?? 1);
        break;
      case "spin":
        await spin(step.ms, step.untilFile);
        break;
      case "read":
        await readBytes(step.ms, step.untilFile);
        break;
      case "background":
        await background(step, io);
        break;
      case "mcpCall":
        await mcpCall(step, io);
        break;
      default: {
        const unknown: never = step;
        throw new Error(`unknown step ${JSON.stringify(unknown)}`);
      }
    }
  }
  return 0;
}

/** Append one JSON record to a file (one small append: atomic enough for test records). */
export function appendRecord(file: string, record: Record<string, unknown>): void {
  appendFileSync(file, `${JSON.stringify(record)}\n`);
}
