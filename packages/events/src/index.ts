// The Node entry: everything of the browser entry (./browser.ts, no Node built-ins), and what
// needs Node: the line framer and parser (Buffers, streams), the session-id helpers, the
// tool-call outcome and the event types they produce.

export * from "./browser.js";
export type { LineFramer, LineFramerOptions } from "./line-framer.js";
export { createLineFramer, createLineFramerStream, DEFAULT_PARSE_CAP } from "./line-framer.js";
export { instant, parseLine } from "./parse-line.js";
export { isPlausibleSessionId, shellWord } from "./session-id.js";
export { toolOutcome } from "./tool-call.js";
export type {
  AgentEvent,
  Instant,
  JsonEvent,
  LineEnding,
  OversizePiece,
  TextLine,
  TextReason,
} from "./types.js";
