import { shellWord, terminalSafeJson } from "@cursor-wrap/events";
import type { WrapperDecision } from "./types.js";

const SUBTYPES = {
  hang: "hang_detected",
  linger: "linger_killed",
  budget: "budget_exceeded",
  retry: "retry",
  cancelled: "cancelled",
  error: "abnormal_exit",
} as const;

/** The `subtype` of the synthetic line for a decision. */
export function wrapperSubtype(decision: WrapperDecision): string {
  return SUBTYPES[decision.kind];
}

/**
 * Whether a decision's line says how to resume its session: one that ends the stream with a
 * session, unless the agent said it does not know that session.
 */
export function offersResume(decision: WrapperDecision): boolean {
  if (!isTerminal(decision) || !decision.sessionId) return false;
  return !(decision.kind === "error" && decision.failure === "unknown-session");
}

/** Whether a decision ends the stream (and so carries the resume hint and partial result). */
export function isTerminal(decision: WrapperDecision): boolean {
  return decision.kind === "retry" ? false : decision.terminal;
}

/**
 * The synthetic `{"type":"wrapper",...}` line for a decision (R-FMT1). A terminal line carries
 * the reason, the session id, a resume hint and the assistant text so far, so a consumer that
 * reads only the last line still knows why the stream stopped and what was said.
 */
export function wrapperLine(
  decision: WrapperDecision,
  partialResult: string,
  epochMs = Date.now(),
): string {
  const line: Record<string, unknown> = { type: "wrapper", subtype: wrapperSubtype(decision) };
  switch (decision.kind) {
    case "hang":
    case "linger":
    case "budget":
      line.verdict = decision.kind;
      line.reason = decision.reason.message;
      line.detail = decision.reason;
      break;
    case "retry":
      line.attempt = decision.attempt;
      line.max_attempts = decision.maxAttempts;
      if (decision.prompt !== undefined) line.prompt = decision.prompt;
      line.reason = decision.message ?? decision.reason?.message ?? "retry";
      if (decision.failure !== undefined) line.kind = decision.failure;
      if (decision.action !== undefined) line.action = decision.action;
      if (decision.model !== undefined) line.model = decision.model;
      if (decision.profile !== undefined) line.profile = decision.profile;
      if (decision.waitMs !== undefined) line.wait_ms = decision.waitMs;
      break;
    case "cancelled":
      line.reason = decision.signal ? `cancelled by ${decision.signal}` : "cancelled";
      break;
    case "error":
      line.reason = decision.message;
      if (decision.attempts !== undefined) line.attempts = decision.attempts;
      break;
  }
  if (decision.sessionId) line.session_id = decision.sessionId;
  if (isTerminal(decision)) {
    if (offersResume(decision))
      line.resume = `cursor-wrap --resume ${shellWord(decision.sessionId!)}`;
    line.partial_result = partialResult;
  }
  line.timestamp_ms = epochMs;
  // cursor-wrap's own line, not the agent's bytes: the agent's text in it (a partial result, a
  // reason) is escaped where a terminal would act on it (C1 controls, bidi overrides), as JSON
  // that reads the same.
  return `${terminalSafeJson(JSON.stringify(line))}\n`;
}
