import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createMonitor, DEFAULT_TOOL_TIMEOUTS } from "./monitor.js";
import type { MonitorSignal } from "./types.js";

// Bounded here; `pnpm fuzz` runs it with FUZZ_RUNS=20000.
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

const IDLE = 60_000;
const GRACE = 30_000;
const EXIT = 10_000;

type Step = { gap: number; signal: MonitorSignal };

const id = fc.constantFrom("a", "b", "c", "a\nfc_1");
const kind = fc.constantFrom("shell", "mcp", "read", "await", "task");
const signal: fc.Arbitrary<MonitorSignal> = fc.oneof(
  { weight: 5, arbitrary: fc.constant({ type: "activity" } as MonitorSignal) },
  {
    weight: 3,
    arbitrary: fc.record({
      type: fc.constant("toolStart" as const),
      id,
      kind,
      timeoutMs: fc.option(fc.integer({ min: 1, max: 120_000 }), { nil: undefined }),
      background: fc.boolean().map((value) => value || undefined),
    }),
  },
  { weight: 3, arbitrary: id.map((value) => ({ type: "toolEnd", id: value }) as MonitorSignal) },
  { weight: 1, arbitrary: fc.constant({ type: "done" } as MonitorSignal) },
  { weight: 1, arbitrary: fc.constant({ type: "session", sessionId: "s" } as MonitorSignal) },
);
const step: fc.Arbitrary<Step> = fc.record({ gap: fc.integer({ min: 0, max: 200_000 }), signal });

/** An independent model of what docs/requirements.md §3 says, to check the monitor against. */
class Model {
  lastAt: number;
  open = new Map<string, { startedAt: number; limit: number }>();
  background = new Set<string>();
  doneAt: number | undefined;

  constructor(startedAt: number) {
    this.lastAt = startedAt;
  }

  apply(signal: MonitorSignal, at: number): void {
    this.lastAt = Math.max(this.lastAt, at);
    if (this.doneAt !== undefined) return;
    switch (signal.type) {
      case "toolStart": {
        if (signal.background) this.background.add(signal.id);
        else {
          const allowance = signal.timeoutMs ?? DEFAULT_TOOL_TIMEOUTS[signal.kind] ?? IDLE;
          this.open.set(signal.id, { startedAt: at, limit: allowance + GRACE });
        }
        break;
      }
      case "toolEnd":
        if (!this.open.delete(signal.id)) this.background.delete(signal.id);
        break;
      case "done":
        this.doneAt = at;
        break;
      default:
        break;
    }
  }

  /** Whether any open tool is still within its deadline at `now`. */
  toolWithinDeadline(now: number): boolean {
    for (const call of this.open.values()) if (now < call.startedAt + call.limit) return true;
    return false;
  }

  /** The time by which a verdict must have fired if nothing else arrives. */
  bound(): number {
    if (this.doneAt !== undefined) return this.doneAt + EXIT;
    if (this.open.size === 0) return this.lastAt + IDLE;
    let latest = 0;
    for (const call of this.open.values()) latest = Math.max(latest, call.startedAt + call.limit);
    return Math.max(latest, this.lastAt + GRACE);
  }
}

describe("the monitor under random event sequences (property)", () => {
  it("never calls a hang while a tool is within its deadline or (idle) the silence is short; always fires by the bound; nextDeadline never lies", () => {
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 40 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 40, maxLength: 40 }),
        (steps, probes) => {
          let now = 0;
          const monitor = createMonitor({
            now: () => now,
            idleTimeoutMs: IDLE,
            toolGraceMs: GRACE,
            exitGraceMs: EXIT,
          });
          const model = new Model(0);
          let fired = false;
          for (const [index, { gap, signal }] of steps.entries()) {
            const arrival = now + gap;
            // Probe a moment before the next signal: between checks, nothing may change before
            // nextDeadline(), and at it, something must (a warning or a verdict).
            const deadline = monitor.nextDeadline();
            if (deadline !== undefined && deadline > now) {
              // Somewhere before the deadline, and 1 ms before it: nothing new yet.
              const somewhere = now + (Math.min(deadline, arrival) - now) * (probes[index] ?? 0.5);
              for (const probe of [somewhere, deadline - 1]) {
                if (probe < now || probe >= deadline || probe > arrival) continue;
                now = probe;
                const early = monitor.check();
                expect(early.warning).toBeUndefined();
                expect(early.verdict === "ok" || early.verdict === "waiting").toBe(true);
              }
            }
            // Every check the deadlines ask for, up to the arrival of the next signal.
            for (
              let next = monitor.nextDeadline();
              next !== undefined && next <= arrival && !fired;
              next = monitor.nextDeadline()
            ) {
              if (next - 1 >= now) {
                now = next - 1;
                const before = monitor.check();
                expect(before.warning).toBeUndefined();
                expect(before.verdict === "ok" || before.verdict === "waiting").toBe(true);
              }
              now = Math.max(now, next);
              const result = monitor.check();
              expect(
                result.warning !== undefined ||
                  (result.verdict !== "ok" && result.verdict !== "waiting"),
              ).toBe(true);
              if (result.verdict === "hang") {
                expect(model.toolWithinDeadline(now)).toBe(false);
                if (model.open.size === 0) expect(now - model.lastAt).toBeGreaterThanOrEqual(IDLE);
                else expect(now - model.lastAt).toBeGreaterThanOrEqual(GRACE);
              }
              if (result.verdict === "linger")
                expect(now).toBeGreaterThanOrEqual((model.doneAt ?? 0) + EXIT);
              if (result.verdict !== "ok" && result.verdict !== "waiting") fired = true;
            }
            if (fired) return; // a supervisor would have killed the agent here
            now = arrival;
            monitor.observe(signal);
            model.apply(signal, now);
          }
          // Left silent, the verdict fires by the bound, and not before the first deadline.
          const bound = model.bound();
          now = bound;
          let result = monitor.check();
          for (
            let guard = 0;
            guard < 3 && (result.verdict === "ok" || result.verdict === "waiting");
            guard += 1
          ) {
            result = monitor.check(); // a soft warning may come first
          }
          expect(result.verdict === "ok" || result.verdict === "waiting").toBe(false);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
