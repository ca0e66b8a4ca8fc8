import { formatDuration } from "./format-duration.js";
import type {
  CheckResult,
  Monitor,
  MonitorOptions,
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
  kind: "idle" | "tool";
  at: number;
  anchor: number;
  span: number;
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

  // A declared timeout is the agent's word: only a finite, non-negative one counts.
  const allowanceFor = (kind: string, declared: number | undefined): number =>
    (declared !== undefined && Number.isFinite(declared) && declared >= 0
      ? declared
      : (toolTimeouts.get(kind) ?? idleTimeoutMs)) + toolGraceMs;

  function hangDeadline(): HangDeadline {
    if (open.size === 0) {
      return { kind: "idle", at: lastAt + idleTimeoutMs, anchor: lastAt, span: idleTimeoutMs };
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
    const silenceAt = lastAt + toolGraceMs;
    return silenceAt > callsExpireAt
      ? { kind: "tool", at: silenceAt, anchor: lastAt, span: toolGraceMs }
      : { kind: "tool", at: callsExpireAt, anchor: latest!.startedAt, span: latest!.limitMs };
  }

  const budgetDeadline = (): number | undefined =>
    maxTurnMs === undefined ? undefined : startedAt + maxTurnMs;

  function warnAt(deadline: HangDeadline): number | undefined {
    if (warnFraction === 0 || warnedFor === deadline.at) return undefined;
    return deadline.anchor + deadline.span * warnFraction;
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

  function reasonFor(kind: ReasonKind, verdict: Verdict, now: number): Reason {
    const idleMs = Math.round(now - lastAt);
    const openCalls = openCallDetails(now);
    const last = lastEventType ? ` (last event: ${lastEventType})` : " (no output yet)";
    let message: string;
    switch (kind) {
      case "idle":
        message = `no output for ${formatDuration(idleMs)} with no tool running${last}`;
        break;
      case "tool":
        message = `${openCalls.length} tool call${openCalls.length === 1 ? "" : "s"} past ${
          openCalls.length === 1 ? "its deadline" : "their deadlines"
        }, silent for ${formatDuration(idleMs)}: ${describeCalls(openCalls)}${last}`;
        break;
      case "linger":
        message = `process still running ${formatDuration(now - (doneAt ?? now))} after its result`;
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
    if (lastEventType !== undefined) reason.lastEventType = lastEventType;
    if (sessionId !== undefined) reason.sessionId = sessionId;
    return reason;
  }

  function assess(now: number): { verdict: Verdict; kind: ReasonKind; deadline?: HangDeadline } {
    if (exited) return { verdict: "ok", kind: "none" };
    if (pausedAt !== undefined) {
      // Silence is not the agent's while its output waits on us: only the budget runs on.
      const budgetAt = budgetDeadline();
      return budgetAt !== undefined && now >= budgetAt
        ? { verdict: "budget", kind: "budget" }
        : { verdict: open.size > 0 ? "waiting" : "ok", kind: "none" };
    }
    if (doneAt !== undefined) {
      return now >= doneAt + exitGraceMs
        ? { verdict: "linger", kind: "linger" }
        : { verdict: "ok", kind: "none" };
    }
    const deadline = hangDeadline();
    const budgetAt = budgetDeadline();
    const hangDue = now >= deadline.at;
    const budgetDue = budgetAt !== undefined && now >= budgetAt;
    if (hangDue && (!budgetDue || deadline.at <= budgetAt!)) {
      return { verdict: "hang", kind: deadline.kind, deadline };
    }
    if (budgetDue) return { verdict: "budget", kind: "budget", deadline };
    return { verdict: open.size > 0 ? "waiting" : "ok", kind: "none", deadline };
  }

  function nextDeadline(): number | undefined {
    if (exited) return undefined;
    if (pausedAt !== undefined) return budgetDeadline();
    if (doneAt !== undefined) return doneAt + exitGraceMs;
    const deadline = hangDeadline();
    let next = deadline.at;
    const budgetAt = budgetDeadline();
    if (budgetAt !== undefined && budgetAt < next) next = budgetAt;
    const warning = warnAt(deadline);
    if (warning !== undefined && warning < next) next = warning;
    return next;
  }

  return {
    observe(signal, now = clock()) {
      if (now > lastAt) lastAt = now;
      lastEventType = signal.eventType ?? signal.type;
      if (exited) return undefined;
      if (doneAt !== undefined && signal.type !== "exit") {
        if (warnedAfterDone) return undefined;
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
        case "toolEnd":
          if (open.delete(signal.id) || background.delete(signal.id)) return undefined;
          return {
            code: "unmatched-end",
            id: signal.id,
            message: "tool call ended that never started",
          };
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
      const { verdict, kind, deadline } = assess(now);
      const result: CheckResult = { verdict, reason: reasonFor(kind, verdict, now) };
      if ((verdict === "ok" || verdict === "waiting") && deadline && doneAt === undefined) {
        const at = warnAt(deadline);
        if (at !== undefined && now >= at) {
          warnedFor = deadline.at;
          const warning: SoftWarning = {
            kind: deadline.kind,
            firesInMs: Math.round(deadline.at - now),
            message:
              deadline.kind === "idle"
                ? `quiet for ${formatDuration(now - lastAt)}; hang in ${formatDuration(deadline.at - now)} if nothing arrives`
                : `tool call${open.size === 1 ? "" : "s"} running long; hang in ${formatDuration(
                    deadline.at - now,
                  )}: ${describeCalls(openCallDetails(now))}`,
          };
          result.warning = warning;
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
      else if (lastEventType === undefined) phase = "starting";
      else phase = lastPhase ?? "working";
      const snapshot: MonitorSnapshot = {
        phase,
        verdict,
        elapsedMs: Math.round(now - startedAt),
        silentMs: Math.round(now - lastAt),
        openCalls: openCallDetails(now),
      };
      if (sessionId !== undefined) snapshot.sessionId = sessionId;
      if (lastEventType !== undefined) snapshot.lastEventType = lastEventType;
      const next = nextDeadline();
      if (next !== undefined) snapshot.nextDeadlineInMs = Math.max(0, Math.round(next - now));
      if (!exited) {
        const verdictAt =
          doneAt !== undefined
            ? doneAt + exitGraceMs
            : Math.min(hangDeadline().at, budgetDeadline() ?? Number.POSITIVE_INFINITY);
        snapshot.verdictInMs = Math.max(0, Math.round(verdictAt - now));
      }
      return snapshot;
    },
  };
}
