import { formatDuration } from "@cursor-wrap/wording";
import { type BackoffOptions, backoffDelay } from "./backoff.js";
import { DEFAULT_CONTINUE_PROMPT, DEFAULT_POLICY } from "./defaults.js";
import { type AgentFailure, FAILURE_KINDS, type FailureKind } from "./failure.js";

/** What the recovery policy may do, and how far it may go. */
export interface RecoveryPolicy {
  /**
   * Retries after transient failures (connection lost, rate limited, overloaded, stream ended
   * mid-turn), per prompt and model. 0: none.
   */
  maxRetries: number;
  /** How those retries are spaced. */
  backoff: BackoffOptions;
  /**
   * Models to switch to, in order, on a usage limit, an unavailable or unknown model, an
   * unsupported protocol, or a rate limit or overload that outlasted the retries. Two words are
   * special: `auto` (Cursor's Auto model, which every plan may use) and `suggested` (the model
   * the agent names itself, skipped when it names none). Each model is tried once.
   */
  fallbackModels: readonly string[];
  /** On a limit that says when it resets: wait for it (up to `maxWaitMs`) and resume. */
  waitForReset: boolean;
  /** The longest wait for a reset, ms. */
  maxWaitMs: number;
  /** Auth profiles (names) to try in order on an auth failure, each once. */
  authProfiles: readonly string[];
  /** After a hang: resume with `prompt`, at most `maxRetries` times per prompt; no prompt, no retry. */
  hang: { prompt: string | undefined; maxRetries: number };
  /** Resuming a session whose work a failure interrupted: the prompt that asks it to go on. */
  continuePrompt: string;
}

export { DEFAULT_CONTINUE_PROMPT, DEFAULT_POLICY };

/** What the next attempt is sent. */
export type NextPrompt =
  /** The user's prompt again: no session to resume, or nothing of it was done yet. */
  | { kind: "original" }
  /** A prompt that asks the resumed session to go on: work was done, it must not be redone. */
  | { kind: "continue"; text: string };

/** What every decision to try again says. */
export interface NextAttempt {
  /** Wait this long first, ms (backoff, or until a reset). */
  delayMs: number;
  /** The session to resume; undefined: a new session. */
  resume: string | undefined;
  prompt: NextPrompt;
  /** Which try of its kind this is (1 for the first) … */
  attempt: number;
  /** … and how many there may be: "retry 2 of 3", "fallback 1 of 2". */
  maxAttempts: number;
  /** One line for people: what happened and what comes next. */
  why: string;
}

/** Why the policy stops. */
export type GiveUpReason =
  /** No retry can fix this kind of failure. */
  | "final"
  /** The retries (or hang retries) are spent. */
  | "retries-spent"
  /** No fallback model is configured, or every one was tried. */
  | "no-fallback"
  /** No auth profile is configured, or every one was tried. */
  | "no-profile"
  /** The limit resets (or the agent asks to come back) later than the run may wait. */
  | "reset-too-far"
  /** Hang retries are off, or there is no session to resume. */
  | "no-hang-retry";

/** What to do after a failed attempt. */
export type RecoveryDecision =
  /** Run the prompt again in a new session (the agent had not announced one). */
  | ({ action: "retry" } & NextAttempt)
  /** Resume the same session. */
  | ({ action: "resume" } & NextAttempt)
  /** Go on with another model. `suggested`: the agent named it. */
  | ({ action: "switch-model"; model: string; suggested: boolean } & NextAttempt)
  /** Go on with the next auth profile. */
  | ({ action: "switch-profile"; profile: string } & NextAttempt)
  /** Wait until the limit resets (epoch ms), then go on. */
  | ({ action: "wait-until"; untilMs: number } & NextAttempt)
  | ({ action: "give-up"; reason: GiveUpReason; why: string } & ResetNotWaited);

/**
 * Why a give-up after a failure that said when to come back (a limit's reset, a rate limit's
 * "try again in") did not wait for it: waiting was `off`, the run had `waited` once already,
 * or the time was `too-far` (past `maxWaitMs`). What a person could change is different for each.
 */
export type WaitRefusal = "off" | "waited" | "too-far";

/** On a give-up after a failure that said when to come back: how far that was, and why it was not waited for. */
export interface ResetNotWaited {
  /** How long until the reset, ms, at the decision. */
  resetInMs?: number;
  wait?: WaitRefusal;
}

/** The decisions' names. */
export type RecoveryAction = RecoveryDecision["action"];

