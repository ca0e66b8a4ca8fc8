/** A failure the agent reported that no retry can fix (R-CLI4). */
export interface AgentFailure {
  kind:
    | "auth"
    | "plan"
    | "quota"
    | "trust"
    | "model"
    | "session-id"
    | "policy"
    | "agent-error"
    | "unknown-session";
  /** The agent's own words. */
  detail: string;
}

// The agent's wording, as CLI versions up to 2026.09 print it (published probes and captures).
// Recognised by wording where nothing better exists; a new wording is an ordinary abnormal exit.
const PATTERNS: Array<[AgentFailure["kind"], RegExp]> = [
  ["trust", /Workspace Trust Required|Pass --trust, --yolo, or -f/i],
  ["model", /Cannot use this model|Available models:/i],
  ["session-id", /Persistent-session chat ID must be a UUID|Failed to claim persistent session/i],
  [
    "policy",
    /headless (mode )?(is |has been )?(disabled|not (allowed|enabled))|disabled headless|organi[sz]ation (admin )?has disabled/i,
  ],
  ["plan", /ActionRequiredError|Named models unavailable|upgrade (your )?plan/i],
  [
    "auth",
    /Authentication required|\[unauthenticated\]|not (logged|signed) in|agent login|invalid api key|API key is invalid/i,
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

/** The one clear message shown for a failure (on stderr, exit 1), with the fix. */
export function failureMessage(failure: AgentFailure, sessionId: string | undefined): string {
  switch (failure.kind) {
    case "auth":
      return `cursor-agent is not signed in: ${failure.detail}\nRun \`cursor-agent login\` (or set CURSOR_API_KEY) and try again.`;
    case "plan":
      return `cursor-agent refused the request for your plan: ${failure.detail}`;
    case "quota":
      return `cursor-agent has hit a usage limit: ${failure.detail}`;
    case "trust":
      return `cursor-agent does not trust this workspace: ${failure.detail}\nPass --trust (or leave out --no-force: cursor-wrap passes --force by default).`;
    case "model":
      return `cursor-agent cannot use that model: ${failure.detail}\nPick one with -m/--model (cursor-wrap --list-models lists them).`;
    case "session-id":
      return `cursor-agent refused the session id: ${failure.detail}\nResume with the UUID the agent printed (cursor-wrap logs lists them), or leave out --resume.`;
    case "policy":
      return `cursor-agent may not run headless here: ${failure.detail}\nYour organisation's admin can allow it.`;
    case "agent-error":
      return `cursor-agent reported an error: ${failure.detail}`;
    case "unknown-session":
      return `cursor-agent does not know session ${sessionId ?? "?"} (it may have expired): ${failure.detail}\nStart a new session without --resume.`;
    default: {
      const unreachable: never = failure.kind;
      return unreachable;
    }
  }
}
