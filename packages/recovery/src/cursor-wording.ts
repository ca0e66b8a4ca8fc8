import { type AgentFailure, type FailureKind, failureOf } from "./failure.js";
import { parseResetTime } from "./reset-time.js";

// Cursor's wording, as cursor-agent printed it up to CLI 2026.09 (each pattern is quoted with
// its source in `__fixtures__/cursor-wording.ts`). Recognised by wording because nothing
// better exists: cursor-agent has no error codes on its stream. A wording no rule knows is an
// ordinary abnormal exit. Order matters: the first rule that matches a line decides.
/** The recognisers, in order: the first that matches a line names its failure. */
export const CURSOR_RULES: ReadonlyArray<readonly [FailureKind, RegExp]> = [
  ["trust", /Workspace Trust Required|Pass --trust, --yolo, or -f/i],
  ["unknown-model", /Cannot use this model|Available models:/i],
  ["session-id", /Persistent-session chat ID must be a UUID|Failed to claim persistent session/i],
  [
    "policy",
    /headless (mode )?(is |has been )?(disabled|not (allowed|enabled))|disabled headless|organi[sz]ation (admin )?has disabled/i,
  ],
  [
    "auth",
    /Authentication required|\[unauthenticated\]|not (logged|signed) in|agent login|invalid api key|API key is invalid/i,
  ],
  // A quota per minute or second is a rate limit (it clears by itself), not a usage limit.
  ["rate-limit", /\bquota\b[^\n]{0,200}(per[ -]?(minute|second)|\b(RPM|TPM)\b)/i],
  // Before a plan's refusal of a model: a usage-limit message may also say to upgrade.
  [
    "usage-limit",
    // Hit, not a warning that it is near ("approaching your usage limit").
    /(?<!\b(?:approaching|nearing|near|close to)\s+(?:your\s+|the\s+)?)usage limit|spendLimitHit|quota exceeded|exceeded your current quota|out of credits/i,
  ],
  [
    "model-unavailable",
    /ActionRequiredError|Named models unavailable|upgrade (your )?plan|does not work with your current plan/i,
  ],
  [
    "rate-limit",
    // "rate limited, retrying in 1s" is the CLI retrying by itself: not a failure (yet).
    /\brate[ -]?limit(ed| exceeded)?\b(?![^\n]{0,20}\bretrying\b)|\bresource[_ ]exhausted\b|\btoo many requests\b|\b(HTTP(\/[\d.]+)?|status( code)?|code|error( code)?)[^A-Za-z0-9\n]{0,4}429\b/i,
  ],
  [
    "overloaded",
    /\boverloaded(_error)?\b|trouble connecting to the model provider|unable to reach the model provider|\b(HTTP(\/[\d.]+)?|status( code)?|code|error( code)?)[^A-Za-z0-9\n]{0,4}(529|503)\b/i,
  ],
  [
    "connection",
    /\bConnection failed\b|\[unavailable\]|\b(ECONNRESET|ECONNREFUSED|ETIMEDOUT|ENOTFOUND|EAI_AGAIN)\b|\bsocket hang up\b/i,
  ],
];

// Every rule in one search (they are all case-insensitive): most lines name no failure (a
// stderr line of progress, a line of tool output), and each costs one search instead of ten.
const ANY_RULE = new RegExp(
  CURSOR_RULES.map(([, pattern]) => `(?:${pattern.source})`).join("|"),
  "i",
);

