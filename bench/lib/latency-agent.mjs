#!/usr/bin/env node
// @ts-check
// A stand-in agent for the latency benchmark: reads its prompt to EOF, then writes
// BENCH_COUNT thinking deltas at BENCH_RATE per second, each carrying the monotonic time it was
// written at (process.hrtime, shared by every process on the machine), then a result.

const rate = Number(process.env.BENCH_RATE ?? 1000);
const count = Number(process.env.BENCH_COUNT ?? 5000);
for await (const _ of process.stdin);

const session = "00000000-0000-4000-8000-0000000000be";
process.stdout.write(
  `${JSON.stringify({ type: "system", subtype: "init", session_id: session, model: "Auto" })}\n`,
);
const started = performance.now();
for (let index = 0; index < count; index += 1) {
  const due = started + (index * 1000) / rate;
  const wait = due - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  process.stdout.write(
    `{"type":"thinking","subtype":"delta","text":"","session_id":"${session}","timestamp_ms":${Date.now()},"sent_ns":"${process.hrtime.bigint()}"}\n`,
  );
}
process.stdout.write(
  `${JSON.stringify({ type: "result", subtype: "success", is_error: false, result: "", session_id: session })}\n`,
);