/** An earlier attempt of the same prompt and what was decided after it. */
export interface PastAttempt {
  failure: FailureKind | undefined;
  action: RecoveryAction | undefined;
  model: string | undefined;
  profile: string | undefined;
}

/** The prompt's attempts so far, and where the failed one left things. */
export interface RecoveryHistory {
  /** Earlier attempts of this prompt, oldest first, each with what was decided after it. */
  previous: readonly PastAttempt[];
  /** The session the agent announced (or the one resumed), if any. */
  sessionId: string | undefined;
  /** The model the failed attempt ran on; undefined: the agent's default. */
  model: string | undefined;
  /** The auth profile it ran with; undefined: the user's own sign-in. */
  profile: string | undefined;
  /** It did work (tool calls, text): a resume asks to go on rather than repeat the prompt. */
  progressed: boolean;
}

/** The time and chance a decision may depend on (injectable for tests). */
export interface RecoveryClock {
  /** Wall clock, epoch ms. */
  now(): number;
  /** A number in [0, 1), for the backoff's jitter. */
  random(): number;
}

const REAL_CLOCK: RecoveryClock = { now: () => Date.now(), random: () => Math.random() };

const same = (a: string | undefined, b: string | undefined): boolean =>
  a !== undefined && b !== undefined && a.toLowerCase() === b.toLowerCase();

const plural = (count: number, one: string, many: string): string =>
  `${count} ${count === 1 ? one : many}`;

/** Resume the session when there is one: with the continue prompt if work was done. */
function continuation(
  history: RecoveryHistory,
  policy: RecoveryPolicy,
): Pick<NextAttempt, "resume" | "prompt"> {
  if (history.sessionId === undefined) return { resume: undefined, prompt: { kind: "original" } };
  return {
    resume: history.sessionId,
    prompt: history.progressed
      ? { kind: "continue", text: policy.continuePrompt }
      : { kind: "original" },
  };
}

const how = (next: Pick<NextAttempt, "resume" | "prompt">): string =>
  next.resume === undefined
    ? "running the prompt again"
    : next.prompt.kind === "continue"
      ? "resuming the session"
      : "resuming the session with the prompt";

/** The next model of the chain not tried yet in this prompt. */
function nextFallback(
  failure: AgentFailure,
  history: RecoveryHistory,
  policy: RecoveryPolicy,
): { model: string; suggested: boolean } | undefined {
  const tried = [history.model, ...history.previous.map((attempt) => attempt.model)];
  for (const entry of policy.fallbackModels) {
    const suggested = entry.toLowerCase() === "suggested";
    const model = suggested ? failure.fallbackModel?.trim() : entry.trim();
    if (!model) continue;
    if (tried.some((used) => same(used, model))) continue;
    return { model, suggested };
  }
  return undefined;
}

function switchModel(
  failure: AgentFailure,
  history: RecoveryHistory,
  policy: RecoveryPolicy,
  label: string,
): RecoveryDecision | undefined {
  const fallback = nextFallback(failure, history, policy);
  if (!fallback) return undefined;
  const next = continuation(history, policy);
  const switches = history.previous.filter((attempt) => attempt.action === "switch-model").length;
  return {
    action: "switch-model",
    model: fallback.model,
    suggested: fallback.suggested,
    delayMs: 0,
    ...next,
    attempt: switches + 1,
    maxAttempts: Math.max(policy.fallbackModels.length, switches + 1),
    why: `${label}${history.model ? ` on ${history.model}` : ""}: switching to ${fallback.model}${
      fallback.suggested ? " (the agent's suggestion)" : ""
    }, ${how(next)}`,
  };
}

function noFallback(
  policy: RecoveryPolicy,
  label: string,
): Extract<RecoveryDecision, { action: "give-up" }> {
  return {
    action: "give-up",
    reason: "no-fallback",
    why: `${label}: ${
      policy.fallbackModels.length === 0
        ? "no fallback model is configured"
        : "every fallback model was tried"
    }`,
  };
}

function waitUntil(
  failure: AgentFailure,
  history: RecoveryHistory,
  policy: RecoveryPolicy,
  waitMs: number,
  label: string,
): RecoveryDecision {
  const next = continuation(history, policy);
  return {
    action: "wait-until",
    untilMs: failure.resetAt!,
    delayMs: waitMs,
    ...next,
    attempt: 1,
    maxAttempts: 1,
    why: `${label}: waiting ${formatDuration(waitMs)} until it resets${
      failure.resetText ? ` (${failure.resetText})` : ""
    }, then ${how(next)}`,
  };
}

