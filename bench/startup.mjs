#!/usr/bin/env node
// @ts-check
// P6 against bare Node: `cursor-wrap -p` on a trivial agent (a shell script printing three
// lines: init, an answer, the result) against `node -e 0`, the agent run by itself, and
// `--version`, in alternating rounds; medians of wall and CPU time (user + sys of the process
// tree). P6 (docs/requirements.md) counts the cost beyond node and the agent; the benchmark's
// row holds it beyond `node -e 0` alone, the agent's own run counted against the wrapper: both
// are reported. Run alone (`node bench/startup.mjs`, BENCH_ROUNDS) or from run.mjs.
//
// BENCH_INSTRUCTIONS=1 also counts the instructions each of the three executes in the Node
// process (all its threads; not the kernel's work, nor the agent's), under valgrind's
// callgrind: the same count on a quiet machine and a loaded one, where wall and CPU times
// are not (a shared 2-core machine spreads them by tens of milliseconds). Each run takes
// seconds under valgrind, so it runs once.

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { writeQuickAgent } from "@cursor-wrap/testkit";
import { summary } from "./lib/measure.mjs";

const ROOT = resolve(import.meta.dirname, "..");

/** Instructions one run of `command` executes in user space, counted by callgrind. */
function instructions(command, args, work) {
  const out = join(work, "callgrind.out");
  const result = spawnSync(
    "valgrind",
    ["--tool=callgrind", `--callgrind-out-file=${out}`, command, ...args],
    { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" },
  );
  rmSync(out, { force: true });
  const refs = /I\s+refs:\s+([\d,]+)/.exec(result.stderr ?? "")?.[1];
  if (result.status !== 0 || refs === undefined) {
    throw new Error(
      `valgrind ${command} ${args.join(" ")}: ${result.error?.message ?? result.stderr}`,
    );
  }
  return Number(refs.replaceAll(",", ""));
}

/** Wall and CPU ms of one run, under GNU time. */
function run(command, args, work) {
  const report = join(work, "time.txt");
  const started = performance.now();
  const result = spawnSync("/usr/bin/time", ["-o", report, "-f", "%U %S", command, ...args], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  const wallMs = performance.now() - started;
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")}: ${result.stderr}`);
  const [user, sys] = readFileSync(report, "utf8").trim().split(/\s+/).map(Number);
  return { wallMs, cpuMs: (user + sys) * 1000 };
}

/**
 * @param {{ cli?: string, rounds?: number, countInstructions?: boolean }} [options]
 */
export function startupOverhead({
  cli = join(ROOT, "apps", "cursor-wrap", "bin", "cursor-wrap.js"),
  rounds = 21,
  countInstructions = false,
} = {}) {
  const work = mkdtempSync(join(tmpdir(), "cursor-wrap-startup-"));
  try {
    const agent = writeQuickAgent(join(work, "agent.sh"));
    const logs = join(work, "logs");
    const bare = [];
    const wrapped = [];
    const version = [];
    const alone = [];
    const loads = [];
    const commandLines = {
      bare: ["-e", "0"],
      wrapped: [cli, "-p", "x", "--agent-bin", agent, "--log-dir", logs, "--log-level", "silent"],
      version: [cli, "--version"],
    };
    const runs = {
      bare: () => bare.push(run(process.execPath, commandLines.bare, work)),
      wrapped: () => wrapped.push(run(process.execPath, commandLines.wrapped, work)),
      version: () => version.push(run(process.execPath, commandLines.version, work)),
      // The agent as the wrapper starts it (its own arguments do not change what it prints).
      alone: () => alone.push(run(agent, ["--print", "--output-format", "stream-json"], work)),
    };
    // One warm-up of each (the file cache), then alternating rounds.
    for (const go of Object.values(runs)) go();
    bare.length = wrapped.length = version.length = alone.length = 0;
    for (let round = 0; round < rounds; round += 1) {
      loads.push(loadavg()[0].toFixed(2));
      const order =
        round % 2 === 0
          ? ["bare", "alone", "wrapped", "version"]
          : ["version", "wrapped", "alone", "bare"];
      for (const name of order) runs[name]();
    }
    const of = (values, key) => summary(values.map((value) => value[key]));
    const counted = countInstructions
      ? Object.fromEntries(
          Object.entries(commandLines).map(([name, args]) => [
            name,
            instructions(process.execPath, args, work),
          ]),
        )
      : undefined;
    return {
      instructions: counted,
      rounds,
      loads,
      bare: { wall: of(bare, "wallMs"), cpu: of(bare, "cpuMs") },
      wrapped: { wall: of(wrapped, "wallMs"), cpu: of(wrapped, "cpuMs") },
      version: { wall: of(version, "wallMs"), cpu: of(version, "cpuMs") },
      agent: { wall: of(alone, "wallMs"), cpu: of(alone, "cpuMs") },
      // Paired differences, round by round.
      overheadWall: summary(wrapped.map((w, index) => w.wallMs - bare[index].wallMs)),
      overheadCpu: summary(wrapped.map((w, index) => w.cpuMs - bare[index].cpuMs)),
      // P6's own measure: beyond node -e 0 plus the agent, round by round.
      beyondBoth: summary(
        wrapped.map((w, index) => w.wallMs - bare[index].wallMs - alone[index].wallMs),
      ),
      versionWall: summary(version.map((v, index) => v.wallMs - bare[index].wallMs)),
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = startupOverhead({
    cli: process.env.BENCH_CLI ? resolve(process.env.BENCH_CLI) : undefined,
    rounds: Number(process.env.BENCH_ROUNDS ?? 21),
    countInstructions: process.env.BENCH_INSTRUCTIONS === "1",
  });
  const f = (s) => `${s.median.toFixed(0)} ms (${s.min.toFixed(0)}–${s.max.toFixed(0)})`;
  const i = r.instructions;
  const m = (count) => `${(count / 1e6).toFixed(0)} M`;
  if (i) {
    process.stdout.write(
      `instructions (callgrind): node -e 0 ${m(i.bare)}; cursor-wrap -p ${m(i.wrapped)} (+${m(i.wrapped - i.bare)}); --version ${m(i.version)} (+${m(i.version - i.bare)})\n`,
    );
  }
  process.stdout.write(
    `${r.rounds} rounds; node -e 0: ${f(r.bare.wall)} wall, ${f(r.bare.cpu)} CPU; the agent alone: ${f(r.agent.wall)} wall; cursor-wrap -p (trivial agent): ${f(r.wrapped.wall)} wall, ${f(r.wrapped.cpu)} CPU; --version: ${f(r.version.wall)} wall\n` +
      `added by cursor-wrap -p, paired: ${f(r.overheadWall)} wall, ${f(r.overheadCpu)} CPU (beyond node -e 0 plus the agent: ${f(r.beyondBoth)} wall); --version beyond node -e 0: ${f(r.versionWall)} wall; load ${r.loads.join(" ")}\n`,
  );
}
