#!/usr/bin/env node
// @ts-check
// The cost of the secret checks on clean text, in-process: `redact()` over the lines of the
// real-shaped stream, over real source files (CSS `mask-*`, `task-*`) and over decision records,
// against the earlier, smaller candidate regex
// (the one before the forms of 41de22e were added) as the yardstick. Run alone
// (`node bench/redaction.mjs`) or from run.mjs.

import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { summary } from "./lib/measure.mjs";
import { writeRealShapedStream } from "./lib/real-stream.mjs";
import { realSourceCorpus } from "./lib/stream.mjs";

// The candidate pre-check before the redaction forms were extended (fewer forms, one regex).
const EARLIER =
  /sk-|gh[pousr]_|github_pat_|AKIA|xox[abposr]-|bearer|-----BEGIN|CURSOR_API_KEY|--api-key|--auth-token/i;

/** Texts of three kinds, none holding a secret. */
function cleanTexts() {
  const file = join(tmpdir(), `cursor-wrap-redaction-${process.pid}.jsonl`);
  writeRealShapedStream(file, { bytes: 10_000_000 });
  const lines = readFileSync(file, "latin1").split("\n").filter(Boolean);
  rmSync(file);
  const sources = realSourceCorpus().split("\n");
  const records = [];
  for (let index = 0; index < 20_000; index += 1) {
    records.push(
      `{"level":20,"time":${1_700_000_000_000 + index},"ts":${1_700_000_000_000 + index},"call_id":"toolu_01${index}","kind":"shell","label":"npm test -- --watch=false","timeout_ms":30000,"msg":"tool_call_opened"}\n`,
    );
  }
  return {
    "real-shaped stream lines": lines,
    "real source files, by line": sources,
    "decision records": records,
  };
}

/** CPU time so far, ms (a loaded machine disturbs it less than wall time). */
function cpuMs() {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/** CPU ms of each of `rounds` passes of `check` over every text. */
function time(texts, check, rounds) {
  const passes = [];
  for (let round = 0; round < rounds; round += 1) {
    const started = cpuMs();
    let hits = 0;
    for (const text of texts) if (check(text)) hits += 1;
    passes.push(cpuMs() - started);
    if (hits < 0) throw new Error("unreachable");
  }
  return passes;
}

/** @param {{ rounds?: number }} [options] */
export async function redactionOfCleanText({ rounds = 15 } = {}) {
  const { redact } = await import("@cursor-wrap/logger");
  const rows = [];
  for (const [name, texts] of Object.entries(cleanTexts())) {
    const bytes = texts.reduce((sum, text) => sum + text.length, 0);
    // Warm up all three, then measure them interleaved.
    for (const check of [(t) => EARLIER.test(t), (t) => redact(t) !== t]) time(texts, check, 2);
    const earlier = [];
    const redaction = [];
    for (let round = 0; round < rounds; round += 1) {
      earlier.push(...time(texts, (text) => EARLIER.test(text), 1));
      redaction.push(...time(texts, (text) => redact(text) !== text, 1));
    }
    rows.push({
      name,
      texts: texts.length,
      bytes,
      earlier: summary(earlier),
      redaction: summary(redaction),
    });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await redactionOfCleanText({
    rounds: Number(process.env.BENCH_ROUNDS ?? 15),
  })) {
    const f = (s) => `${s.median.toFixed(1)} ms (${s.min.toFixed(1)}–${s.max.toFixed(1)})`;
    process.stdout.write(
      `${row.name} (${row.texts} texts, ${(row.bytes / 1e6).toFixed(1)} MB): earlier pre-check ${f(row.earlier)}; redact() ${f(row.redaction)} CPU = ${(row.redaction.median / row.earlier.median).toFixed(2)}× the earlier pre-check\n`,
    );
  }
}
