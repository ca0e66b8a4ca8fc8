#!/usr/bin/env node
// @ts-check
// Instructions instead of CPU time: `cursor-wrap -p` and the minimal loop on the real-shaped
// stream, each counted by valgrind (callgrind's instruction count, user space only) with V8 made
// deterministic (`node --predictable`). On a shared machine CPU time moves by a fifth from one
// run to the next; this count moves by less than a thousandth between two runs of the same
// build, so a change of one percent shows. It is not the P1 ratio (CPU time also counts the
// kernel's work, V8's helper threads and the cost of memory traffic), only the instrument to
// compare two builds, or to find what a part of the per-event path costs by turning it off.
//
//   node bench/instructions.mjs                        # this build against the minimal loop
//   BENCH_CLI_B=../other/apps/cursor-wrap/bin/cursor-wrap.js node bench/instructions.mjs
//   BENCH_STREAM_MB=20 BENCH_ARGS=--no-redact node bench/instructions.mjs
//
// Needs valgrind (Debian: `apt-get install valgrind`); not part of `pnpm bench`. About two
// minutes for 20 MB (two runs at a time).

import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import {
  callgrindNode,
  instructionsIn,
  NO_COMPILE_CACHE,
  requireValgrind,
} from "./lib/callgrind.mjs";
import { writeRealShapedStream } from "./lib/real-stream.mjs";
import { quietRunArgs, writeCatAgent } from "./lib/wrapped-run.mjs";

const ROOT = resolve(import.meta.dirname, "..");
const MINIMAL_LOOP = join(import.meta.dirname, "lib", "minimal-loop.mjs");
const run = promisify(execFile);

/** Instructions valgrind counted for `node --predictable <args…>` (the node process alone). */
async function instructions(args) {
  const [valgrind, prefix] = callgrindNode();
  const { stderr } = await run(valgrind, [...prefix, ...args], {
    maxBuffer: 1 << 26,
    env: { ...process.env, ...NO_COMPILE_CACHE },
  });
  return instructionsIn(stderr, "valgrind's output");
}

requireValgrind();
const work = mkdtempSync(join(tmpdir(), "cursor-wrap-instructions-"));
try {
  const streamBytes = Number(process.env.BENCH_STREAM_MB ?? 20) * 1e6;
  const agents = {};
  for (const [name, bytes] of [
    ["stream", streamBytes],
    ["empty", 0],
  ]) {
    const file = join(work, `${name}.jsonl`);
    const written = writeRealShapedStream(file, { bytes });
    agents[name] = { agent: writeCatAgent(join(work, `${name}.sh`), file), written };
  }
  const extra = (process.env.BENCH_ARGS ?? "").split(" ").filter(Boolean);
  const clis = { A: join(ROOT, "apps", "cursor-wrap", "bin", "cursor-wrap.js") };
  if (process.env.BENCH_CLI) clis.A = resolve(process.env.BENCH_CLI);
  if (process.env.BENCH_CLI_B) clis.B = resolve(process.env.BENCH_CLI_B);
  let next = 0;
  const fresh = (name) => {
    next += 1;
    return join(work, `${name}-${next}`);
  };
  const wrapped = (cli, agent) => {
    const logs = fresh("logs");
    mkdirSync(logs);
    return quietRunArgs(cli, agent, logs, ...extra);
  };
  const minimal = (agent) => [MINIMAL_LOOP, fresh("minimal.log"), agent];
  const jobs = [
    ["minimal", "stream", minimal(agents.stream.agent)],
    ["minimal", "empty", minimal(agents.empty.agent)],
  ];
  for (const [name, cli] of Object.entries(clis)) {
    jobs.push([name, "stream", wrapped(cli, agents.stream.agent)]);
    jobs.push([name, "empty", wrapped(cli, agents.empty.agent)]);
  }
  // Two at a time (the machines have two cores); the count does not depend on the load.
  const counts = {};
  for (let index = 0; index < jobs.length; index += 2) {
    const pair = jobs.slice(index, index + 2);
    const results = await Promise.all(pair.map(([, , args]) => instructions(args)));
    pair.forEach(([name, stream], at) => {
      counts[name] ??= {};
      counts[name][stream] = results[at];
    });
  }
  const { written } = agents.stream;
  const millions = (count) => `${(count / 1e6).toFixed(0)}M`;
  process.stdout.write(
    `stream: ${(written.bytes / 1e6).toFixed(0)} MB, ${written.events} events (node ${process.version}${extra.length ? `, cursor-wrap ${extra.join(" ")}` : ""})\n`,
  );
  const perStream = (name) => counts[name].stream - counts[name].empty;
  for (const name of Object.keys(counts)) {
    const part = perStream(name);
    const ratio =
      name === "minimal"
        ? ""
        : `; stream part ${(part / perStream("minimal")).toFixed(3)}× the minimal loop's`;
    process.stdout.write(
      `${name}: ${millions(counts[name].stream)} instructions, start-up ${millions(counts[name].empty)}, stream part ${millions(part)} (${(part / written.events).toFixed(0)} per event)${ratio}\n`,
    );
  }
  if (counts.B) {
    process.stdout.write(`B/A, stream part: ${(perStream("B") / perStream("A")).toFixed(4)}\n`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
