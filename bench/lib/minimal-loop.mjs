#!/usr/bin/env node
// @ts-check
// The least a Node wrapper of the agent can do, the yardstick of the throughput ratio: spawn the
// agent, split its output into lines, JSON.parse each, write each chunk to a log with one
// writeSync, forward the chunk to stdout. Usage: minimal-loop.mjs <log file> <agent> [args…]

import { spawn } from "node:child_process";
import { closeSync, openSync, writeSync } from "node:fs";

const [logFile, agent, ...args] = process.argv.slice(2);
if (!logFile || !agent) throw new Error("usage: minimal-loop.mjs <log file> <agent> [args…]");
const log = openSync(logFile, "w");
const child = spawn(agent, args, { stdio: ["ignore", "pipe", "inherit"] });
let pending = "";
let parsed = 0;
child.stdout.on("data", (chunk) => {
  const text = pending + chunk.toString("utf8");
  let start = 0;
  let newline = text.indexOf("\n", start);
  while (newline !== -1) {
    if (newline > start) {
      JSON.parse(text.slice(start, newline));
      parsed += 1;
    }
    start = newline + 1;
    newline = text.indexOf("\n", start);
  }
  pending = text.slice(start);
  writeSync(log, chunk);
  writeSync(1, chunk);
});
child.on("exit", (code) => {
  closeSync(log);
  process.stderr.write(`${parsed} lines\n`);
  process.exitCode = code ?? 1;
});
