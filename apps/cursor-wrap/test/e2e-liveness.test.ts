// Quiet but working (R-MON11), with real processes: an agent that is silent while it burns CPU
// or reads bytes is not hung; a parked one is, at the same moment as before; a cap ends one
// that spins for ever; background work and draining after the result are states of their own.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { realCapture } from "@cursor-wrap/fixtures";
import { isAlive, readPids, type Step } from "@cursor-wrap/testkit";
import { describe, expect, it } from "vitest";
import {
  checkNoSurvivorsAfterAll,
  logFiles,
  loggedUntil,
  logRecords,
  run,
  wrap,
} from "./harness.js";

checkNoSurvivorsAfterAll();

const realCapturePath = (name: string): string => realCapture(name).path;

const QUICK = ["--idle-timeout", "1s", "--tool-grace", "500ms", "--exit-grace", "500ms"];
const named = (records: Array<Record<string, unknown>>, message: string) =>
  records.filter((record) => record.msg === message);

describe("an agent that is quiet but working", () => {
  it.each([
    ["burning CPU", "busy-silent"],
    ["reading bytes", "reading-silent"],
  ])("is not killed while silent and %s, three times the idle timeout", async (_, name) => {
    // Silent for 3 s (three idle timeouts), and past them until the log shows the decision and
    // two samples: on a loaded machine the first sample of the tree can take seconds.
    const scratch = mkdtempSync(join(tmpdir(), "cursor-wrap-liveness-"));
    const release = join(scratch, "release");
    const wrapped = wrap(["-p", "x", ...QUICK], { scenario: `${name}:3000|${release}` });
    await loggedUntil(
      wrapped,
      (records) =>
        named(records, "quiet_but_working").length >= 1 &&
        named(records, "liveness_sample").length >= 2,
    );
    writeFileSync(release, "");
    const result = await wrapped.done;
    rmSync(scratch, { recursive: true, force: true });
    expect(result.code).toBe(0);
    const records = logRecords(result);
    expect(named(records, "hang_detected")).toEqual([]);
    expect(named(records, "quiet_but_working").length).toBeGreaterThanOrEqual(1);
    const samples = named(records, "liveness_sample");
    expect(samples.length).toBeGreaterThanOrEqual(2);
    expect(samples[0]).toMatchObject({ processes: expect.any(Number) });
  });

  it("is killed at the idle timeout, as before, when its processes are parked", async () => {
    const result = await run(["-p", "x", ...QUICK], { scenario: "idle-hang" });
    expect(result.code).toBe(2);
    const records = logRecords(result);
    const hang = named(records, "hang_detected")[0]!;
    expect(hang).toMatchObject({ reason: { kind: "idle", liveness: { working: false } } });
    expect(String(hang.summary)).toContain("the agent's processes were idle too");
    const lastLine = named(records, "raw_event").at(-1)!;
    // The verdict waits for no extra sample: it fires at the idle timeout (generous bound).
    expect(Number(hang.ts) - Number(lastLine.recv_ts)).toBeLessThan(1_000 + 2_000);
  });

  it("is ended by --max-quiet when it spins for ever without a word", async () => {
    const result = await run(["-p", "x", ...QUICK, "--max-quiet", "3s"], {
      scenario: "spin-forever",
    });
    expect(result.code).toBe(2);
    const hang = named(logRecords(result), "hang_detected")[0]!;
    expect(String(hang.summary)).toContain("busy but silent past the 3.0s allowed for quiet work");
    expect(hang.reason).toMatchObject({ idleMs: expect.any(Number) });
    expect((hang.reason as { idleMs: number }).idleMs).toBeGreaterThanOrEqual(3_000);
  });

  it("is left to silence alone with --max-quiet 0", async () => {
    const result = await run(["-p", "x", ...QUICK, "--max-quiet", "0"], {
      scenario: "busy-silent:4000",
    });
    expect(result.code).toBe(2);
    expect(named(logRecords(result), "liveness_sample")).toEqual([]);
  });
});

describe("background work", () => {
  it("is a wait of its own while the agent waits for a shell it backgrounded", async () => {
    const result = await run(["-p", "x", ...QUICK], { scenario: "background-wait:3000" });
    expect(result.code).toBe(0);
    const records = logRecords(result);
    expect(named(records, "hang_detected")).toEqual([]);
    expect(named(records, "background_work_started")[0]).toMatchObject({
      label: "npm run dev",
      pid: expect.any(Number),
    });
  });

  it("ends in a clear verdict past --background-wait, and the backgrounded process is killed", async () => {
    const steps: Step[] = [
      { type: "line", value: { type: "system", subtype: "init", session_id: "s-bg" } },
      { type: "background", callId: "call_dev", command: "npm run dev", ms: 60_000 },
    ];
    const result = await run(["-p", "x", ...QUICK, "--background-wait", "2s"], {
      scenario: steps,
    });
    expect(result.code).toBe(2);
    const hang = named(logRecords(result), "hang_detected")[0]!;
    expect(hang).toMatchObject({
      reason: { kind: "background", background: [{ label: "npm run dev" }] },
    });
    expect(String(hang.summary)).toContain("on background work, past its budget of 2.0s");
    // The backgrounded shell ran in a session of its own: found by the run's token, killed.
    expect(readPids(join(result.dir, "pids")).filter(isAlive)).toEqual([]);
  });
});

describe("after the result", () => {
  it("gives an agent that visibly drains its background work time to exit", async () => {
    const result = await run(["-p", "x", ...QUICK], { scenario: "drain-after-result:2000" });
    expect(result.code).toBe(0);
    expect(named(logRecords(result), "linger_detected")).toEqual([]);
  });

  it("still kills a process parked after its result at the exit grace (the linger bug)", async () => {
    const result = await run(["-p", "x", ...QUICK], { scenario: "parked-after-result" });
    expect(result.code).toBe(0);
    const linger = named(logRecords(result), "linger_detected")[0]!;
    expect(linger).toMatchObject({ reason: { kind: "linger", liveness: { working: false } } });
  });
});

describe("replay", () => {
  it("reproduces the quiet-but-working decisions from the samples in a log", async () => {
    // The checks come 1 s apart from the last line (+1 s, +2 s, +3 s): a spin of 3 s ended on
    // the third, so the live run's timer and the agent's next line raced, and when the line
    // won, the replay (on its own clock, where the check comes first) found no sample there and
    // took the agent as parked. A spin of 2.5 s ends halfway between two checks.
    const live = await run(["-p", "x", ...QUICK], { scenario: "busy-silent:2500" });
    const [file] = logFiles(live);
    const replay = await run(["replay", file!]);
    expect(replay.code).toBe(0);
    const text = replay.stdout.toString();
    expect(text).toMatch(/working +quiet for [\d.]+s, working: /);
    expect(text).toContain("no verdict");
    const json = JSON.parse((await run(["replay", file!, "--json"])).stdout.toString()) as Array<{
      process_samples_recorded: boolean;
      entries: Array<{ type: string }>;
    }>;
    expect(json[0]!.process_samples_recorded).toBe(true);
    expect(json[0]!.entries.some((entry) => entry.type === "working")).toBe(true);
  });

  it("says a raw capture carries no samples, and takes a quiet agent as parked", async () => {
    const replay = await run([
      "replay",
      realCapturePath("reifying-cursor-hack--direct-sleep"),
      "--idle-timeout",
      "2s",
    ]);
    expect(replay.code).toBe(0);
    expect(replay.stdout.toString()).toContain(
      "the capture holds no samples of the agent's processes (raw output carries no CPU data)",
    );
  });
});
