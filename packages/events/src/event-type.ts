import type { EventLike, JsonObject } from "./types.js";

// The last pair joined: events come in runs of one kind (thinking deltas), and the monitor
// asks for every event's, so the join is made once per run instead of once per event.
let lastType = "";
let lastSubtype = "";
let lastJoined = "";

/** `type/subtype` of an event (`"tool_call/started"`, `"assistant"`), or `text` / `oversize`. */
export function eventTypeOf(event: EventLike): string {
  if (event.kind !== "json") return event.kind;
  const { type, subtype } = event;
  if (type === undefined) return "unknown";
  if (subtype === undefined) return type;
  if (type === lastType && subtype === lastSubtype) return lastJoined;
  const joined = `${type}/${subtype}`;
  // Only a short pair is kept (an agent's 16 MiB "type" is not held on to).
  if (joined.length <= 64) {
    lastType = type;
    lastSubtype = subtype;
    lastJoined = joined;
  }
  return joined;
}

/**
 * An event the extractors can read, from a parsed JSON value (for code that parses lines
 * itself, such as a browser): a JSON object is an event, anything else is a text line.
 */
export function eventOf(value: unknown): EventLike {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return { kind: "text" };
  const data = value as JsonObject;
  return {
    kind: "json",
    type: typeof data.type === "string" ? data.type : undefined,
    subtype: typeof data.subtype === "string" ? data.subtype : undefined,
    data,
  };
}
