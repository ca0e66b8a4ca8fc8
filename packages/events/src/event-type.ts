import type { EventLike, JsonObject } from "./types.js";

/** `type/subtype` of an event (`"tool_call/started"`, `"assistant"`), or `text` / `oversize`. */
export function eventTypeOf(event: EventLike): string {
  if (event.kind !== "json") return event.kind;
  if (event.type === undefined) return "unknown";
  return event.subtype === undefined ? event.type : `${event.type}/${event.subtype}`;
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