/** After a transient failure: backoff while the retries last (on this model), then a fallback. */
function afterTransient(
  failure: AgentFailure,
  history: RecoveryHistory,
  policy: RecoveryPolicy,
  clock: RecoveryClock,
  label: string,
): RecoveryDecision {
  const used = history.previous.filter(
    (attempt) =>
      attempt.failure !== undefined &&
      FAILURE_KINDS[attempt.failure].route === "backoff" &&
      attempt.action !== "give-up" &&
      attempt.action !== "switch-model" &&
      (attempt.model ?? "") === (history.model ?? ""),
  ).length;
  if (used < policy.maxRetries) {
    const retry = used + 1;
    let delayMs = backoffDelay(retry, policy.backoff, clock.random);
    if (failure.resetAt !== undefined) {
      // The agent said when to come back: never sooner. Past the backoff's ceiling that is a
      // wait for a reset (when asked for), else another model; a retry before it would only
      // spend the retries.
      const hint = failure.resetAt - clock.now();
      if (hint > policy.backoff.maxMs) return beyondBackoff(failure, history, policy, hint, label);
      if (hint > delayMs) delayMs = Math.round(hint);
    }
    const next = continuation(history, policy);
    return {
      action: next.resume === undefined ? "retry" : "resume",
      delayMs,
      ...next,
      attempt: retry,
      maxAttempts: policy.maxRetries,
      why: `${label}: retry ${retry} of ${policy.maxRetries} in ${formatDuration(delayMs)}, ${how(next)}`,
    };
  }
  if (failure.kind === "rate-limit" || failure.kind === "overloaded") {
    const switched = switchModel(failure, history, policy, label);
    if (switched) return switched;
  }
  return {
    action: "give-up",
    reason: "retries-spent",
    why: `${label}: gave up after ${plural(used, "retry", "retries")}`,
  };
}

/** A transient failure whose agent asks to come back later than the backoff's ceiling. */
function beyondBackoff(
  failure: AgentFailure,
  history: RecoveryHistory,
  policy: RecoveryPolicy,
  hintMs: number,
  label: string,
): RecoveryDecision {
  const waited = history.previous.some((attempt) => attempt.action === "wait-until");
  if (policy.waitForReset && hintMs <= policy.maxWaitMs && !waited) {
    return waitUntil(failure, history, policy, hintMs, label);
  }
  if (failure.kind === "rate-limit" || failure.kind === "overloaded") {
    const switched = switchModel(failure, history, policy, label);
    if (switched) return switched;
  }
  const wait = refusal(policy, waited);
  const why =
    wait === "off"
      ? "waiting for a reset is off"
      : wait === "waited"
        ? "the run already waited for a reset once"
        : `that is past the longest wait (${formatDuration(policy.maxWaitMs)})`;
  return {
    action: "give-up",
    reason: "reset-too-far",
    why: `${label}: the agent asks to try again in ${formatDuration(hintMs)}${
      failure.resetText ? ` (${failure.resetText})` : ""
    }, later than a retry's longest backoff (${formatDuration(policy.backoff.maxMs)}), and ${why}`,
    resetInMs: hintMs,
    wait,
  };
}

/** Why a reset is not waited for, when the policy does not wait for it. */
function refusal(policy: RecoveryPolicy, waited: boolean): WaitRefusal {
  if (!policy.waitForReset) return "off";
  return waited ? "waited" : "too-far";
}

function afterHang(history: RecoveryHistory, policy: RecoveryPolicy): RecoveryDecision {
  const { prompt, maxRetries } = policy.hang;
  if (prompt === undefined || history.sessionId === undefined) {
    return {
      action: "give-up",
      reason: "no-hang-retry",
      why: `hang: ${prompt === undefined ? "hang retries are off (no prompt to resume with)" : "no session to resume"}`,
    };
  }
  const used = history.previous.filter(
    (attempt) => attempt.failure === "hang" && attempt.action === "resume",
  ).length;
  if (used >= maxRetries) {
    return {
      action: "give-up",
      reason: "retries-spent",
      why: `hang: gave up after ${plural(used, "hang retry", "hang retries")}`,
    };
  }
  return {
    action: "resume",
    delayMs: 0,
    resume: history.sessionId,
    prompt: { kind: "continue", text: prompt },
    attempt: used + 1,
    maxAttempts: maxRetries,
    why: `hang: retry ${used + 1} of ${maxRetries}, resuming the session with ${JSON.stringify(prompt)}`,
  };
}

