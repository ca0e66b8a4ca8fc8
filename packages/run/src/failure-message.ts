import { SUPPORTED_PROTOCOL_VERSIONS } from "@cursor-wrap/events";
import type { AgentFailure, RecoveryDecision, RecoveryPolicy } from "@cursor-wrap/recovery";
import { formatDuration } from "@cursor-wrap/wording";

/** The one clear message shown for a failure (on stderr, exit 1), with the fix. */
export function failureMessage(failure: AgentFailure, sessionId: string | undefined): string {
  switch (failure.kind) {
    case "auth":
      return `cursor-agent is not signed in: ${failure.detail}\nRun \`cursor-agent login\` (or set CURSOR_API_KEY) and try again.`;
    case "model-unavailable":
      return `cursor-agent refused the request for your plan: ${failure.detail}`;
    case "usage-limit":
      return `cursor-agent has hit a usage limit: ${failure.detail}`;
    case "trust":
      return `cursor-agent does not trust this workspace: ${failure.detail}\nPass --trust (or leave out --no-force: cursor-wrap passes --force by default).`;
    case "unknown-model":
      return `cursor-agent cannot use that model: ${failure.detail}\nPick one with -m/--model (cursor-wrap --list-models lists them).`;
    case "session-id":
      return `cursor-agent refused the session id: ${failure.detail}\nResume with the UUID the agent printed (cursor-wrap logs lists them), or leave out --resume.`;
    case "policy":
      return `cursor-agent may not run headless here: ${failure.detail}\nYour organisation's admin can allow it.`;
    case "agent-error":
      return `cursor-agent reported an error: ${failure.detail}`;
    case "unknown-session":
      return `cursor-agent does not know session ${sessionId ?? "?"} (it may have expired): ${failure.detail}\nStart a new session without --resume.`;
    case "rate-limit":
      return `cursor-agent is rate limited: ${failure.detail}`;
    case "overloaded":
      return `cursor-agent's model is overloaded or unavailable: ${failure.detail}`;
    case "connection":
      return `cursor-agent lost its connection: ${failure.detail}`;
    case "protocol":
      return `cursor-agent speaks ${failure.detail}, which cursor-wrap does not support (it supports ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")}); the agent was stopped`;
    case "ended-mid-turn":
      return `cursor-agent ended its turn without a result: ${failure.detail}`;
    case "hang":
      return `cursor-agent hung: ${failure.detail}`;
    case "budget":
      return `cursor-agent ran past its turn budget: ${failure.detail}`;
    case "tool-not-allowed":
      return `cursor-agent was stopped: ${failure.detail}\n(It runs its own tools: the call had already started.)`;
    case "tool-args-invalid":
      return `cursor-agent was stopped: ${failure.detail}\n(It runs its own tools: the call had already started.)`;
    default: {
      const unreachable: never = failure.kind;
      return unreachable;
    }
  }
}

/** What of the recovery policy {@link recoveryHint} reads. */
export type HintPolicy = Pick<
  RecoveryPolicy,
  "fallbackModels" | "authProfiles" | "waitForReset" | "maxWaitMs" | "maxRetries" | "hang"
>;

/** What the recovery flags could have done: one line after the message, or none. */
export function recoveryHint(
  failure: AgentFailure,
  decision: Extract<RecoveryDecision, { action: "give-up" }>,
  policy: HintPolicy,
  attempts: number,
): string | undefined {
  // Past the retries or the reset, a model of the policy's own would have gone on, had one
  // been left: either every one was tried, or (`suggested` alone) the agent named none.
  const fallback =
    policy.fallbackModels.length > 0
      ? "no --fallback-model is left to try"
      : `--fallback-model auto goes on with Cursor's Auto model${
          failure.fallbackModel
            ? ` (the agent suggests ${failure.fallbackModel}: --fallback-model suggested)`
            : ""
        }`;
  switch (decision.reason) {
    case "final":
      return undefined;
    case "retries-spent": {
      // The retries count per model (a fallback model has as many again) and hangs have their
      // own; `attempts` are all of the run's.
      const tried = `Gave up after ${attempts} attempt${attempts === 1 ? "" : "s"}`;
      if (failure.kind === "hang")
        return `${tried} (--max-hang-retries ${policy.hang.maxRetries}).`;
      const switches = policy.fallbackModels.length > 0 && SWITCHES_MODEL.has(failure.kind);
      return `${tried} (--max-retries ${policy.maxRetries}${
        switches ? " on each model" : ""
      })${switches ? `; ${fallback}` : ""}.`;
    }
    case "no-fallback":
    case "reset-too-far": {
      const reset = resetHint(failure, decision, policy);
      return reset
        ? `${reset}; ${fallback}.`
        : `${fallback.charAt(0).toUpperCase()}${fallback.slice(1)}.`;
    }
    case "no-profile":
      return policy.authProfiles.length > 0 ? "Every --auth-profile was tried." : undefined;
    case "no-hang-retry":
      return undefined;
    default: {
      const unreachable: never = decision.reason;
      return unreachable;
    }
  }
}

/** The failures after whose retries the policy goes on with a fallback model. */
const SWITCHES_MODEL: ReadonlySet<AgentFailure["kind"]> = new Set(["rate-limit", "overloaded"]);

/**
 * When the limit resets, and what would have waited for it: `--wait-for-reset` when waiting
 * was off (with a long enough `--max-wait` when the reset is past it), nothing when the run
 * had waited once already, a longer `--max-wait` when it was too far.
 */
function resetHint(
  failure: AgentFailure,
  decision: Extract<RecoveryDecision, { action: "give-up" }>,
  policy: Pick<RecoveryPolicy, "waitForReset" | "maxWaitMs">,
): string | undefined {
  const { resetInMs } = decision;
  const when = failure.resetText
    ? `It resets ${failure.resetText}`
    : resetInMs === undefined
      ? undefined
      : `It resets in ${formatDuration(resetInMs)}`;
  if (when === undefined) return undefined;
  const maxWait = `--max-wait (${formatDuration(policy.maxWaitMs)})`;
  const beyondMaxWait = resetInMs !== undefined && resetInMs > policy.maxWaitMs;
  switch (decision.wait) {
    case "off":
      return beyondMaxWait
        ? `${when}, later than ${maxWait}: --wait-for-reset --max-wait ${durationAtLeast(resetInMs)} waits for it`
        : `${when}: --wait-for-reset waits for it (up to ${maxWait})`;
    case "waited":
      return `${when}; the run already waited for a reset once`;
    case "too-far":
      return `${when}, later than ${maxWait}`;
    default:
      // A decision that does not say (made by another policy): what the reason itself says.
      return decision.reason === "reset-too-far" ? `${when}, later than ${maxWait}` : when;
  }
}

/** A `--max-wait` value no shorter than `ms`: whole hours, or whole days past two. */
function durationAtLeast(ms: number): string {
  const hours = Math.ceil(ms / 3_600_000);
  return hours > 48 ? `${Math.ceil(ms / 86_400_000)}d` : `${hours}h`;
}
