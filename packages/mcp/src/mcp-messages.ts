// What MCP adds to JSON-RPC that the watchdog acts on: its error codes, the tool of a
// `tools/call`, progress tokens, and `notifications/cancelled`.

import {
  exactId,
  type IdKey,
  type JsonRpcId,
  type JsonRpcRequest,
  notificationLine,
} from "@cursor-wrap/jsonrpc";

/** The JSON-RPC error code the watchdog answers a timed-out request with (MCP's RequestTimeout). */
export const REQUEST_TIMEOUT_CODE = -32001;

/** The code it answers requests with when the server has gone (exited, crashed, never started). */
export const SERVER_GONE_CODE = -32000;

/** The code it answers a batch's requests with: MCP does not use batches (JSON-RPC's Invalid Request). */
export const BATCH_REJECTED_CODE = -32600;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `params.name` of a `tools/call`. */
export function toolOf(request: Pick<JsonRpcRequest, "method" | "params">): string | undefined {
  const params = request.params;
  return request.method === "tools/call" && isObject(params) && typeof params.name === "string"
    ? params.name
    : undefined;
}

/** The progress token a request asks for (`params._meta.progressToken`), as a map key. */
export function requestProgressKey(request: JsonRpcRequest, line: Uint8Array): IdKey | undefined {
  const params = request.params;
  const meta = isObject(params) && isObject(params._meta) ? params._meta : undefined;
  if (meta === undefined || meta.progressToken === null) return undefined;
  return exactId(meta.progressToken, line, ["params", "_meta", "progressToken"])?.key;
}

/** The token a `notifications/progress` is about, as a map key. */
export function progressKey(params: unknown, line: Uint8Array): IdKey | undefined {
  if (!isObject(params) || params.progressToken === null) return undefined;
  return exactId(params.progressToken, line, ["params", "progressToken"])?.key;
}

/** The request a `notifications/cancelled` names, exactly. */
export function cancelledId(params: unknown, line: Uint8Array): JsonRpcId | undefined {
  return isObject(params) ? exactId(params.requestId, line, ["params", "requestId"]) : undefined;
}

/** A `notifications/cancelled` for a request, as one line, its id written back exactly. */
export function cancelledNotification(id: JsonRpcId, reason: string): string {
  const line = notificationLine("notifications/cancelled", { requestId: "\u0000", reason });
  return line.replace('"\\u0000"', id.text);
}
