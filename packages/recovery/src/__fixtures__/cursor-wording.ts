// Every wording the Cursor recognisers match, quoted as it was published, with where from.
// A recogniser pattern that no sample here exercises fails `cursor-wording.test.ts`.
//
// Lines are quoted byte for byte where the source gave them in text; where a source elided
// part of a message ("…"), the elision is kept. "Relayed" means the agent passes on an error
// of the model's provider (bring-your-own-key, or Cursor's own proxy) in the provider's words.

import type { FailureKind } from "../failure.js";

/** One published message and what it must be recognised as. */
export interface WordingSample {
  /** The message, as printed (a block: its lines joined by `\n`). */
  text: string;
  kind: FailureKind;
  /** Where it was published. */
  source: string;
  /** Only recognised on a `--resume` turn. */
  resuming?: boolean;
  /** What the failure must carry. */
  carries?: { fallbackModel?: string; resetText?: string; httpStatus?: number };
}

export const CURSOR_WORDING: readonly WordingSample[] = [
  // Usage limit: the multi-line block cursor-agent prints on stderr.
  {
    text: [
      "Error: You've hit your usage limit",
      "  Get Cursor Pro for more Agent usage, unlimited Tab, and more.",
      "  fallbackModel: ",
      "  spendLimitHit: false",
      "  chatMessage: *You've hit your free requests limit. [Upgrade to ",
      "  Pro](https://www.cursor.com/api/auth/checkoutDeepControl?tier=pro) for more usage, frontier models, Background Agents, ",
      "  and more. Your usage limits will reset when your monthly cycle ends on 11/17/2025.*",
      "  spendLimits: [50,100,200]",
    ].join("\n"),
    kind: "usage-limit",
    source: "https://github.com/cursor/cursor/issues/3703 (cursor-agent, 2025-10-21)",
    carries: { resetText: "11/17/2025" },
  },
  {
    text: [
      "Error: You've hit your usage limit",
      "Get Cursor Pro for more Agent usage, unlimited Tab, and more.",
      "fallbackModel:",
      "spendLimitHit: false",
      "chatMessage: *You've hit your free requests limit. … Your usage limits will",
      "reset when your monthly cycle ends on 10/2/2026.*",
      "spendLimits: [50,100,200]",
    ].join("\n"),
    kind: "usage-limit",
    source:
      "https://github.com/saaranshM/unsnooze/pull/19 (captured from cursor-agent in 2026; the author elided part of chatMessage)",
    carries: { resetText: "10/2/2026" },
  },
  {
    text: "You've hit your usage limit\nGet Cursor Pro for more Agents use, unlimited Tab, and more.",
    kind: "usage-limit",
    source: "https://github.com/kingparks/cursor-vip/issues/479 (Cursor 1.2.2, 2025-08-09)",
  },
  {
    text: "Unavailable due to usage limits.",
    kind: "usage-limit",
    source:
      "https://dredyson.com/the-hidden-truth-about-cursor-pro-plan-limits-how-i-mastered-advanced-agent-optimization-and-avoided-usage-pitfalls-in-3-proven-steps",
  },
  {
    text: "  spendLimitHit: true",
    kind: "usage-limit",
    source:
      "the spendLimitHit line of the block above (cursor/cursor#3703), when it is the first line seen",
  },
  {
    text: "You exceeded your current quota, please check your plan and billing details.",
    kind: "usage-limit",
    source:
      "relayed Gemini/OpenAI 429 body, https://github.com/michelle-avery/custom-conversation/issues/21",
    carries: {},
  },
  {
    text: "Allocated quota exceeded",
    kind: "usage-limit",
    source: "Qwen Code's quota message as quoted in https://github.com/saaranshM/unsnooze (README)",
  },
  {
    text: "You're out of credits. Go to https://console.x.com and add credits, then I'll retry.",
    kind: "usage-limit",
    source: "https://github.com/cursor/plugins/pull/265 (an X API credits message inside Cursor)",
  },

  // Model unavailable for the plan.
  {
    text: "ActionRequiredError: Named models unavailable Free plans can only use Auto. Switch to Auto or upgrade plans to continue.",
    kind: "model-unavailable",
    source:
      "CLI 2026.09.10 probe notes (Sirdar), quoted in fixtures/real/SCHEMA-NOTES.md §1 and §6",
  },
  {
    text: "T: Named models unavailable Free plans can only use Auto. Switch to Auto or upgrade plans to continue.",
    kind: "model-unavailable",
    source:
      "the bare `T: …` stdout form reported by reifying/cursor-hack docs/cursor-agent-cli.md (no verbatim sample there; its words are those of the stderr form)",
  },
  {
    text: "Invalid Model: The model does not work with your current plan or api key.",
    kind: "model-unavailable",
    source: "https://github.com/cursor/cursor/issues/1314 (2025-06-24)",
  },

  // Unknown model.
  {
    text: "Cannot use this model: opus-4.1. Available models: auto, composer-1, gpt-5.1-codex-max, gpt-5.2, opus-4.5, sonnet-4.5, grok",
    kind: "unknown-model",
    source: "https://github.com/BloopAI/vibe-kanban/issues/1949 (2026-01-12, list shortened)",
  },
  {
    text: "Agent error: Cursor CLI failed (exit 1): Cannot use this model: claude-sonnet-4-5-20250929. Available models: auto, composer-2-fast, composer-2",
    kind: "unknown-model",
    source: "https://github.com/anyrobert/cursor-api-proxy/issues/20 (2026-05-01, list shortened)",
  },

  // Auth.
  {
    text: "Authentication required. Please run 'agent login' first, or set CURSOR_API_KEY.",
    kind: "auth",
    source:
      "https://code.30cm.net/daniel.w/opencode-cursor-agent DIAGNOSTIC_RESULTS.md, quoted in fixtures/real/SCHEMA-NOTES.md §6",
  },
  {
    text: "ConnectError: [unauthenticated] Error",
    kind: "auth",
    source:
      "https://github.com/nexu-io/open-design/pull/1538 (review comment), quoted in fixtures/real/SCHEMA-NOTES.md §6",
  },
  {
    text: "⚠ Warning: The provided API key is invalid.\nThe API key was loaded from the CURSOR_API_KEY environment variable.",
    kind: "auth",
    source: "https://github.com/a5c-ai/babysitter/issues/562 (cursor-agent 2026.05.28-a70ca7c)",
  },

  // Workspace trust.
  {
    text: [
      "⚠ Workspace Trust Required",
      "  Cursor Agent can execute code and access files in this directory.",
      "  To proceed, you can either:",
      "    • Run 'agent' interactively to decide",
      "    • Pass --trust, --yolo, or -f if you trust this directory",
    ].join("\n"),
    kind: "trust",
    source: "https://github.com/imshaikot/browsentic/issues/25 (cursor-agent 2026.09.18-9a7762b)",
  },
  {
    text: "    - Pass --trust, --yolo, or -f if you trust this directory",
    kind: "trust",
    source: "https://github.com/escoffier-labs/brigade/pull/205 (2026-07-11)",
  },

  // Session ids.
  {
    text: 'Failed to claim persistent session for chat "not-a-uuid": Persistent-session chat ID must be a UUID',
    kind: "session-id",
    source: "published probe notes of CLI 2026.09.10 (spike probe 25; repository not identified)",
  },
  {
    text: "Error: Chat not found: 5f0c2a4e-0000-4000-8000-000000000000",
    kind: "unknown-session",
    resuming: true,
    source:
      "no published sample of cursor-agent's own wording (a well-formed unknown UUID starts a new session); kept from cursor-wrap's earlier classifier",
  },
  {
    text: "Error: session abc does not exist",
    kind: "unknown-session",
    resuming: true,
    source: "kept from cursor-wrap's earlier classifier (no published sample)",
  },

  // Organisation policy.
  {
    text: "Error: Headless mode is disabled by your organization.",
    kind: "policy",
    source: "kept from cursor-wrap's earlier classifier (no published sample)",
  },

  // Rate limits.
  {
    text: "ConnectError: [resource_exhausted] Error",
    kind: "rate-limit",
    source:
      'Cursor\'s ConnectRPC error code, as wrapped by https://github.com/can1357/oh-my-pi/issues/4834 ("Connect error resource_exhausted: Error") and named the same way as [unauthenticated] above',
  },
  {
    text: "Connect error resource_exhausted: Error",
    kind: "rate-limit",
    source: "https://github.com/can1357/oh-my-pi/issues/8845 (2026-08-17)",
  },
  {
    text: 'Cursor API 错误: HTTP 429 - {"error":"Rate limit exceeded"}',
    kind: "rate-limit",
    source: "https://github.com/7836246/cursor2api/issues/107 (2026-03-24)",
    carries: { httpStatus: 429 },
  },
  {
    // A quota per minute: it clears by itself, so a rate limit, though it says "quota exceeded".
    text: "RESOURCE_EXHAUSTED: Quota exceeded for quota metric 'Requests' and limit 'Requests per minute'",
    kind: "rate-limit",
    source:
      "a Google API's per-minute quota, quoted in https://github.com/googleapis/google-cloud-java/issues/7219 (2020-04-28)",
  },
  {
    text: "User API Key Rate limit exceeded",
    kind: "rate-limit",
    source:
      "https://forum.cursor.com/t/configurable-rate-limiting-for-agents-with-user-provided-api-keys/114649",
  },
  {
    text: "API error (attempt 3): RESOURCE_EXHAUSTED (code 429): Individual quota reached. Please upgrade your subscription to increase your limits. Resets in 2h39m52s.",
    kind: "rate-limit",
    source:
      "https://github.com/google-antigravity/antigravity-cli/issues/1018 (another agent's headless result, for the reset span)",
    carries: { httpStatus: 429, resetText: "in 2h39m52s" },
  },

  // Overloaded or briefly unavailable.
  {
    text: "Provider Error: We're having trouble connecting to the model provider. This might be temporary - please try again in a moment.",
    kind: "overloaded",
    source:
      "cursor-agent with a GPT model, https://gist.github.com/rgarcia/7921109f04dc41b9e816e7e2cd8c8081",
  },
  {
    text: '{"error":"ERROR_OPENAI","details":{"title":"Unable to reach the model provider","detail":"We\'re having trouble connecting to the model provider. This might be temporary - please try again in a moment."}}',
    kind: "overloaded",
    source: "https://dredyson.com/?p=6803 (Cursor with Claude 4 Sonnet)",
  },
  {
    text: 'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011CZAau32QzxDkriovTaFCB"}',
    kind: "overloaded",
    source:
      "relayed Anthropic error, https://github.com/anthropics/claude-code/issues/35792 (Anthropic models back Cursor's Claude models)",
    carries: { httpStatus: 529 },
  },

  // Connection.
  {
    text: "Connection failed. If the problem persists, please check your internet connection or VPN",
    kind: "connection",
    source:
      "https://github.com/cursor/cursor/issues/2006 and https://github.com/cursor/cursor/issues/3634",
  },
  {
    text: "ConnectError: [unavailable] Error",
    kind: "connection",
    source:
      "https://dredyson.com/decoding-cursors-pro-plan-mcp-restrictions-a-technical-deep-dive-into-ai-integration-challenges",
  },
  {
    text: "Error: read ECONNRESET",
    kind: "connection",
    source:
      "Node.js's own error for a reset socket (cursor-agent runs on Node): https://nodejs.org/api/errors.html#common-system-errors",
  },
  {
    text: "Error: socket hang up",
    kind: "connection",
    source:
      "Node.js's message for ECONNRESET: https://nodejs.org/api/errors.html#common-system-errors",
  },
  {
    text: "Error: connect ETIMEDOUT 104.18.19.125:443",
    kind: "connection",
    source: "Node.js's ETIMEDOUT: https://nodejs.org/api/errors.html#common-system-errors",
  },
  {
    text: "Error: getaddrinfo ENOTFOUND api2.cursor.sh",
    kind: "connection",
    source: "Node.js's DNS failure: https://nodejs.org/api/errors.html#common-system-errors",
  },
];

/** Lines that look alarming but are not failures: the agent retrying by itself, ordinary text. */
export const NOT_FAILURES: readonly string[] = [
  "Warning: rate limited, retrying in 1s",
  "",
  "compiling…",
  "The session was productive",
  "Aborting operation...",
  "processed 429 files",
  // A status code's number in other words: a line number, a warning before the limit.
  "Parse error on line 429 of ~/.cursor/cli-config.json",
  "error at line 503, column 7",
  "Warning: you are approaching your usage limit (80% used)",
  "You are nearing the usage limit of your plan",
];