const UNKNOWN_SESSION =
  /\b(chat|session|conversation)\b[^\n]{0,80}\b(not found|does not exist|doesn't exist|unknown|no longer available|expired)\b|\bno (chat|session|conversation) (found|with)\b/i;

const HTTP_STATUS =
  /\b(?:HTTP(?:\/[\d.]+)?|status(?: code)?|code|error(?: code)?)\D{0,12}([1-5]\d\d)\b/i;
const BARE_STATUS = /\b(429|529)\b/;
const FALLBACK_MODEL = /\bfallbackModel:[ \t]*([^\s]*)/;

/** Options of the Cursor recognisers. */
export interface CursorWordingOptions {
  /** A `--resume` turn: "session not found" wording is then a failure of its own. */
  resuming: boolean;
  /** Wall clock, epoch ms, for resets given as a span ("resets in 2h"). Default `Date.now`. */
  now?: () => number;
}

/** The HTTP status a message names, if any. */
function httpStatusOf(text: string): number | undefined {
  const status = HTTP_STATUS.exec(text)?.[1] ?? BARE_STATUS.exec(text)?.[1];
  return status === undefined ? undefined : Number(status);
}

/** What a message carries besides its kind: the reset, the suggested model, the HTTP status. */
function carried(text: string, now: number): Omit<AgentFailure, "kind" | "transient" | "detail"> {
  const result: Omit<AgentFailure, "kind" | "transient" | "detail"> = {};
  const reset = parseResetTime(text, now);
  if (reset) Object.assign(result, reset);
  const fallbackModel = FALLBACK_MODEL.exec(text)?.[1];
  if (fallbackModel) result.fallbackModel = fallbackModel;
  const status = httpStatusOf(text);
  if (status !== undefined) result.httpStatus = status;
  return result;
}

/**
 * Recognise one line of cursor-agent's output (a stderr line, a text line on stdout, or an
 * error event's message) as a failure, if it names one.
 */
export function recognizeCursorLine(
  line: string,
  options: CursorWordingOptions,
): AgentFailure | undefined {
  const detail = line.trim();
  if (!detail) return undefined;
  if (ANY_RULE.test(detail)) {
    for (const [kind, pattern] of CURSOR_RULES) {
      if (pattern.test(detail)) {
        return failureOf(kind, detail, carried(detail, (options.now ?? Date.now)()));
      }
    }
  }
  if (options.resuming && UNKNOWN_SESSION.test(detail)) {
    return failureOf("unknown-session", detail);
  }
  return undefined;
}

/** Reads a turn's output for the first failure it names, with what the lines after it add. */
export interface FailureReader {
  /** A line that is not an event: a stderr line, or text on stdout. */
  line(text: string): void;
  /** The message of an error event: recognised, or else an `agent-error` of its own. */
  errorEvent(message: string): void;
  /** The first failure named so far. */
  readonly failure: AgentFailure | undefined;
}

// Lines after the one that names a failure that may still belong to its message: Cursor's
// usage-limit block is eight lines, its chatMessage wrapped over three.
const BLOCK_LINES = 12;

/**
 * A reader of cursor-agent's output for failures. The first failure named wins, unless it is
 * transient and a later line names one that is not (`ECONNRESET, reconnecting…` then the
 * usage-limit block: a retry cannot fix that, another model can). The lines that follow the
 * winner (up to a dozen) complete its message: Cursor's usage-limit block gives
 * `fallbackModel:` and the reset date a few lines below `Error: You've hit your usage limit`.
 */
export function createCursorFailureReader(options: CursorWordingOptions): FailureReader {
  const now = options.now ?? Date.now;
  // Made once: a reader sees every stderr line of a turn. An object per line (with a clock
  // reading and ten searches) had 600 MB of stderr promote its lines to V8's old generation
  // mid-chunk: +22 MiB peak RSS (P5, BENCHMARKS.md).
  const wording: CursorWordingOptions = { ...options, now };
  let failure: AgentFailure | undefined;
  let block: string[] = [];
  const follow = (text: string): void => {
    if (!failure || block.length > BLOCK_LINES) return;
    block.push(text);
    failure = { ...failure, ...carried(block.join("\n"), now()) };
  };
  /** Whether `found`, named by `text`, takes the place of the failure named so far. */
  const takes = (found: AgentFailure | undefined, text: string): found is AgentFailure => {
    if (!found || (failure && !(failure.transient && !found.transient))) return false;
    failure = found;
    block = [text];
    return true;
  };
  return {
    line(text) {
      if (failure && !failure.transient) {
        follow(text);
        return;
      }
      if (!takes(recognizeCursorLine(text, wording), text)) follow(text);
    },
    errorEvent(message) {
      const found = recognizeCursorLine(message, wording);
      if (takes(found, message)) return;
      if (failure) {
        follow(message);
        return;
      }
      takes(failureOf("agent-error", message.trim() || "error event"), message);
    },
    get failure() {
      return failure;
    },
  };
}
