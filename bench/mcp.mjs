#!/usr/bin/env node
// @ts-check
// P7 under realistic traffic: `tools/call` with arguments (a tool call as an editor sends it:
// a name, a few hundred bytes of arguments, a progress token) answered with their text, every
// message logged by the proxy. Sequential round trips and a steady 64 in flight, directly
// and through `cursor-wrap mcp proxy`, as shipped (optimizing compiler off) and with the
// optimizing compiler on (bench/lib/mcp-proxy-optimizing.mjs), in alternating rounds; the rate,
// the added latency, the proxy's CPU per message in flight and its peak RSS.
// Then the shipped proxy once under a longer load (BENCH_MCP_SUSTAINED requests, default
// 400 000; 0: none): V8's first full collections come only after some seconds of it.
// Run alone (`node bench/mcp.mjs`, BENCH_ROUNDS) or from run.mjs.

import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { openServer } from "./lib/mcp-driver.mjs";
import { mcpToolCall as toolCall } from "./lib/mcp-traffic.mjs";
import { cpuTimeMs, percentile, summary } from "./lib/measure.mjs";

const ROOT = resolve(import.meta.dirname, "..");
const OPTIMIZING = fileURLToPath(new URL("./lib/mcp-proxy-optimizing.mjs", import.meta.url));

/** Round trips of one connection: sequential, then 64 in flight. */
async function measure(command, args, { sequential, concurrent, window }) {
  const server = await openServer(command, args);
  const pid = server.child.pid;
  await server.roundTrips(300, toolCall(0)); // warm-up
  let index = 0;
  const seq = [];
  const seqStarted = performance.now();
  for (let count = 0; count < sequential; count += 1) {
    seq.push(...(await server.roundTrips(1, toolCall(index++))));
  }
  const seqElapsed = performance.now() - seqStarted;
  const call = toolCall(index);
  // The process's own CPU per message in flight (the proxy's, or the server's directly): on a
  // shared machine it moves far less from round to round than the rate does.
  const cpuBefore = cpuTimeMs(pid);
  const conc = await server.concurrent(concurrent, window, call, pid);
  const cpuMs = cpuTimeMs(pid) - cpuBefore;
  await server.close();
  return {
    sequential: seq,
    sequentialRate: (sequential * 2 * 1000) / seqElapsed,
    concurrent: conc.samples,
    concurrentRate: (concurrent * 2 * 1000) / conc.elapsed,
    peak: conc.peak,
    cpuPerMessageUs: (cpuMs * 1000) / (concurrent * 2),
  };
}

/**
 * @param {{ cli?: string, rounds?: number, sequential?: number, concurrent?: number, window?: number, sustained?: number }} [options]
 */
