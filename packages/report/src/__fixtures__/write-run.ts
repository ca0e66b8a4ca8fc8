import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseLine } from "@cursor-wrap/events";
import { openSessionLog, type RecordTap } from "@cursor-wrap/logger";
import type { RunStep } from "./runs.js";

/** Write a run into a real session log; the tap sees it as it is written. Returns its records. */
export function writeRun(
  steps: readonly RunStep[],
  tap?: RecordTap,
  start = Date.UTC(2026, 10, 22, 12, 0, 0),
): Array<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), "report-run-"));
  try {
    let clock = start;
    // 100 ms between records: durations in the report are then easy to check.
    const log = openSessionLog({
      dir,
      retentionMs: 0,
      fsync: false,
      now: () => clock,
      ...(tap ? { onRecord: tap } : {}),
    });
    for (const step of steps) {
      clock += 100;
      if ("close" in step) log.close(step.close as never);
      else if ("stderr" in step) log.stderrAll([parseLine(`${step.stderr.replace(/\n/g, " ")}\n`)]);
      else log.decision(step.message, step.fields, step.level ?? "info");
    }
    return readFileSync(log.path, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
