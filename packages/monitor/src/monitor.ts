import { formatDuration } from "./format-duration.js";
import type {
  BackgroundDetail,
  CheckResult,
  LivenessReport,
  Monitor,
  MonitorOptions,
  MonitorSignal,
  MonitorSnapshot,
  MonitorWarning,
  OpenCallDetail,
  Phase,
  Reason,
  ReasonKind,
  SoftWarning,
  Verdict,
} from "./types.js";

/** Default thresholds, in milliseconds. */
export const DEFAULT_THRESHOLDS = {
  idleTimeoutMs: 60_000,
  toolGraceMs: 30_000,
  exitGraceMs: 10_000,
} as const;

/**
 * Allowances for tool kinds that usually declare no timeout and legitimately run long:
 * MCP servers (10 min), subagent tasks (30 min) and waits on background shells (10 min).
 */
export const DEFAULT_TOOL_TIMEOUTS: Readonly<Record<string, number>> = Object.freeze({
  mcp: 600_000,
  task: 1_800_000,
  await: 600_000,
});

interface OpenCall {
  id: string;
  kind: string;
  label: string | undefined;
  startedAt: number;
  timeoutMs: number | undefined;
  limitMs: number;
}

/** The deadline at which a hang verdict fires, and the span it measures (for soft warnings). */
interface HangDeadline {
  kind: "idle" | "tool" | "background";
  at: number;
  anchor: number;
  span: number;
}

/** Defaults of the quiet-but-working rule (R-MON11). */
export const DEFAULT_LIVENESS = {
  maxQuietMs: 1_800_000,
  maxDrainMs: 300_000,
  minCpuFraction: 0.05,
  minIoBytesPerSecond: 256,
} as const;

/** How long the agent may wait, silent, on background work by default, ms. */
export const DEFAULT_BACKGROUND_WAIT_MS = 600_000;

/** A sample that could not decide (no baseline in this silence) is followed by one after this, ms at most. */
const RETRY_SAMPLE_MS = 5_000;

interface BackgroundEntry {
  id: string;
  aliases: readonly string[];
  pid: number | undefined;
  label: string | undefined;
  since: number;
}

const finite = (value: number | undefined): number | undefined =>
  value !== undefined && Number.isFinite(value) && value >= 0 ? value : undefined;

