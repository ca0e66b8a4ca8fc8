// Defensive readers for untyped JSON: extractors must never throw on unexpected shapes.

import type { JsonObject } from "./types.js";

export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

export function objectAt(value: unknown, key: string): JsonObject | undefined {
  if (!isObject(value)) return undefined;
  const child = value[key];
  return isObject(child) ? child : undefined;
}

export function stringAt(value: unknown, key: string): string | undefined {
  if (!isObject(value)) return undefined;
  const child = value[key];
  return typeof child === "string" ? child : undefined;
}

// A number written in decimal, as JSON writes one (no `0x10`, `0b1`, `Infinity`), maybe with
// white space around it.
const DECIMAL = /^\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*$/;

/**
 * A finite number, also when sent as a numeric string (cursor-agent does both) written in
 * decimal: `Number()` would read `"0x10"` as 16.
 */
export function numberAt(value: unknown, key: string): number | undefined {
  if (!isObject(value)) return undefined;
  const child = value[key];
  if (typeof child === "number") return Number.isFinite(child) ? child : undefined;
  if (typeof child === "string" && DECIMAL.test(child)) {
    const parsed = Number(child);
    return Number.isFinite(parsed) ? parsed : undefined;
  }
  return undefined;
}

/** A count or a duration: a {@link numberAt} that is not negative. */
export function countAt(value: unknown, key: string): number | undefined {
  const count = numberAt(value, key);
  return count !== undefined && count >= 0 ? count : undefined;
}

export function booleanAt(value: unknown, key: string): boolean | undefined {
  if (!isObject(value)) return undefined;
  const child = value[key];
  return typeof child === "boolean" ? child : undefined;
}

export function arrayAt(value: unknown, key: string): unknown[] | undefined {
  if (!isObject(value)) return undefined;
  const child = value[key];
  return Array.isArray(child) ? child : undefined;
}

/** The first string among `keys`. */
export function firstString(value: unknown, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const found = stringAt(value, key);
    if (found !== undefined && found !== "") return found;
  }
  return undefined;
}

/** The first line of `text`, cut to `max` characters with an ellipsis. */
export function firstLine(text: string, max: number): string {
  const newline = text.indexOf("\n");
  const line = (newline === -1 ? text : text.slice(0, newline)).trimEnd();
  const cut = line.length > max ? `${line.slice(0, max - 1)}…` : line;
  return newline === -1 || newline === text.length - 1 ? cut : `${cut} …`;
}

/** Cut `text` to `max` characters with an ellipsis. */
export function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The last `maxLines` non-empty lines of `text`, at most `maxChars` characters. */
export function tail(text: string, maxLines = 5, maxChars = 1_000): string {
  const trimmed = text.trimEnd();
  const recent = trimmed.length > maxChars ? trimmed.slice(-maxChars) : trimmed;
  return recent.split("\n").slice(-maxLines).join("\n");
}

/** Compact JSON of `value`, cut to `max` characters; never throws. */
export function compactJson(value: unknown, max: number): string {
  try {
    return truncate(JSON.stringify(value) ?? "", max);
  } catch {
    return truncate(String(value), max);
  }
}
