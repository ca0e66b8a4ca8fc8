/**
 * What went wrong with an agent run, in words that fit any headless coding agent. The kinds
 * say what recovers from them, not which agent printed them: recognisers (see
 * `cursor-wording.ts`) map an agent's own wording onto them.
 */
export type FailureKind =
  /** The connection to the service dropped (and the agent's own reconnects did not save it). */
  | "connection"
  /** Too many requests: HTTP 429, `resource_exhausted`, "rate limit". */
  | "rate-limit"
  /** The model or its provider is overloaded or briefly unavailable: HTTP 529/503, "overloaded". */
  | "overloaded"
  /** The stream ended mid-turn (no result) with a non-zero exit, the agent's words unrecognised. */
  | "ended-mid-turn"
  /** The hang monitor found the agent stuck and killed it. */
  | "hang"
  /** The turn ran past its wall-clock budget (`--max-turn-duration`): the user's own limit. */
  | "budget"
  /** The plan's usage limit is reached: nothing works on this model until it resets. */
  | "usage-limit"
  /** The named model is not available on this plan (only Auto is). */
  | "model-unavailable"
  /** The model name is unknown to the agent. */
  | "unknown-model"
  /** The agent speaks a protocol version this side does not support. */
  | "protocol"
  /** Not signed in, an expired or invalid key. */
  | "auth"
  /** The workspace is not trusted for headless runs. */
  | "trust"
  /** An organisation's policy forbids headless runs. */
  | "policy"
  /** A resumed session the agent does not know. */
  | "unknown-session"
  /** A session id the agent refuses (not a UUID). */
  | "session-id"
  /** An error event whose words no recogniser knows. */
  | "agent-error"
  /** The agent called a tool the turn's allow-list does not name (and the caller stopped it). */
  | "tool-not-allowed"
  /** The agent called an allowed tool with arguments its schema refuses (and was stopped). */
  | "tool-args-invalid";

/** Which part of a {@link RecoveryPolicy} answers a kind of failure. */
export type RecoveryRoute =
  /** Retry with exponential backoff, resuming the session when there is one. */
  | "backoff"
  /** Resume with the hang prompt, while the hang retries last. */
  | "hang"
  /** Wait for the reset (if asked to) or switch to a fallback model. */
  | "reset-or-fallback"
  /** Switch to a fallback model. */
  | "fallback"
  /** Try the next auth profile. */
  | "profile"
  /** Nothing: it is final. */
  | "none";

/** What the taxonomy says of one kind. */
export interface FailureKindSpec {
  /** Waiting a little and trying again may work. */
  transient: boolean;
  /** What answers it. */
  route: RecoveryRoute;
  /** A few words for people: "rate limited". */
  label: string;
}

/** The taxonomy: every kind, whether it is transient, and what answers it. */
export const FAILURE_KINDS: { readonly [Kind in FailureKind]: FailureKindSpec } = {
  connection: { transient: true, route: "backoff", label: "connection lost" },
  "rate-limit": { transient: true, route: "backoff", label: "rate limited" },
  overloaded: { transient: true, route: "backoff", label: "overloaded" },
  "ended-mid-turn": { transient: true, route: "backoff", label: "stream ended mid-turn" },
  hang: { transient: true, route: "hang", label: "hang" },
  budget: { transient: false, route: "none", label: "turn budget exceeded" },
  "usage-limit": { transient: false, route: "reset-or-fallback", label: "usage limit" },
  "model-unavailable": { transient: false, route: "fallback", label: "model unavailable" },
  "unknown-model": { transient: false, route: "fallback", label: "unknown model" },
  protocol: { transient: false, route: "fallback", label: "unsupported protocol" },
  auth: { transient: false, route: "profile", label: "not signed in" },
  trust: { transient: false, route: "none", label: "workspace not trusted" },
  policy: { transient: false, route: "none", label: "headless runs not allowed" },
  "unknown-session": { transient: false, route: "none", label: "unknown session" },
  "session-id": { transient: false, route: "none", label: "session id refused" },
  "agent-error": { transient: false, route: "none", label: "agent error" },
  "tool-not-allowed": { transient: false, route: "none", label: "tool not allowed" },
  "tool-args-invalid": { transient: false, route: "none", label: "tool arguments refused" },
};

/** Every kind, in the taxonomy's order. */
export const FAILURE_KIND_NAMES = Object.keys(FAILURE_KINDS) as readonly FailureKind[];

/** A failure, with what the agent said and what its words carry. */
export interface AgentFailure {
  kind: FailureKind;
  /** Waiting a little and trying again may work (from the kind). */
  transient: boolean;
  /** The agent's own words: the line that names the failure, trimmed. */
  detail: string;
  /** When the limit resets, epoch ms, if the agent said. */
  resetAt?: number;
  /** The reset as the agent wrote it (`11/17/2025`, `in 2h39m52s`). */
  resetText?: string;
  /** The model the agent itself suggests instead (Cursor's `fallbackModel:` line), if not empty. */
  fallbackModel?: string;
  /** The HTTP status the agent printed, if any. */
  httpStatus?: number;
}

/** A failure of `kind`, with `transient` from the taxonomy. */
export function failureOf(
  kind: FailureKind,
  detail: string,
  carried: Omit<AgentFailure, "kind" | "transient" | "detail"> = {},
): AgentFailure {
  return { kind, transient: FAILURE_KINDS[kind].transient, detail, ...carried };
}

/** Whether a value names a kind of the taxonomy. */
export function isFailureKind(value: unknown): value is FailureKind {
  return typeof value === "string" && Object.hasOwn(FAILURE_KINDS, value);
}
