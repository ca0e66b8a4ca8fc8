// @ts-check
// Drives an MCP server on stdio (directly, or through `cursor-wrap mcp proxy`) with raw
// newline-delimited JSON-RPC, for the P7 measurements: round-trip latency, pipelined
// throughput, start-up time and the proxy's peak memory.

import { spawn } from "node:child_process";
import { peakRss } from "./measure.mjs";

/**
 * Start `command args` and talk to it. Resolves once `initialize` is answered, with the time
 * that took (spawn → answer).
 */
export async function openServer(command, args, { env = {} } = {}) {
  const started = performance.now();
  const child = spawn(command, args, {
    stdio: ["pipe", "pipe", "ignore"],
    env: { ...process.env, ...env },
  });
  let pending = "";
  const waiting = new Map();
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    pending += chunk;
    for (let newline = pending.indexOf("\n"); newline !== -1; newline = pending.indexOf("\n")) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      const id = /"id":(\d+)/.exec(line)?.[1];
      const resolve = id === undefined ? undefined : waiting.get(Number(id));
      if (resolve) {
        waiting.delete(Number(id));
        resolve(performance.now());
      }
    }
  });
  const request = (id, method, params = {}) =>
    new Promise((resolve) => {
      waiting.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  await request(0, "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "bench", version: "1" },
  });
  const startupMs = performance.now() - started;
  child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  let nextId = 1;
  return {
    child,
    startupMs,
    /** Sequential round trips: one `ping` at a time; µs each. */
    async roundTrips(count) {
      const samples = [];
      for (let index = 0; index < count; index += 1) {
        const sent = performance.now();
        const answered = await request(nextId++, "ping");
        samples.push((answered - sent) * 1000);
      }
      return samples;
    },
    /** `count` pings written at once; resolves with the time until every answer came, ms, and the proxy's peak RSS. */
    async pipelined(count, rssPid) {
      const first = nextId;
      nextId += count;
      const answers = [];
      let peak = 0;
      const sampler = setInterval(() => {
        try {
          if (rssPid) peak = Math.max(peak, peakRss(rssPid));
        } catch {}
      }, 10);
      const started = performance.now();
      const lines = [];
      for (let id = first; id < first + count; id += 1) {
        answers.push(new Promise((resolve) => waiting.set(id, resolve)));
        lines.push(`${JSON.stringify({ jsonrpc: "2.0", id, method: "ping" })}\n`);
      }
      child.stdin.write(lines.join(""));
      await Promise.all(answers);
      const elapsed = performance.now() - started;
      clearInterval(sampler);
      if (rssPid) peak = Math.max(peak, peakRss(rssPid));
      return { elapsed, peak };
    },
    async close() {
      child.stdin.end();
      await new Promise((resolve) => child.once("exit", resolve));
    },
  };
}
