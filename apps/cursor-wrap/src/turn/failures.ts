/** A failure the agent reported that no retry can fix (R-CLI4). */
export interface AgentFailure {
  kind: "auth" | "plan" | "quota" | "agent-error" | "unknown-session";
  /** The agent's own words. */
  detail: string;
}

const PATTERNS: Array<[AgentFailure["kind"], RegExp]> = [
  ["plan", /ActionRequiredError|Named models unavailable|upgrade (your )?plan/i],
  [
    "auth",
    /Authentication required|\[unauthenticated\]|not (logged|signed) in|agent login|invalid api key/i,
  ],
  ["quota", /usage limit|spendLimitHit|quota exceeded|out of credits/i],
];

const UNKNOWN_SESSION =
  /\b(chat|session|conversation)\b[^\n]{0,80}\b(not found|does not exist|doesn't exist|unknown|no longer available|expired)\b|\bno (chat|session|conversation) (found|with)\b/i;

/**
 * Classify a line of agent output (stderr, or a non-JSON stdout line) as a failure that must
 * not be retried, if it is one. `resuming` enables the "unknown session" check.
 */
export function classifyFailureLine(line: string, resuming: boolean): AgentFailure | undefined {
  const detail = line.trim();
  if (!detail) return undefined;
  for (const [kind, pattern] of PATTERNS) if (pattern.test(detail)) return { kind, detail };
  if (resuming && UNKNOWN_SESSION.test(detail)) return { kind: "unknown-session", detail };
  return undefined;
}

/** The one clear message shown for a failure (on stderr, exit 1). */
export function failureMessage(failure: AgentFailure, sessionId: string | undefined): string {
  switch (failure.kind) {
    case "auth":
      return `cursor-agent is not signed in: ${failure.detail}\nRun \`cursor-agent login\` (or set CURSOR_API_KEY) and try again.`;
    case "plan":
      return `cursor-agent refused the request for your plan: ${failure.detail}`;
    case "quota":
      return `cursor-agent has hit a usage limit: ${failure.detail}`;
    case "agent-error":
      return `cursor-agent reported an error: ${failure.detail}`;
    case "unknown-session":
      return `cursor-agent does not know session ${sessionId ?? "?"} (it may have expired): ${failure.detail}\nStart a new session without --resume.`;
  }
}