function afterLimit(
  failure: AgentFailure,
  history: RecoveryHistory,
  policy: RecoveryPolicy,
  clock: RecoveryClock,
  label: string,
): RecoveryDecision {
  const waited = history.previous.some((attempt) => attempt.action === "wait-until");
  let tooFar: number | undefined;
  if (policy.waitForReset && failure.resetAt !== undefined && !waited) {
    const waitMs = Math.max(0, failure.resetAt - clock.now());
    if (waitMs <= policy.maxWaitMs) return waitUntil(failure, history, policy, waitMs, label);
    tooFar = waitMs;
  }
  const switched = switchModel(failure, history, policy, label);
  if (switched) return switched;
  if (tooFar !== undefined) {
    return {
      action: "give-up",
      reason: "reset-too-far",
      why: `${label}: it resets in ${formatDuration(tooFar)}${
        failure.resetText ? ` (${failure.resetText})` : ""
      }, past the longest wait (${formatDuration(policy.maxWaitMs)}), and ${
        policy.fallbackModels.length === 0
          ? "no fallback model is configured"
          : "every fallback model was tried"
      }`,
      resetInMs: tooFar,
      wait: "too-far",
    };
  }
  const given = noFallback(policy, label);
  if (failure.resetAt === undefined) return given;
  const resetInMs = Math.max(0, failure.resetAt - clock.now());
  return { ...given, resetInMs, wait: refusal(policy, waited) };
}

function afterAuth(
  history: RecoveryHistory,
  policy: RecoveryPolicy,
  label: string,
): RecoveryDecision {
  const tried = [history.profile, ...history.previous.map((attempt) => attempt.profile)];
  const index = policy.authProfiles.findIndex((profile) => !tried.includes(profile));
  if (index === -1) {
    return {
      action: "give-up",
      reason: "no-profile",
      why: `${label}: ${
        policy.authProfiles.length === 0
          ? "no auth profile is configured"
          : "every auth profile was tried"
      }`,
    };
  }
  const profile = policy.authProfiles[index]!;
  // Another account may not know this session: start afresh unless work would be lost.
  const next = history.progressed
    ? continuation(history, policy)
    : { resume: undefined, prompt: { kind: "original" } as const };
  return {
    action: "switch-profile",
    profile,
    delayMs: 0,
    ...next,
    attempt: index + 1,
    maxAttempts: policy.authProfiles.length,
    why: `${label}: trying auth profile ${JSON.stringify(profile)} (${index + 1} of ${policy.authProfiles.length}), ${how(next)}`,
  };
}

/**
 * What to do after a failed attempt (pure: the same failure, history, policy and clock give the
 * same decision).
 *
 * | failure | decision |
 * |---|---|
 * | connection, rate limit, overloaded, ended mid-turn | retry after a backoff (`maxRetries` per model), never sooner than the agent's "try again in …", resuming the session when there is one; a rate limit or overload that outlasts them switches to the next fallback model. A "try again in …" past the backoff's ceiling: wait for it if asked to (as a reset), else the next fallback model, else give up |
 * | hang | resume with the hang prompt, `hang.maxRetries` times; no prompt or no session: give up |
 * | usage limit | wait for the reset if asked to and it is within `maxWaitMs` (once), else the next fallback model, else give up |
 * | model unavailable, unknown model, unsupported protocol | the next fallback model, else give up |
 * | auth | the next auth profile (each once), else give up |
 * | trust, policy, unknown session, session id, agent error, budget | give up |
 *
 * Nothing loops: every path counts what it used in `history`, and each budget is finite.
 */
export function decideRecovery(
  failure: AgentFailure,
  history: RecoveryHistory,
  policy: RecoveryPolicy,
  clock: RecoveryClock = REAL_CLOCK,
): RecoveryDecision {
  const spec = FAILURE_KINDS[failure.kind];
  const label = failure.httpStatus ? `${spec.label} (HTTP ${failure.httpStatus})` : spec.label;
  switch (spec.route) {
    case "backoff":
      return afterTransient(failure, history, policy, clock, label);
    case "hang":
      return afterHang(history, policy);
    case "reset-or-fallback":
      return afterLimit(failure, history, policy, clock, label);
    case "fallback":
      return switchModel(failure, history, policy, label) ?? noFallback(policy, label);
    case "profile":
      return afterAuth(history, policy, label);
    case "none":
      return { action: "give-up", reason: "final", why: `${label}: not something a retry can fix` };
    default: {
      const unreachable: never = spec.route;
      return unreachable;
    }
  }
}
