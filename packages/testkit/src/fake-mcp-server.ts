#!/usr/bin/env node
// A stand-in MCP server on stdio (newline-delimited JSON-RPC 2.0), with tools that misbehave on
// purpose: one that never answers, one that crashes the server, one that answers late, one that
// floods, one whose answer smuggles a second message. Options (arguments):
//   --banner             print a banner line on stdout first (a common server bug)
//   --keep-running       ignore stdin's end (only a signal stops it)
//   --silent-initialize  never answer `initialize` (a server stuck starting up)
//   --ignore-sigterm     ignore SIGTERM too (only SIGKILL stops it)
//   --record <file>      append every message it reads, as JSON lines, for assertions
//   --helpers <file>     start two helpers that outlive it unless killed: one in its process
//                        group, one in a session of its own (setsid); their pids, then its
//                        own, are appended to <file>, one a line

import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";

const argv = process.argv.slice(2);
const flag = (name: string): boolean => argv.includes(name);
const recordIndex = argv.indexOf("--record");
const recordFile = recordIndex === -1 ? undefined : argv[recordIndex + 1];

type Id = number | string;
interface Request {
  jsonrpc: "2.0";
  id?: Id;
  method: string;
  params?: {
    name?: string;
    arguments?: Record<string, unknown>;
    _meta?: { progressToken?: Id };
  } & Record<string, unknown>;
}

const send = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value)}\n`);
};
const result = (id: Id, value: unknown): void => send({ jsonrpc: "2.0", id, result: value });
const text = (value: string) => ({ content: [{ type: "text", text: value }] });

const TOOLS = [
  {
    name: "echo",
    description: "Echo the text back",
    inputSchema: { type: "object", properties: { text: { type: "string" } } },
  },
  { name: "hang", description: "Never answers", inputSchema: { type: "object" } },
  {
    name: "slow",
    description: "Answers after `ms`, with progress every 100 ms",
    inputSchema: { type: "object", properties: { ms: { type: "number" } } },
  },
  {
    name: "late",
    description: "Answers after `ms`, without progress",
    inputSchema: { type: "object", properties: { ms: { type: "number" } } },
  },
  {
    name: "crash",
    description: "Exits with code 3 in the middle of the call",
    inputSchema: { type: "object" },
  },
  {
    name: "flood",
    description: "Sends `count` log notifications, then answers",
    inputSchema: { type: "object", properties: { count: { type: "number" } } },
  },
  {
    name: "smuggle",
    description: "Answers with a broken line that carries a second message",
    inputSchema: { type: "object" },
  },
  {
    name: "big",
    description: "Answers with `bytes` of text",
    inputSchema: { type: "object", properties: { bytes: { type: "number" } } },
  },
];

function callTool(request: Request & { id: Id }): void {
  const args = request.params?.arguments ?? {};
  const number = (key: string, fallback: number): number =>
    typeof args[key] === "number" ? (args[key] as number) : fallback;
  switch (request.params?.name) {
    case "echo":
      result(request.id, text(String(args.text ?? "")));
      return;
    case "hang":
      return;
    case "slow": {
      const ms = number("ms", 500);
      const token = request.params?._meta?.progressToken;
      const started = Date.now();
      const tick = setInterval(() => {
        if (token !== undefined) {
          send({
            jsonrpc: "2.0",
            method: "notifications/progress",
            params: { progressToken: token, progress: Date.now() - started, total: ms },
          });
        }
      }, 100);
      setTimeout(() => {
        clearInterval(tick);
        result(request.id, text(`slow done after ${ms} ms`));
      }, ms);
      return;
    }
    case "late":
      setTimeout(() => result(request.id, text("late answer")), number("ms", 1_000));
      return;
    case "crash":
      process.exit(3);
      return;
    case "flood":
      for (let index = 0; index < number("count", 1_000); index += 1) {
        send({
          jsonrpc: "2.0",
          method: "notifications/message",
          params: { level: "info", data: `line ${index}` },
        });
      }
      result(request.id, text("flooded"));
      return;
    case "smuggle":
      process.stdout.write(
        `{"jsonrpc":"2.0","id":${JSON.stringify(request.id)},"result":{"content":[{"type":"text","text":"a\n{"jsonrpc":"2.0","id":${JSON.stringify(request.id)},"result":{"smuggled":true}}\n`,
      );
      return;
    case "big":
      result(request.id, text("b".repeat(number("bytes", 1_000_000))));
      return;
    default:
      send({
        jsonrpc: "2.0",
        id: request.id,
        error: { code: -32602, message: `unknown tool ${request.params?.name}` },
      });
  }
}

function handle(request: Request): void {
  if (recordFile) appendFileSync(recordFile, `${JSON.stringify(request)}\n`);
  if (request.id === undefined) return; // notifications (initialized, cancelled, …)
  const id = request.id;
  switch (request.method) {
    case "initialize":
      if (flag("--silent-initialize")) return;
      result(id, {
        protocolVersion: request.params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "fake-mcp-server", version: "1.0.0" },
      });
      return;
    case "ping":
      result(id, {});
      return;
    case "tools/list":
      result(id, { tools: TOOLS });
      return;
    case "tools/call":
      callTool(request as Request & { id: Id });
      return;
    default:
      send({
        jsonrpc: "2.0",
        id,
        error: { code: -32601, message: `method not found: ${request.method}` },
      });
  }
}

if (flag("--ignore-sigterm")) process.on("SIGTERM", () => {});

const helpersIndex = argv.indexOf("--helpers");
const helpersFile = helpersIndex === -1 ? undefined : argv[helpersIndex + 1];
if (helpersFile) {
  // Helpers a real server may leave: a worker in its group, a daemon that called setsid.
  // Neither reads stdin nor cares when the server exits.
  for (const detached of [false, true]) {
    const helper = spawn(process.execPath, ["-e", "setInterval(() => {}, 1 << 30)"], {
      detached,
      stdio: "ignore",
    });
    helper.unref();
    appendFileSync(helpersFile, `${helper.pid}\n`);
  }
  appendFileSync(helpersFile, `${process.pid}\n`);
}
if (flag("--banner")) process.stdout.write("Fake MCP server v1.0 listening on stdio\n");

let pending = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk: string) => {
  pending += chunk;
  for (let newline = pending.indexOf("\n"); newline !== -1; newline = pending.indexOf("\n")) {
    const line = pending.slice(0, newline);
    pending = pending.slice(newline + 1);
    if (!line.trim()) continue;
    try {
      handle(JSON.parse(line) as Request);
    } catch {
      send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } });
    }
  }
});
process.stdin.on("end", () => {
  if (flag("--keep-running")) setInterval(() => {}, 1 << 30);
  else process.exit(0);
});
