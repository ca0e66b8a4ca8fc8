// One line of newline-delimited JSON-RPC 2.0, as MCP's stdio transport frames it: what kind of
// message it is, and the few fields the watchdog needs. Everything else passes through untouched.

/** A JSON-RPC id: a number or a string (`null` only in error responses to unparsable requests). */
export type JsonRpcId = number | string | null;

/** What one line is. */
export type Message =
  | {
      kind: "request";
      id: JsonRpcId;
      /** The id as a map key: `n:1` and `s:1` are different requests. */
      key: string;
      method: string;
      /** `params.name` of a `tools/call`. */
      tool?: string;
      /** `params._meta.progressToken`, as a map key, when the request asks for progress. */
      progressKey?: string;
    }
  | { kind: "notification"; method: string; params: Record<string, unknown> | undefined }
  | {
      kind: "response";
      id: JsonRpcId;
      key: string;
      /** The error code of an error response. */
      errorCode?: number;
    }
  /** Not a JSON-RPC 2.0 message: why. */
  | { kind: "invalid"; reason: InvalidReason };

/** Why a line is not a JSON-RPC message. */
export type InvalidReason =
  | "not-json"
  | "not-utf8"
  | "batch"
  | "not-an-object"
  | "no-jsonrpc-2.0"
  | "neither-request-nor-response";

/** A map key for an id or progress token: type and value, so `1` and `"1"` differ. */
export function idKey(id: unknown): string | undefined {
  if (typeof id === "number" && Number.isFinite(id)) return `n:${id}`;
  if (typeof id === "string") return `s:${id}`;
  if (id === null) return "null";
  return undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const decoder = new TextDecoder("utf-8", { fatal: true });

/** Decode a line as UTF-8, or undefined when it is not. */
function decode(bytes: Uint8Array): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Classify the bytes of one line (without its line ending). Never throws. */
export function classify(bytes: Uint8Array): Message {
  const text = decode(bytes);
  if (text === undefined) return { kind: "invalid", reason: "not-utf8" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: "invalid", reason: "not-json" };
  }
  return classifyValue(value);
}

/** Classify a parsed JSON value. */
export function classifyValue(value: unknown): Message {
  if (Array.isArray(value)) return { kind: "invalid", reason: "batch" };
  if (!isObject(value)) return { kind: "invalid", reason: "not-an-object" };
  if (value.jsonrpc !== "2.0") return { kind: "invalid", reason: "no-jsonrpc-2.0" };
  const hasId = Object.hasOwn(value, "id");
  const key = hasId ? idKey(value.id) : undefined;
  if (typeof value.method === "string") {
    const params = isObject(value.params) ? value.params : undefined;
    if (!hasId) return { kind: "notification", method: value.method, params };
    if (key === undefined) return { kind: "invalid", reason: "neither-request-nor-response" };
    const message: Extract<Message, { kind: "request" }> = {
      kind: "request",
      id: value.id as JsonRpcId,
      key,
      method: value.method,
    };
    if (value.method === "tools/call" && typeof params?.name === "string") {
      message.tool = params.name;
    }
    const meta = isObject(params?._meta) ? params._meta : undefined;
    const progressKey = idKey(meta?.progressToken);
    if (progressKey !== undefined && meta?.progressToken !== null)
      message.progressKey = progressKey;
    return message;
  }
  if (
    hasId &&
    key !== undefined &&
    (Object.hasOwn(value, "result") || Object.hasOwn(value, "error"))
  ) {
    const message: Extract<Message, { kind: "response" }> = {
      kind: "response",
      id: value.id as JsonRpcId,
      key,
    };
    if (isObject(value.error) && typeof value.error.code === "number") {
      message.errorCode = value.error.code;
    }
    return message;
  }
  return { kind: "invalid", reason: "neither-request-nor-response" };
}

/** The progress token of a `notifications/progress`, as a map key. */
export function progressKeyOf(params: Record<string, unknown> | undefined): string | undefined {
  const token = params?.progressToken;
  return token === null ? undefined : idKey(token);
}

/** The request id a `notifications/cancelled` names, as a map key. */
export function cancelledKeyOf(params: Record<string, unknown> | undefined): string | undefined {
  return idKey(params?.requestId);
}

/** The JSON-RPC error code the watchdog answers a timed-out request with (MCP's RequestTimeout). */
export const REQUEST_TIMEOUT_CODE = -32001;

/** The code it answers requests with when the server has gone (exited, crashed, never started). */
export const SERVER_GONE_CODE = -32000;

/** A JSON-RPC error response, as one line. */
export function errorResponse(
  id: JsonRpcId,
  code: number,
  message: string,
  data?: Record<string, unknown>,
): string {
  return `${JSON.stringify({
    jsonrpc: "2.0",
    id,
    error: { code, message, ...(data === undefined ? {} : { data }) },
  })}\n`;
}

/** A `notifications/cancelled` for a request, as one line. */
export function cancelledNotification(id: JsonRpcId, reason: string): string {
  return `${JSON.stringify({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: id, reason },
  })}\n`;
}