function formatBytes(bytes: number): string {
  if (bytes < 1_000) return `${Math.round(bytes)} B`;
  if (bytes < 1_000_000) return `${(bytes / 1_000).toFixed(1)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

const defaultClock = (): number => performance.now();

/** A duration >= 0, ms; `Infinity` means no limit. */
function nonNegative(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (Number.isNaN(value) || value < 0) {
    throw new RangeError(
      `${name} must be a number of milliseconds >= 0 (or Infinity), got ${value}`,
    );
  }
  return value;
}

/**
 * Create the hang state machine (R-MON1 to R-MON10). Feed it signals with `observe()`, ask
 * `nextDeadline()` when to look again, and `check()` at that time. It keeps no timers.
 */
export function createMonitor(options: MonitorOptions = {}): Monitor {
  const clock = options.now ?? defaultClock;
  const idleTimeoutMs = nonNegative(
    "idleTimeoutMs",
    options.idleTimeoutMs,
    DEFAULT_THRESHOLDS.idleTimeoutMs,
  );
  const toolGraceMs = nonNegative(
    "toolGraceMs",
    options.toolGraceMs,
    DEFAULT_THRESHOLDS.toolGraceMs,
  );
  const exitGraceMs = nonNegative(
    "exitGraceMs",
    options.exitGraceMs,
    DEFAULT_THRESHOLDS.exitGraceMs,
  );
  const maxTurnMs =
    options.maxTurnMs === undefined ? undefined : nonNegative("maxTurnMs", options.maxTurnMs, 0);
  const warnFraction = options.warnFraction ?? 0.5;
  if (!(warnFraction >= 0 && warnFraction < 1)) {
    throw new RangeError(`warnFraction must be in [0, 1), got ${warnFraction}`);
  }
  // Kinds come from the agent's output: a Map, so `constructor` or `__proto__` is just a kind.
  const toolTimeouts = new Map<string, number>(Object.entries(DEFAULT_TOOL_TIMEOUTS));
  for (const [kind, ms] of Object.entries(options.toolTimeouts ?? {})) {
    toolTimeouts.set(kind, nonNegative(`toolTimeouts.${kind}`, ms, 0));
  }

  const firstOutputMs = nonNegative("firstOutputMs", options.firstOutputMs, idleTimeoutMs);
  const backgroundWaitMs = nonNegative(
    "backgroundWaitMs",
    options.backgroundWaitMs,
    DEFAULT_BACKGROUND_WAIT_MS,
  );
  const liveness = options.liveness
    ? {
        maxQuietMs: nonNegative(
          "liveness.maxQuietMs",
          options.liveness.maxQuietMs,
          DEFAULT_LIVENESS.maxQuietMs,
        ),
        maxDrainMs: nonNegative(
          "liveness.maxDrainMs",
          options.liveness.maxDrainMs,
          DEFAULT_LIVENESS.maxDrainMs,
        ),
        minCpuFraction: nonNegative(
          "liveness.minCpuFraction",
          options.liveness.minCpuFraction,
          DEFAULT_LIVENESS.minCpuFraction,
        ),
        minIoBytesPerSecond: nonNegative(
          "liveness.minIoBytesPerSecond",
          options.liveness.minIoBytesPerSecond,
          DEFAULT_LIVENESS.minIoBytesPerSecond,
        ),
      }
    : undefined;

  const startedAt = options.startedAt ?? clock();
  let lastAt = startedAt;
  let lastEventType: string | undefined;
  let lastPhase: "thinking" | "responding" | undefined;
  let sessionId: string | undefined;
  const open = new Map<string, OpenCall>();
  const background = new Set<string>();
  let doneAt: number | undefined;
  let exited = false;
  // Set while the agent's output is held up by a slow reader of ours (see `pause()`).
  let pausedAt: number | undefined;
  let warnedAfterDone = false;
  // The hang deadline a soft warning was already emitted for: one warning per silence.
  let warnedFor: number | undefined;
  // Work the agent moved to the background (it may wait for it before its result).
  const backgroundWork = new Map<string, BackgroundEntry>();
  // Liveness (R-MON11): when the tree was last sampled, last found working, and the last
  // sample that decided something (working or parked).
  let lastSampleAt: number | undefined;
  let workingAt: number | undefined;
  let lastWorking: LivenessReport | undefined;
  let decision: { at: number; report: LivenessReport } | undefined;
  // A sample with no baseline in this silence: decide with another one at this time.
  let retryAt: number | undefined;

  // A declared timeout is the agent's word: only a finite, non-negative one counts.
  const allowanceFor = (kind: string, declared: number | undefined): number =>
    (declared !== undefined && Number.isFinite(declared) && declared >= 0
      ? declared
      : (toolTimeouts.get(kind) ?? idleTimeoutMs)) + toolGraceMs;

  /** Where the current silence is measured from: the last signal, or the last time the tree was seen working. */
  const quietAnchor = (): number =>
    workingAt !== undefined && workingAt > lastAt ? workingAt : lastAt;

  function hangDeadline(): HangDeadline {
    const anchor = quietAnchor();
    // However busy the tree, silence past the cap is a hang.
    const cap = liveness ? lastAt + liveness.maxQuietMs : Number.POSITIVE_INFINITY;
    if (open.size === 0) {
      if (backgroundWork.size > 0) {
        // Waiting on background work is a state of its own, with its own budget.
        return {
          kind: "background",
          at: lastAt + backgroundWaitMs,
          anchor: lastAt,
          span: backgroundWaitMs,
        };
      }
      const span = lastEventType === undefined ? firstOutputMs : idleTimeoutMs;
      return { kind: "idle", at: Math.min(anchor + span, cap), anchor, span };
    }
    // Every open call must be past its own deadline, and the stream must have been silent for
    // the grace period: an agent still printing is not hung, whatever its stale calls say.
    let latest: OpenCall | undefined;
    for (const call of open.values()) {
      if (!latest || call.startedAt + call.limitMs > latest.startedAt + latest.limitMs) {
        latest = call;
      }
    }
    const callsExpireAt = latest!.startedAt + latest!.limitMs;
    const silenceAt = anchor + toolGraceMs;
    return silenceAt > callsExpireAt
      ? { kind: "tool", at: Math.min(silenceAt, cap), anchor, span: toolGraceMs }
      : {
          kind: "tool",
          at: Math.min(callsExpireAt, cap),
          anchor: latest!.startedAt,
          span: latest!.limitMs,
        };
  }

  /**
   * When the process must have exited after its result. With liveness on, events after the
   * result and a tree seen working extend it, up to `maxDrainMs` after the result.
   */
  function exitDeadline(): HangDeadline {
    const done = doneAt!;
    if (!liveness) return { kind: "idle", at: done + exitGraceMs, anchor: done, span: exitGraceMs };
    const anchor = Math.max(done, lastAt, workingAt ?? done);
    const cap = done + Math.max(exitGraceMs, liveness.maxDrainMs);
    return { kind: "idle", at: Math.min(anchor + exitGraceMs, cap), anchor, span: exitGraceMs };
  }

  /** A sample of the tree is wanted halfway through this deadline's span (none taken in it yet). */
  const baselineAt = (deadline: HangDeadline): number | undefined =>
    liveness && (lastSampleAt === undefined || lastSampleAt < deadline.anchor)
      ? deadline.anchor + deadline.span / 2
      : undefined;

  /**
   * A verdict is due at `deadline.at`: with liveness on, it fires only on a sample that found
   * the tree parked (or past `capAt`); until there is one, ask for a sample.
   */
  function gate(deadline: HangDeadline, capAt: number, now: number): "fire" | "probe" | "wait" {
    if (!liveness || now >= capAt) return "fire";
    if (decision && decision.at >= deadline.at && !decision.report.working) return "fire";
    if (retryAt !== undefined && now < retryAt) return "wait";
    return "probe";
  }

  const budgetDeadline = (): number | undefined =>
    maxTurnMs === undefined ? undefined : startedAt + maxTurnMs;

  function warnAt(deadline: HangDeadline): number | undefined {
    if (warnFraction === 0 || warnedFor === deadline.at) return undefined;
    // A tree seen working in this silence is not stalling: no "hang in …" warning.
    if (deadline.kind !== "background" && workingAt !== undefined && workingAt > lastAt) {
      return undefined;
    }
    return deadline.anchor + deadline.span * warnFraction;
  }

  function backgroundDetails(now: number): BackgroundDetail[] {
    return [...backgroundWork.values()].map((work) => {
      const detail: BackgroundDetail = { id: work.id, elapsedMs: Math.round(now - work.since) };
      if (work.pid !== undefined) detail.pid = work.pid;
      if (work.label !== undefined) detail.label = work.label;
      return detail;
    });
  }

  function describeBackground(details: BackgroundDetail[]): string {
    return details
      .map((work) => {
        const what = work.label ? JSON.stringify(work.label) : work.id;
        return `${what}${work.pid !== undefined ? ` (pid ${work.pid})` : ""}`;
      })
      .join(", ");
  }

  /** What a sample over `spanMs` showed, for reasons and records. */
  function livenessReport(
    working: boolean,
    spanMs: number,
    cpuMs: number,
    ioBytes: number | undefined,
    quietMs: number,
  ): LivenessReport {
    const moved = ioBytes === undefined ? "" : `, ${formatBytes(ioBytes)} moved`;
    const report: LivenessReport = {
      working,
      spanMs: Math.round(spanMs),
      cpuMs: Math.round(cpuMs),
      quietMs: Math.round(quietMs),
      message: `quiet for ${formatDuration(quietMs)}, ${working ? "working" : "parked"}: ${formatDuration(cpuMs)} CPU${moved} in ${formatDuration(spanMs)}`,
    };
    if (ioBytes !== undefined) report.ioBytes = Math.round(ioBytes);
    return report;
  }

  function openCallDetails(now: number): OpenCallDetail[] {
    const details: OpenCallDetail[] = [];
    for (const call of open.values()) {
      const elapsedMs = Math.round(now - call.startedAt);
      const detail: OpenCallDetail = {
        id: call.id,
        kind: call.kind,
        elapsedMs,
        limitMs: call.limitMs,
        remainingMs: call.limitMs - elapsedMs,
      };
      if (call.label !== undefined) detail.label = call.label;
      if (call.timeoutMs !== undefined) detail.timeoutMs = call.timeoutMs;
      details.push(detail);
    }
    return details;
  }

  function describeCalls(calls: OpenCallDetail[]): string {
    return calls
      .map((call) => {
        const what = call.label ? `${call.kind} ${JSON.stringify(call.label)}` : call.kind;
        return `${what} ${formatDuration(call.elapsedMs)} of ${formatDuration(call.limitMs)}`;
      })
      .join("; ");
  }

  /** What the tree was doing, for a verdict's message: parked, or working past a cap. */
  function livenessNote(now: number): string {
    if (!liveness) return "";
    if (decision && decision.at >= quietAnchor() && !decision.report.working) {
      return `; the agent's processes were idle too (${formatDuration(decision.report.cpuMs)} CPU${
        decision.report.ioBytes === undefined
          ? ""
          : `, ${formatBytes(decision.report.ioBytes)} moved`
      } in ${formatDuration(decision.report.spanMs)})`;
    }
    if (doneAt !== undefined)
      return `; still busy past the ${formatDuration(liveness.maxDrainMs)} allowed for draining`;
    if (now >= lastAt + liveness.maxQuietMs) {
      return `; busy but silent past the ${formatDuration(liveness.maxQuietMs)} allowed for quiet work`;
    }
    return "";
  }

  function reasonFor(kind: ReasonKind, verdict: Verdict, now: number): Reason {
    const idleMs = Math.round(now - lastAt);
    const openCalls = openCallDetails(now);
    const last = lastEventType ? ` (last event: ${lastEventType})` : " (no output yet)";
    let message: string;
    switch (kind) {
      case "idle":
        message = `no output for ${formatDuration(idleMs)} with no tool running${last}${livenessNote(now)}`;
        break;
      case "tool":
        message = `${openCalls.length} tool call${openCalls.length === 1 ? "" : "s"} past ${
          openCalls.length === 1 ? "its deadline" : "their deadlines"
        }, silent for ${formatDuration(idleMs)}: ${describeCalls(openCalls)}${last}${livenessNote(now)}`;
        break;
      case "background":
        message = `waited ${formatDuration(idleMs)} on background work, past its budget of ${formatDuration(
          backgroundWaitMs,
        )}: ${describeBackground(backgroundDetails(now))}${last}`;
        break;
      case "linger":
        message = `process still running ${formatDuration(now - (doneAt ?? now))} after its result${livenessNote(now)}`;
        break;
      case "budget":
        message = `turn ran ${formatDuration(now - startedAt)}, past its budget of ${formatDuration(
          maxTurnMs ?? 0,
        )}${last}`;
        break;
      case "none":
        message =
          verdict === "waiting"
            ? `waiting on ${describeCalls(openCalls)}`
            : exited
              ? "process exited"
              : doneAt !== undefined
                ? "turn completed"
                : `quiet for ${formatDuration(idleMs)}${last}`;
        break;
    }
    const reason: Reason = { kind, idleMs, openCallCount: openCalls.length, openCalls, message };
    if (kind === "background") reason.background = backgroundDetails(now);
    if (decision && (kind === "idle" || kind === "tool" || kind === "linger")) {
      reason.liveness = decision.report;
    }
    if (lastEventType !== undefined) reason.lastEventType = lastEventType;
    if (sessionId !== undefined) reason.sessionId = sessionId;
    return reason;
  }

  type Assessment = {
    verdict: Verdict;
    kind: ReasonKind;
    deadline?: HangDeadline;
    probe?: boolean;
  };

  function assess(now: number): Assessment {
    if (exited) return { verdict: "ok", kind: "none" };
    if (pausedAt !== undefined) {
      // Silence is not the agent's while its output waits on us: only the budget runs on.
      const budgetAt = budgetDeadline();
      return budgetAt !== undefined && now >= budgetAt
        ? { verdict: "budget", kind: "budget" }
        : { verdict: open.size > 0 ? "waiting" : "ok", kind: "none" };
    }
    if (doneAt !== undefined) {
      const exit = exitDeadline();
      if (now >= exit.at) {
        const capAt = doneAt + Math.max(exitGraceMs, liveness?.maxDrainMs ?? 0);
        const step = gate(exit, capAt, now);
        if (step === "fire") return { verdict: "linger", kind: "linger" };
        return { verdict: "ok", kind: "none", probe: step === "probe" };
      }
      const sampleAt = baselineAt(exit);
      return { verdict: "ok", kind: "none", probe: sampleAt !== undefined && now >= sampleAt };
    }
    const deadline = hangDeadline();
    const budgetAt = budgetDeadline();
    const hangDue = now >= deadline.at;
    const budgetDue = budgetAt !== undefined && now >= budgetAt;
    const calm: Verdict = open.size > 0 ? "waiting" : "ok";
    if (hangDue && (!budgetDue || deadline.at <= budgetAt!)) {
      if (deadline.kind === "background") {
        // A sample first: background work whose process is gone no longer holds the wait.
        if (liveness && (lastSampleAt === undefined || lastSampleAt < deadline.at)) {
          return { verdict: calm, kind: "none", deadline, probe: true };
        }
        return { verdict: "hang", kind: "background", deadline };
      }
      const step = gate(deadline, lastAt + (liveness?.maxQuietMs ?? 0), now);
      if (step === "fire") return { verdict: "hang", kind: deadline.kind, deadline };
      if (!budgetDue) return { verdict: calm, kind: "none", deadline, probe: step === "probe" };
    }
    if (budgetDue) return { verdict: "budget", kind: "budget", deadline };
    const sampleAt = baselineAt(deadline);
    return {
      verdict: calm,
      kind: "none",
      deadline,
      probe: sampleAt !== undefined && now >= sampleAt,
    };
  }

  function softWarning(deadline: HangDeadline, now: number): SoftWarning {
    const firesIn = formatDuration(deadline.at - now);
    let message: string;
    switch (deadline.kind) {
      case "idle":
        message = `quiet for ${formatDuration(now - lastAt)}; hang in ${firesIn} if nothing arrives`;
        break;
      case "tool":
        message = `tool call${open.size === 1 ? "" : "s"} running long; hang in ${firesIn}: ${describeCalls(
          openCallDetails(now),
        )}`;
        break;
      case "background":
        message = `waiting on background work for ${formatDuration(now - lastAt)}: ${describeBackground(
          backgroundDetails(now),
        )}; verdict in ${firesIn} if it goes on`;
        break;
    }
    return { kind: deadline.kind, firesInMs: Math.round(deadline.at - now), message };
  }

  function nextDeadline(): number | undefined {
    if (exited) return undefined;
    if (pausedAt !== undefined) return budgetDeadline();
    let next: number;
    let deadline: HangDeadline;
    if (doneAt !== undefined) {
      deadline = exitDeadline();
      next = deadline.at;
    } else {
      deadline = hangDeadline();
      next = deadline.at;
      const budgetAt = budgetDeadline();
      if (budgetAt !== undefined && budgetAt < next) next = budgetAt;
      const warning = warnAt(deadline);
      if (warning !== undefined && warning < next) next = warning;
    }
    const sampleAt = baselineAt(deadline);
    if (sampleAt !== undefined && sampleAt < next) next = sampleAt;
    // Waiting for a second sample: the deadline itself has passed.
    if (retryAt !== undefined && next <= retryAt) next = retryAt;
    return next;
  }

  /** Take in a sample of the tree: a baseline, or a decision on whether it is working. */
  function observeLiveness(signal: Extract<MonitorSignal, { type: "liveness" }>, now: number) {
    if (signal.pids) {
      const alive = new Set(signal.pids);
      for (const [id, work] of backgroundWork) {
        if (work.pid !== undefined && !alive.has(work.pid)) backgroundWork.delete(id);
      }
    }
    const previous = lastSampleAt;
    lastSampleAt = now;
    retryAt = undefined;
    if (!liveness) return;
    const anchor = doneAt !== undefined ? exitDeadline().anchor : quietAnchor();
    if (previous === undefined || previous < anchor || now <= previous) {
      // No baseline in this silence: this sample is one. If a verdict is due, decide soon.
      const due = doneAt !== undefined ? exitDeadline().at : hangDeadline().at;
      if (now >= due) retryAt = now + Math.min(RETRY_SAMPLE_MS, Math.max(1, idleTimeoutMs / 2));
      return;
    }
    const spanMs = now - previous;
    const cpuMs = finite(signal.cpuMs) ?? 0;
    const ioBytes = finite(signal.ioBytes);
    const working =
      cpuMs >= spanMs * liveness.minCpuFraction ||
      (ioBytes !== undefined && (ioBytes * 1_000) / spanMs >= liveness.minIoBytesPerSecond);
    const report = livenessReport(working, spanMs, cpuMs, ioBytes, now - lastAt);
    decision = { at: now, report };
    if (working) {
      workingAt = now;
      lastWorking = report;
    }
  }

  return {
    observe(signal, now = clock()) {
      if (signal.type === "liveness") {
        // A sample of the tree is not output: silence goes on.
        if (!exited) observeLiveness(signal, now);
        return undefined;
      }
      if (now > lastAt) lastAt = now;
      lastEventType = signal.eventType ?? signal.type;
      if (exited) return undefined;
      if (signal.type === "backgroundEnd") {
        if (signal.id === undefined) backgroundWork.clear();
        else {
          for (const [id, work] of backgroundWork) {
            if (id === signal.id || work.aliases.includes(signal.id)) backgroundWork.delete(id);
          }
        }
        return undefined;
      }
      if (doneAt !== undefined && signal.type !== "exit") {
        // With liveness on, output after the result is the agent draining (background work
        // reporting in), which extends the time it has to exit.
        if (liveness || warnedAfterDone) return undefined;
        warnedAfterDone = true;
        return {
          code: "after-done",
          message: `${lastEventType} after the result; ignored`,
        } satisfies MonitorWarning;
      }
      switch (signal.type) {
        case "session":
          sessionId = signal.sessionId;
          return undefined;
        case "activity":
          lastPhase = signal.phase;
          return undefined;
        case "toolStart": {
          if (signal.background) {
            background.add(signal.id);
            return undefined;
          }
          const duplicate = open.has(signal.id);
          // A repeated start restarts the call's clock: never kill on the earlier one.
          open.set(signal.id, {
            id: signal.id,
            kind: signal.kind,
            label: signal.label,
            startedAt: now,
            timeoutMs: signal.timeoutMs,
            limitMs: allowanceFor(signal.kind, signal.timeoutMs),
          });
          return duplicate
            ? { code: "duplicate-start", id: signal.id, message: "tool call started twice" }
            : undefined;
        }
        case "toolEnd": {
          const call = open.get(signal.id);
          if (signal.background) {
            const label = signal.background.label ?? call?.label;
            backgroundWork.set(signal.id, {
              id: signal.id,
              aliases: signal.background.aliases ?? [],
              pid: finite(signal.background.pid),
              label,
              since: now,
            });
          }
          if (open.delete(signal.id) || background.delete(signal.id)) return undefined;
          return {
            code: "unmatched-end",
            id: signal.id,
            message: "tool call ended that never started",
          };
        }
        case "done":
          doneAt = now;
          return undefined;
        case "exit":
          exited = true;
          return undefined;
        default: {
          const unreachable: never = signal;
          return unreachable;
        }
      }
    },

    pause(now = clock()) {
      pausedAt ??= now;
    },

    resume(now = clock()) {
      if (pausedAt === undefined) return;
      // The agent can speak again: count its silence from now, and its time to exit after a
      // result without the time it could not write.
      if (doneAt !== undefined && now > pausedAt) doneAt += now - pausedAt;
      pausedAt = undefined;
      if (now > lastAt) lastAt = now;
    },

    check(now = clock()): CheckResult {
      const { verdict, kind, deadline, probe } = assess(now);
      const result: CheckResult = { verdict, reason: reasonFor(kind, verdict, now) };
      if (probe) result.probe = true;
      if (decision?.at === now && decision.report.working) result.working = decision.report;
      if ((verdict === "ok" || verdict === "waiting") && deadline && doneAt === undefined) {
        const at = warnAt(deadline);
        if (at !== undefined && now >= at && now < deadline.at) {
          warnedFor = deadline.at;
          result.warning = softWarning(deadline, now);
        }
      }
      return result;
    },

    nextDeadline,

    snapshot(now = clock()): MonitorSnapshot {
      const { verdict } = assess(now);
      let phase: Phase;
      if (exited) phase = "exited";
      else if (doneAt !== undefined) phase = "done";
      else if (open.size > 0) phase = "tool";
      else if (backgroundWork.size > 0) phase = "background";
      else if (lastEventType === undefined) phase = "starting";
      else phase = lastPhase ?? "working";
      const snapshot: MonitorSnapshot = {
        phase,
        verdict,
        elapsedMs: Math.round(now - startedAt),
        silentMs: Math.round(now - lastAt),
        openCalls: openCallDetails(now),
        background: backgroundDetails(now),
      };
      if (lastWorking && workingAt !== undefined && workingAt > lastAt) {
        snapshot.quietButWorking = lastWorking;
      }
      if (sessionId !== undefined) snapshot.sessionId = sessionId;
      if (lastEventType !== undefined) snapshot.lastEventType = lastEventType;
      const next = nextDeadline();
      if (next !== undefined) snapshot.nextDeadlineInMs = Math.max(0, Math.round(next - now));
      if (!exited) {
        const verdictAt =
          doneAt !== undefined
            ? exitDeadline().at
            : Math.min(hangDeadline().at, budgetDeadline() ?? Number.POSITIVE_INFINITY);
        snapshot.verdictInMs = Math.max(0, Math.round(verdictAt - now));
      }
      return snapshot;
    },
  };
}
