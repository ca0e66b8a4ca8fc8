// Round trip of the session log's vocabulary: every record a run writes is one the table of
// @cursor-wrap/run (`log-records.ts`) knows, and `logs show` and `replay` handle each as the
// table says.

import { readFileSync } from "node:fs";
import { isKnownRecord, RECORDS, type RecordName } from "@cursor-wrap/run";
import { describe, expect, it } from "vitest";
import { OPERATION_RECORDS } from "../src/operations/operation-records.js";
import { checkNoSurvivorsAfterAll, FAST, logFiles, run } from "./harness.js";
import { runInProcess } from "./in-process.js";

checkNoSurvivorsAfterAll();

/** Runs that between them write every kind of decision. */
const RUNS: Array<{ args: string[]; scenario: string; alone?: true }> = [
  { args: ["-p", "x"], scenario: "tools" },
  {
    args: ["-p", "x", "--prompt-after-hang", "go on", "--max-hang-retries", "1"],
    scenario: "idle-hang",
  },
  { args: ["-p", "x"], scenario: "tool-hang:200" },
  { args: ["-p", "x"], scenario: "linger" },
  { args: ["-p", "x", "--max-turn-duration", "400ms"], scenario: "long-tool" },
  { args: ["-p", "x", "--max-retries", "0"], scenario: "abnormal" },
  // Recovery: a transient failure retried after a backoff, then the account of the attempts.
  { args: ["-p", "x", "--retry-backoff", "100ms"], scenario: "overloaded:1" },
  { args: ["-p", "x", "-m", "gpt-5", "--fallback-model", "auto"], scenario: "protocol:2.0" },
  { args: ["-p", "x"], scenario: "unauthenticated" },
  { args: ["-p", "x", "--output-format", "text"], scenario: "garbage" },
  // Seen working only while its CPU shows: on its own, not beside the others.
  { args: ["-p", "x"], scenario: "busy-silent:1500", alone: true },
  { args: ["-p", "x"], scenario: "background-wait:1000" },
];

const messagesOf = (file: string): string[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => String((JSON.parse(line) as { msg: unknown }).msg));

describe("the session log's vocabulary", () => {
  it("is written, shown and replayed as the record table says", { timeout: 240_000 }, async () => {
    const written = new Set<string>();
    const check = async ({ args, scenario }: (typeof RUNS)[number]): Promise<void> => {
      const result = await run([...args, ...FAST], { scenario });
      const [file] = logFiles(result);
      expect(file).toBeDefined();
      const messages = messagesOf(file!);
      for (const message of messages) written.add(message);

      // Every record is known to the table (or written by the logger or supervisor themselves,
      // or by the CLI's report, trace and notifications).
      const operations: ReadonlySet<string> = new Set(OPERATION_RECORDS);
      expect(
        messages.filter((message) => !isKnownRecord(message) && !operations.has(message)),
      ).toEqual([]);

      // `logs show` renders each turn, verdict, retry and turn end the log holds.
      // `logs show` and `replay` are read in-process: what they print is all they do.
      const shown = (await runInProcess(["logs", "show", file!])).stdout.toString();
      const count = (name: RecordName) => messages.filter((message) => message === name).length;
      expect(shown.split("── turn ").length - 1).toBe(count("agent_spawn"));
      if (count("hang_detected") > 0) expect(shown).toContain("Hang detected");
      if (count("linger_detected") > 0) expect(shown).toContain("did not exit");
      if (count("budget_exceeded") > 0) expect(shown).toContain("Turn budget exceeded");
      if (count("retry") > 0) {
        // A hang's retry names the prompt it resumes with; any other says what it did.
        expect(shown).toMatch(/Retrying \(1\/1\)|↻ (overloaded|unsupported protocol)/);
        expect(shown).not.toContain("reason not recorded");
      }

      // `replay` finds every turn and lists every decision the table marks for it.
      const replay = JSON.parse(
        (await runInProcess(["replay", file!, "--json"])).stdout.toString(),
      ) as Array<{
        recorded: Array<{ message: string }>;
      }>;
      expect(replay).toHaveLength(count("agent_spawn"));
      const decided = messages.filter(
        (message) =>
          Object.hasOwn(RECORDS, message) && RECORDS[message as RecordName].replay === "decided",
      );
      expect(
        replay.flatMap((turn) => turn.recorded.map((item) => item.message.split(":")[0])),
      ).toEqual(decided);
    };
    // A few runs at a time: each is mostly a process waiting on its scenario's pauses.
    const together = RUNS.filter((entry) => !entry.alone);
    for (let start = 0; start < together.length; start += 4) {
      await Promise.all(together.slice(start, start + 4).map(check));
    }
    for (const entry of RUNS.filter((item) => item.alone)) await check(entry);
    // The runs above cover every record a turn can decide.
    for (const name of [
      "hang_detected",
      "linger_detected",
      "budget_exceeded",
      "retry",
      "stall_warning",
      "agent_killed",
      "agent_failure",
      "abnormal_exit",
      "tool_call_opened",
      "liveness_sample",
      "quiet_but_working",
      "background_work_started",
      "background_work_ended",
      "tool_call_closed",
      "result_received",
      "turn_end",
      "wait_ended",
      "attempts_summary",
      "protocol_version",
    ]) {
      expect([...written]).toContain(name);
    }
  });
});
