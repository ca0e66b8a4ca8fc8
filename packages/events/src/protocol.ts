import type { EventLike } from "./types.js";

/**
 * The protocol versions this side speaks, for an agent that announces one with a first event
 * `{"type":"protocol","data":{"version":"1.0"}}` (the adapter contract's optional version
 * event). The one place they are listed.
 */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = ["1.0"];

/**
 * The version a protocol event announces (a number is read as its text), or undefined for any
 * other event, and for a protocol event that names no version.
 */
export function protocolVersionOf(event: EventLike): string | undefined {
  if (event.kind !== "json" || event.type !== "protocol") return undefined;
  const data = event.data.data;
  if (data === null || typeof data !== "object" || Array.isArray(data)) return undefined;
  const version = (data as Record<string, unknown>).version;
  if (typeof version === "string" && version.trim() !== "") return version.trim();
  if (typeof version === "number" && Number.isFinite(version)) {
    return Number.isInteger(version) ? version.toFixed(1) : String(version);
  }
  return undefined;
}

/** Whether a protocol version is one this side speaks ({@link SUPPORTED_PROTOCOL_VERSIONS}). */
export function isSupportedProtocolVersion(version: string): boolean {
  return SUPPORTED_PROTOCOL_VERSIONS.includes(version);
}