export async function mcpRealistic({
  cli = join(ROOT, "apps", "cursor-wrap", "bin", "cursor-wrap.js"),
  rounds = 5,
  sequential = 3_000,
  concurrent = 40_000,
  window = 64,
  sustained = 400_000,
} = {}) {
  const { fakeMcpServerBin } = await import("@cursor-wrap/testkit");
  const work = mkdtempSync(join(tmpdir(), "cursor-wrap-mcp-"));
  const server = [process.execPath, fakeMcpServerBin];
  const proxy = (dir) => [
    "mcp",
    "proxy",
    "--server-id",
    "bench",
    "--log-dir",
    dir,
    "--",
    ...server,
  ];
  const variants = {
    direct: () => [process.execPath, [fakeMcpServerBin]],
    shipped: (dir) => [process.execPath, [cli, ...proxy(dir)]],
    optimizing: (dir) => [process.execPath, [OPTIMIZING, cli, ...proxy(dir)]],
  };
  const results = { direct: [], shipped: [], optimizing: [] };
  const loads = [];
  /** @type {{ requests: number, peak: number, rate: number } | undefined} */
  let sustainedReport;
  try {
    for (let round = 0; round < rounds; round += 1) {
      loads.push(loadavg()[0].toFixed(2));
      const names = Object.keys(variants);
      const order = round % 2 === 0 ? names : [...names].reverse();
      for (const name of order) {
        const [command, args] = variants[name](join(work, `${name}-${round}`));
        results[name].push(await measure(command, args, { sequential, concurrent, window }));
      }
    }
    // The proxy as shipped under a longer load: V8's first full collections come only after
    // some seconds of it, and raise the peak (the rounds above end before them).
    if (sustained > 0) {
      const [command, args] = variants.shipped(join(work, "sustained"));
      const run = await measure(command, args, { sequential: 0, concurrent: sustained, window });
      sustainedReport = { requests: sustained, peak: run.peak, rate: run.concurrentRate };
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const all = (name, key) => results[name].flatMap((run) => run[key]);
  const report = {};
  for (const name of ["shipped", "optimizing"]) {
    const added = (key, q) =>
      (percentile(all(name, key), q) - percentile(all("direct", key), q)) / 1000;
    report[name] = {
      sequentialAddedP50: added("sequential", 50),
      sequentialAddedP99: added("sequential", 99),
      concurrentAddedP50: added("concurrent", 50),
      concurrentAddedP99: added("concurrent", 99),
      sequentialRate: summary(results[name].map((run) => run.sequentialRate)),
      concurrentRate: summary(results[name].map((run) => run.concurrentRate)),
      peak: summary(results[name].map((run) => run.peak)),
      cpuPerMessageUs: summary(results[name].map((run) => run.cpuPerMessageUs)),
    };
  }
  report.direct = {
    sequentialP99: percentile(all("direct", "sequential"), 99) / 1000,
    concurrentRate: summary(results.direct.map((run) => run.concurrentRate)),
    sequentialRate: summary(results.direct.map((run) => run.sequentialRate)),
  };
  return { rounds, sequential, concurrent, window, loads, report, sustained: sustainedReport };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const outcome = await mcpRealistic({
    cli: process.env.BENCH_CLI ? resolve(process.env.BENCH_CLI) : undefined,
    rounds: Number(process.env.BENCH_ROUNDS ?? 5),
    sustained: Number(process.env.BENCH_MCP_SUSTAINED ?? 400_000),
  });
  const k = (s) =>
    `${(s.median / 1000).toFixed(0)}k (${(s.min / 1000).toFixed(0)}k–${(s.max / 1000).toFixed(0)}k)`;
  const mib = (s) =>
    `${(s.median / 2 ** 20).toFixed(0)} MiB (${(s.min / 2 ** 20).toFixed(0)}–${(s.max / 2 ** 20).toFixed(0)}; ${(s.max / 1e6).toFixed(0)} MB max)`;
  const us = (s) => `${s.median.toFixed(1)} µs (${s.min.toFixed(1)}–${s.max.toFixed(1)})`;
  const { report } = outcome;
  // BENCH_ROUNDS=0: the sustained run alone, no rounds to report.
  if (outcome.rounds > 0) {
    process.stdout.write(
      `${outcome.rounds} rounds × (${outcome.sequential} sequential tools/call round trips, ${outcome.concurrent} with ${outcome.window} in flight); load ${outcome.loads.join(" ")}\n` +
        `direct: sequential ${k(report.direct.sequentialRate)} msg/s (p99 ${report.direct.sequentialP99.toFixed(3)} ms), concurrent ${k(report.direct.concurrentRate)} msg/s\n`,
    );
    for (const name of ["shipped", "optimizing"]) {
      const r = report[name];
      process.stdout.write(
        `${name}: sequential ${k(r.sequentialRate)} msg/s, added p50 +${r.sequentialAddedP50.toFixed(3)} ms p99 +${r.sequentialAddedP99.toFixed(3)} ms per round trip; concurrent ${k(r.concurrentRate)} msg/s, added p50 +${r.concurrentAddedP50.toFixed(3)} ms p99 +${r.concurrentAddedP99.toFixed(3)} ms; proxy CPU ${us(r.cpuPerMessageUs)} per message; peak RSS ${mib(r.peak)}\n`,
      );
    }
  }
  if (outcome.sustained) {
    const { requests, peak, rate } = outcome.sustained;
    process.stdout.write(
      `shipped, sustained (${requests} with ${outcome.window} in flight, one run): ${(rate / 1000).toFixed(0)}k msg/s; peak RSS ${(peak / 2 ** 20).toFixed(0)} MiB (${(peak / 1e6).toFixed(0)} MB)\n`,
    );
  }
}
