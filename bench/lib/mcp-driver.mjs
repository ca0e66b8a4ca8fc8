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
  const waiting = new Map();
  // The start of the line being received (its id is near the start), and whether it is done.
  let head = "";
  child.stdout.on("data", (chunk) => {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      if (head.length < 64) head += chunk.toString("latin1", start, Math.min(newline, start + 64));
      const id = /"id":(\d+)/.exec(head)?.[1];
      head = "";
      start = newline + 1;
      const resolve = id === undefined ? undefined : waiting.get(Number(id));
      if (resolve) {
        waiting.delete(Number(id));
        resolve(performance.now());
      }
    }
    if (head.length < 64 && start < chunk.length) {
      head += chunk.toString("latin1", start, Math.min(chunk.length, start + 64));
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
    /** Sequential round trips: one request at a time (`ping`, or `call`); µs each. */
    async roundTrips(count, call = { method: "ping", params: {} }) {
      const samples = [];
      for (let index = 0; index < count; index += 1) {
        const sent = performance.now();
        const answered = await request(nextId++, call.method, call.params);
        samples.push((answered - sent) * 1000);
      }
      return samples;
    },
    /**
     * `count` requests with `window` of them in flight at all times (each answer sends the
     * next); resolves with the elapsed ms, each request's round trip (µs) and the peak RSS of
     * `rssPid`.
     */
    async concurrent(count, window, call, rssPid) {
      const samples = [];
      let peak = 0;
      const sampler = setInterval(() => {
        try {
          if (rssPid) peak = Math.max(peak, peakRss(rssPid));
        } catch {}
      }, 10);
      const started = performance.now();
      let sent = 0;
      const one = async () => {
        while (sent < count) {
          sent += 1;
          const at = performance.now();
          const answered = await request(nextId++, call.method, call.params);
          samples.push((answered - at) * 1000);
        }
      };
      await Promise.all(Array.from({ length: window }, one));
      const elapsed = performance.now() - started;
      clearInterval(sampler);
      if (rssPid) peak = Math.max(peak, peakRss(rssPid));
      return { elapsed, samples, peak };
    },
    /**
     * `count` requests (pings, unless `call` names another method and its params) written at
     * once; resolves with the time until every answer came, ms, and the proxy's peak RSS.
     */
    async pipelined(count, rssPid, call = { method: "ping" }) {
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
        lines.push(`${JSON.stringify({ jsonrpc: "2.0", id, ...call })}\n`);
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
