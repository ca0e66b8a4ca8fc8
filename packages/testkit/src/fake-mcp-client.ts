#!/usr/bin/env node
// A stand-in MCP client (Claude Code, Cursor, VS Code, …) for tests of what rewrites client
// configs: it reads its config the way the client does (client-config-reader.ts), starts each
// stdio server through the official TypeScript SDK's stdio transport, calls one tool on each,
// then another, and writes what happened as JSON. Options (arguments):
//   --client <name>     the client it plays (cursor, claude-code, claude-desktop, vscode, windsurf, zed)
//   --report <file>     where the report goes (JSON)
//   --call <tool>       the first tool to call on each server (default: hang)
//   --next <tool>       the tool to call after it, with { text: "still here" } (default: echo)
//   --stay              after the report, wait until a signal ends the process
//   --exit <code>       the exit code when done (default 0)
// It prints `fake-mcp-client: done` on stdout once the report is written.

import { writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type FakeClientName, readClientServers } from "./client-config-reader.js";

const argv = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const index = argv.indexOf(name);
  return index === -1 ? undefined : argv[index + 1];
};

/** What happened with one server. */
interface ServerReport {
  name: string;
  command: string;
  args: string[];
  skipped?: string;
  /** The first call's error (the watchdog's answer to a hung call), or its result. */
  call?: { error?: { code: unknown; message: string }; result?: unknown };
  /** The second call's result: the client went on. */
  next?: { error?: { code: unknown; message: string }; result?: unknown };
}

async function callOnce(client: Client, name: string, args: Record<string, unknown>) {
  try {
    return { result: await client.callTool({ name, arguments: args }) };
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: string };
    return { error: { code, message: message ?? String(error) } };
  }
}

async function main(): Promise<number> {
  const clientName = (option("--client") ?? "cursor") as FakeClientName;
  const servers = readClientServers(clientName, {
    home: homedir(),
    cwd: process.cwd(),
    env: process.env,
  });
  const reports: ServerReport[] = [];
  for (const server of servers) {
    const report: ServerReport = { name: server.name, command: server.command, args: server.args };
    reports.push(report);
    if (server.skip !== undefined) {
      report.skipped = server.skip;
      continue;
    }
    // Like Claude Code and Cursor: the server gets the client's environment and its own `env`.
    const transport = new StdioClientTransport({
      command: server.command,
      args: server.args,
      env: { ...(process.env as Record<string, string>), ...server.env },
      stderr: "inherit",
    });
    const client = new Client({ name: `fake-${clientName}`, version: "1.0.0" });
    await client.connect(transport);
    report.call = await callOnce(client, option("--call") ?? "hang", {});
    report.next = await callOnce(client, option("--next") ?? "echo", { text: "still here" });
    await client.close();
  }
  const file = option("--report");
  if (file !== undefined)
    writeFileSync(file, JSON.stringify({ client: clientName, pid: process.pid, servers: reports }));
  process.stdout.write("fake-mcp-client: done\n");
  if (argv.includes("--stay")) {
    setInterval(() => {}, 1 << 30);
    await new Promise(() => {});
  }
  return Number(option("--exit") ?? 0);
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`fake-mcp-client: ${error instanceof Error ? error.message : error}\n`);
    process.exit(70);
  },
);
