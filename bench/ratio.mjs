#!/usr/bin/env node
// @ts-check
// P1 as a ratio: cursor-wrap -p on the real-shaped stream against the minimal Node loop
// (bench/lib/minimal-loop.mjs), in alternating paired rounds, comparing CPU time (user + sys of
// the whole process tree, which a loaded machine disturbs least) as well as wall time and peak
// RSS. Run alone (`node bench/ratio.mjs`, BENCH_ROUNDS, BENCH_FORMATS=stream-json,json,text,
// BENCH_STREAM_MB) or from run.mjs.

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { summary } from "./lib/measure.mjs";
import { writeRealShapedStream } from "./lib/real-stream.mjs";
import { quietRunArgs, writeCatAgent } from "./lib/wrapped-run.mjs";

const ROOT = resolve(import.meta.dirname, "..");
const MINIMAL_LOOP = join(import.meta.dirname, "lib", "minimal-loop.mjs");

/**
 * Run a command under GNU time; CPU is user + sys of it and every descendant it waited for
 * (the agent's `sh` exec's `cat`, reaped by the wrapper), peak RSS the largest process's.
 */
function timedTree(command, args, work) {
  const report = join(work, "time.txt");
  const result = spawnSync("/usr/bin/time", ["-o", report, "-f", "%e %U %S %M", command, ...args], {
    stdio: ["ignore", "ignore", "pipe"],
    maxBuffer: 1 << 26,
  });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(" ")} exited ${result.status}: ${result.stderr}`);
  const [wall, user, sys, rssKiB] = readFileSync(report, "utf8").trim().split(/\s+/).map(Number);
  return { wallMs: wall * 1000, cpuMs: (user + sys) * 1000, rssMiB: rssKiB / 1024 };
}

/** The 1-minute load average, as `uptime` shows it. */
const load = () => loadavg()[0].toFixed(2);

/**
 * Alternating paired rounds of the minimal loop and cursor-wrap, per output format.
 * @param {{ cli?: string, rounds?: number, formats?: string[], streamBytes?: number, log?: (line: string) => void }} [options]
 */
export function throughputRatio({
  cli = join(ROOT, "apps", "cursor-wrap", "bin", "cursor-wrap.js"),
  rounds = 7,
  formats = ["stream-json", "json", "text"],
  streamBytes = 100_000_000,
  log = (line) => process.stderr.write(`${line}\n`),
} = {}) {
  const work = mkdtempSync(join(tmpdir(), "cursor-wrap-ratio-"));
  try {
    const file = join(work, "real-shaped.jsonl");
    const stream = writeRealShapedStream(file, { bytes: streamBytes });
    const agent = writeCatAgent(join(work, "agent.sh"), file);
    const results = [];
    for (const format of formats) {
      const minimal = [];
      const wrapped = [];
      const loads = [];
      for (let round = 0; round < rounds; round += 1) {
        loads.push(load());
        const logs = join(work, "logs");
        rmSync(logs, { recursive: true, force: true });
        const wrapperRun = () =>
          timedTree(
            process.execPath,
            quietRunArgs(cli, agent, logs, "--output-format", format),
            work,
          );
        const minimalRun = () =>
          timedTree(process.execPath, [MINIMAL_LOOP, join(work, "minimal.log"), agent], work);
        // Alternate which goes first, so a change in the machine's load hits both alike.
        if (round % 2 === 0) {
          minimal.push(minimalRun());
          wrapped.push(wrapperRun());
        } else {
          wrapped.push(wrapperRun());
          minimal.push(minimalRun());
        }
        const m = minimal.at(-1);
        const w = wrapped.at(-1);
        log(
          `${format} round ${round + 1}: minimal ${m.cpuMs.toFixed(0)} ms CPU ${m.wallMs.toFixed(0)} ms wall ${m.rssMiB.toFixed(0)} MiB; cursor-wrap ${w.cpuMs.toFixed(0)} ms CPU ${w.wallMs.toFixed(0)} ms wall ${w.rssMiB.toFixed(0)} MiB; ratio ${(w.cpuMs / m.cpuMs).toFixed(2)} (load ${loads.at(-1)})`,
        );
      }
      const ratios = wrapped.map((w, index) => w.cpuMs / minimal[index].cpuMs);
      const wallRatios = wrapped.map((w, index) => w.wallMs / minimal[index].wallMs);
      results.push({
        format,
        ratio: summary(ratios),
        wallRatio: summary(wallRatios),
        wrappedCpu: summary(wrapped.map((w) => w.cpuMs)),
        wrappedWall: summary(wrapped.map((w) => w.wallMs)),
        minimalCpu: summary(minimal.map((m) => m.cpuMs)),
        minimalWall: summary(minimal.map((m) => m.wallMs)),
        wrappedRss: summary(wrapped.map((w) => w.rssMiB)),
        minimalRss: summary(minimal.map((m) => m.rssMiB)),
        loads,
      });
    }
    return { stream, rounds, results };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const outcome = throughputRatio({
    cli: process.env.BENCH_CLI ? resolve(process.env.BENCH_CLI) : undefined,
    rounds: Number(process.env.BENCH_ROUNDS ?? 7),
    formats: process.env.BENCH_FORMATS?.split(","),
    streamBytes: Number(process.env.BENCH_STREAM_MB ?? 100) * 1e6,
  });
  const { stream } = outcome;
  process.stdout.write(
    `stream: ${(stream.bytes / 1e6).toFixed(0)} MB, ${stream.events} events, ${stream.toolCalls} tool calls; ${outcome.rounds} rounds\n`,
  );
  for (const r of outcome.results) {
    process.stdout.write(
      `${r.format}: CPU ratio ${r.ratio.median.toFixed(2)} (${r.ratio.min.toFixed(2)}–${r.ratio.max.toFixed(2)}); cursor-wrap ${r.wrappedCpu.median.toFixed(0)} ms CPU, ${r.wrappedWall.median.toFixed(0)} ms wall, ${r.wrappedRss.max.toFixed(0)} MiB peak (median ${r.wrappedRss.median.toFixed(0)}); minimal ${r.minimalCpu.median.toFixed(0)} ms CPU, ${r.minimalWall.median.toFixed(0)} ms wall, ${r.minimalRss.median.toFixed(0)} MiB; wall ratio ${r.wallRatio.median.toFixed(2)} (${r.wallRatio.min.toFixed(2)}–${r.wallRatio.max.toFixed(2)}); load ${r.loads.join(" ")}\n`,
    );
  }
}
