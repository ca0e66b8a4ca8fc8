// Shapes for the property tests: event types and subtypes cursor-agent prints, and some it
// does not, so renderers meet both.
import fc from "fast-check";

export const eventType = fc.constantFrom(
  "system",
  "user",
  "thinking",
  "assistant",
  "tool_call",
  "result",
  "error",
  "retry",
  "wrapper",
  "x",
);

export const eventSubtype = fc.option(
  fc.constantFrom("init", "delta", "completed", "started", "success", "error", "failed"),
  { nil: undefined },
);
