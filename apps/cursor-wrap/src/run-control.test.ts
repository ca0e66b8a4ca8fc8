import { EventEmitter } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { openSessionLog, type SessionLog } from "@cursor-wrap/logger";
import { endingOfCancel, exitCodeOf } from "@cursor-wrap/run";
import { fakeAgentProcess } from "@cursor-wrap/run/testing";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createRunControl, type ProcessHooks } from "./run-control.js";

let dir: string;
let log: SessionLog;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "run-control-test-"));
  log = openSessionLog({ dir, retentionMs: 0, fsync: false });
});
afterEach(() => {
  log.close({ outcome: "test", flagged: false, exit_code: 0 });
  rmSync(dir, { recursive: true, force: true });
});

class ExitCalled extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

function setUp(print: boolean) {
  const host = new EventEmitter() as EventEmitter & { exit(code: number): never };
  host.exit = (code: number): never => {
    throw new ExitCalled(code);
  };
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const control = createRunControl({
    print,
    log,
    stdout,
    stderr,
    process: host as unknown as ProcessHooks,
  });
  return { host, control, stdout, stderr };
}

describe("createRunControl", () => {
  it("interactive Ctrl+C cancels the running turn and keeps the session", () => {
    const { host, control } = setUp(false);
    const turn = new AbortController();
    control.turnStarted(turn);
    host.emit("SIGINT", "SIGINT");
    expect(turn.signal.reason).toEqual({ kind: "turn", signal: "SIGINT" });
    expect(control.stopping).toBeUndefined();
    control.dispose();
  });

  it.each([
    ["SIGINT", true, 130],
    ["SIGTERM", false, 143],
    ["SIGHUP", false, 129],
  ] as const)(
    "%s (print %s) stops the run: the turn is cancelled, exit %d",
    async (signal, print, code) => {
      const { host, control } = setUp(print);
      const turn = new AbortController();
      control.turnStarted(turn);
      host.emit(signal, signal);
      expect(turn.signal.reason).toEqual({ kind: "shutdown", signal });
      await expect(control.shutdown).resolves.toEqual({ kind: "shutdown", signal });
      expect(control.ending({ kind: "completed" })).toEqual({ kind: "signal", signal });
      expect(endingOfCancel(control.stopping!)).toEqual({ kind: "signal", signal });
      expect(exitCodeOf(control.ending({ kind: "completed" }))).toBe(code);
      control.dispose();
    },
  );

  it("cancels a turn that starts after the run began to stop", () => {
    const { host, control } = setUp(true);
    host.emit("SIGTERM", "SIGTERM");
    const late = new AbortController();
    control.turnStarted(late);
    expect(late.signal.aborted).toBe(true);
    control.dispose();
  });

  it("a second Ctrl+C while stopping kills the tree at once; the run ends by itself, its log closed", () => {
    vi.useFakeTimers();
    const { host, control } = setUp(true);
    const agent = fakeAgentProcess();
    control.agentChanged(agent.process);
    host.emit("SIGINT", "SIGINT");
    host.emit("SIGINT", "SIGINT");
    expect(agent.process.exitInfo).toEqual({ code: null, signal: "SIGKILL" });
    // The run ends as a stopped run does (its session_end and last line are its own): no
    // exit comes after it.
    control.dispose();
    expect(() => vi.advanceTimersByTime(60_000)).not.toThrow();
    vi.useRealTimers();
  });

  it("after a second Ctrl+C, a run that does not end exits 130 within 2 s, its log closed", () => {
    vi.useFakeTimers();
    const { host, control } = setUp(true);
    control.agentChanged(fakeAgentProcess().process);
    host.emit("SIGINT", "SIGINT");
    host.emit("SIGINT", "SIGINT");
    expect(() => vi.advanceTimersByTime(1_999)).not.toThrow();
    expect(() => vi.advanceTimersByTime(1)).toThrow(new ExitCalled(130));
    const records = readFileSync(log.path, "utf8").trim().split("\n");
    expect(JSON.parse(records.at(-1)!)).toMatchObject({
      msg: "session_end",
      outcome: "cancelled",
      exit_code: 130,
    });
    control.dispose();
    vi.useRealTimers();
  });

  it("a signal during a kill's grace SIGKILLs the tree at once", () => {
    const { host, control } = setUp(false);
    const agent = fakeAgentProcess();
    agent.diesOnKill = false;
    control.agentChanged(agent.process);
    void agent.process.kill("hang");
    const turn = new AbortController();
    control.turnStarted(turn);
    host.emit("SIGINT", "SIGINT");
    expect(agent.process.exitInfo).toEqual({ code: null, signal: "SIGKILL" });
    expect(turn.signal.aborted).toBe(true);
    control.dispose();
  });

  it("a closed stdout stops the run quietly with an error ending, and silences errors", () => {
    const { control, stdout, stderr } = setUp(true);
    let shown = "";
    stderr.on("data", (chunk: Buffer) => {
      shown += chunk.toString();
    });
    control.printError("before");
    stdout.emit("error", Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
    control.printError("after");
    expect(control.stopping).toEqual({ kind: "output", code: "EPIPE" });
    expect(control.ending({ kind: "completed" })).toEqual({ kind: "error" });
    expect(shown).toBe("cursor-wrap: before\n");
    control.dispose();
  });

  it("logs a closed terminal's stdout once, however many writes fail after its SIGHUP", () => {
    const { control, stdout, host } = setUp(true);
    host.emit("SIGHUP", "SIGHUP");
    const eio = Object.assign(new Error("write EIO"), { code: "EIO" });
    for (let write = 0; write < 6; write += 1) stdout.emit("error", eio);
    expect(control.stopping).toEqual({ kind: "shutdown", signal: "SIGHUP" });
    log.close({ outcome: "test", flagged: false, exit_code: 0 });
    const closed = readFileSync(log.path, "utf8")
      .trimEnd()
      .split("\n")
      .filter((text) => text.includes('"msg":"stdout_closed"'));
    expect(closed).toHaveLength(1);
    control.dispose();
  });

  it("any other stdout error stops the run with one line naming it, and an error ending", () => {
    const { control, stdout, stderr } = setUp(true);
    let shown = "";
    stderr.on("data", (chunk: Buffer) => {
      shown += chunk.toString();
    });
    const full = Object.assign(new Error("ENOSPC: no space left on device, write"), {
      code: "ENOSPC",
    });
    stdout.emit("error", full);
    stdout.emit("error", full);
    expect(control.stopping).toEqual({ kind: "output", code: "ENOSPC" });
    expect(control.ending({ kind: "completed" })).toEqual({ kind: "error" });
    expect(shown).toBe(
      "cursor-wrap: cannot write to stdout: ENOSPC (no space left on device); the agent was stopped, and its output up to here is in the log\n",
    );
    control.printError("later errors are still shown");
    expect(shown).toContain("later errors are still shown");
    control.dispose();
  });

  it("a crash kills the tree, closes the log as a crash and exits 1", () => {
    const { host, control } = setUp(true);
    const agent = fakeAgentProcess();
    control.agentChanged(agent.process);
    expect(() => host.emit("uncaughtException", new Error("boom"))).toThrow(new ExitCalled(1));
    expect(agent.process.exitInfo?.signal).toBe("SIGKILL");
    control.dispose();
  });

  it("stops listening once disposed", () => {
    const { host, control } = setUp(true);
    control.dispose();
    for (const event of ["SIGINT", "SIGTERM", "SIGHUP", "uncaughtException", "exit"]) {
      expect(host.listenerCount(event)).toBe(0);
    }
  });
});
