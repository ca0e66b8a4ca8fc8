import { EventEmitter } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { openSessionLog } from "@cursor-wrap/logger";
import { exitCodeOf } from "@cursor-wrap/run";
import { describe, expect, it } from "vitest";
import { type ExitSignalHost, holdExitSignals } from "./exit-signals.js";
import { createRunControl, type ProcessHooks } from "./run-control.js";

class ExitCalled extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/** A process that records listeners like Node's and throws on exit (exit never returns). */
function fakeHost() {
  const host = new EventEmitter() as EventEmitter & { exit(code?: number): never };
  host.exit = (code?: number): never => {
    throw new ExitCalled(code ?? 0);
  };
  return host;
}

const hold = (host: ReturnType<typeof fakeHost>) =>
  holdExitSignals(host as unknown as ExitSignalHost);

describe("holdExitSignals", () => {
  it("leaves a signal to the command that listens for it", () => {
    const host = fakeHost();
    hold(host);
    const seen: string[] = [];
    host.on("SIGTERM", (signal: string) => seen.push(signal));
    expect(() => host.emit("SIGTERM", "SIGTERM")).not.toThrow();
    expect(seen).toEqual(["SIGTERM"]);
  });

  it.each([
    ["SIGINT", 130],
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const)("exits with the code of a %s no command handles (%i)", (signal, code) => {
    const host = fakeHost();
    hold(host);
    expect(() => host.emit(signal, signal)).toThrow(new ExitCalled(code));
  });

  it("exits with the decided code once the command is over, whatever the signal", () => {
    const host = fakeHost();
    const exit = hold(host);
    exit.decide(0);
    expect(() => host.emit("SIGHUP", "SIGHUP")).toThrow(new ExitCalled(0));
    exit.decide(2);
    expect(() => host.emit("SIGINT", "SIGINT")).toThrow(new ExitCalled(2));
  });

  it("a closed terminal's second SIGHUP, after the run stopped for the first, still ends it 129", () => {
    // The sequence that ended a hung-up session killed by SIGHUP: the kernel's hangup stops
    // the run, the run control stops listening, and the terminal's own SIGHUP comes while
    // the process flushes its output before it exits.
    const dir = mkdtempSync(join(tmpdir(), "exit-signals-test-"));
    const log = openSessionLog({ dir, retentionMs: 0, fsync: false });
    try {
      const host = fakeHost();
      const exit = hold(host);
      const control = createRunControl({
        print: false,
        log,
        stdout: new PassThrough(),
        stderr: new PassThrough(),
        process: host as unknown as ProcessHooks,
      });
      expect(() => host.emit("SIGHUP", "SIGHUP")).not.toThrow();
      expect(control.stopping).toEqual({ kind: "shutdown", signal: "SIGHUP" });
      const code = exitCodeOf(control.ending({ kind: "completed" }));
      expect(code).toBe(129);
      control.dispose();
      // Between the command's end and the decision (its last records, a report being sent).
      expect(() => host.emit("SIGHUP", "SIGHUP")).toThrow(new ExitCalled(129));
      exit.decide(code);
      expect(() => host.emit("SIGHUP", "SIGHUP")).toThrow(new ExitCalled(129));
    } finally {
      log.close({ outcome: "test", flagged: false, exit_code: 0 });
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
