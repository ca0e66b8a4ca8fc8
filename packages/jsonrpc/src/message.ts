// One line of newline-delimited JSON-RPC 2.0: what kind of message it is, and its id exactly.
// Protocol-neutral: MCP, ACP or any JSON-RPC peer reads its own fields from `params`.

import { type JsonPath, pathKey, scanJson } from "./json-scanner.js";

/**
 * A map key for an id: a whole number within 2^53 is the number itself (hashed and compared
 * for the cost of a number); any other id is text of its type and exact value (`s:abc`,
 * `n:12345678901234567890`, `n:1.5`, `null`), never equal to a number's key.
 */
export type IdKey = number | string;

/**
 * A JSON-RPC id as the peer wrote it: its value, its exact JSON text (`12345678901234567890`
 * keeps its digits; `JSON.parse` would round it), and a key for maps (`1` and `"1"` differ).
 */
export interface JsonRpcId {
  /** The parsed value (a number above 2^53 is rounded here: use `text` to write it back). */
  value: number | string | null;
  /** The id's JSON text, exact: write this back in a response. */
  text: string;
  /** A map key: type and exact value (see {@link IdKey}). */
  key: IdKey;
}

/** A request: it has an id and a method, and expects exactly one response. */
export interface JsonRpcRequest {
  kind: "request";
  id: JsonRpcId;
  method: string;
  /** `params` when it is an object or an array; undefined otherwise. */
  params: Record<string, unknown> | unknown[] | undefined;
}

/** A notification: a method and no id; nothing answers it. */
export interface JsonRpcNotification {
  kind: "notification";
  method: string;
  params: Record<string, unknown> | unknown[] | undefined;
}

/** The `error` of an error response, as read. */
export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** A response: the id of the request it answers, and an error code when it is an error. */
export interface JsonRpcResponse {
  kind: "response";
  id: JsonRpcId;
  /** `error.code` of an error response. */
  errorCode?: number;
  /** It carries `error` rather than `result`. */
  isError: boolean;
  /** The `result` of a success response read whole (not of a line too long to parse). */
  result?: unknown;
  /**
   * The `error` of an error response read whole, when it is an object (`code` 0 and `message`
   * empty where they are missing or not a number and a string).
   */
  error?: JsonRpcError;
}

/** A batch (an array): MCP never sends one; the ids of the requests in it, to answer them. */
export interface JsonRpcBatch {
  kind: "batch";
  /** The ids of the batch's members that are requests (an id and a method). */
  requestIds: JsonRpcId[];
  /** How many of its members are notifications (a method, no id). */
  notifications: number;
}

/** A line that is not a JSON-RPC 2.0 message, and why. */
export interface JsonRpcInvalid {
  kind: "invalid";
  reason: InvalidReason;
}

/** What one line is. */
export type JsonRpcMessage =
  | JsonRpcRequest
  | JsonRpcNotification
  | JsonRpcResponse
  | JsonRpcBatch
  | JsonRpcInvalid;

/** Why a line is not a JSON-RPC message. */
export type InvalidReason =
  | "not-utf8"
  /** Not JSON, and not the beginning of any JSON either (garbage, a raw control character). */
  | "not-json"
  /**
   * The beginning of a JSON object or array that stops at the end of the line: what follows
   * may be the rest of it (a message with a raw newline inside a string).
   */
  | "truncated"
  | "not-an-object"
  | "no-jsonrpc-2.0"
  | "neither-request-nor-response";

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A safe integer's digits, as `String` writes them, in a string of its own. `String` (and a
 * template literal) keeps the string of each number it converts in V8's number-string cache,
 * 16 384 entries that outlive the young generation: a proxy converting every request id so had
 * each id's string promoted to the old generation, most of what it promoted under load.
 * `toFixed(0)` writes the same digits for every safe integer and caches nothing.
 */
function integerText(value: number): string {
  return value.toFixed(0);
}

/**
 * The id at `path` of the line, exactly: from the parsed value when it is exact (a string, a
 * whole number within 2^53, null), else read from the text itself. Undefined when the value is
 * not an id (an object, a boolean, …).
 */
export function exactId(
  value: unknown,
  line: Uint8Array | undefined,
  path: JsonPath,
): JsonRpcId | undefined {
  if (typeof value === "string") return { value, text: JSON.stringify(value), key: `s:${value}` };
  if (value === null) return { value: null, text: "null", key: "null" };
  if (typeof value !== "number") return undefined;
  if (Number.isSafeInteger(value)) return { value, text: integerText(value), key: value };
  // A number JSON.parse could not hold exactly (or a fraction): its own digits.
  const text =
    line === undefined
      ? undefined
      : scanJson(line, { capture: [path] }).captures.get(pathKey(path));
  if (text === undefined || !/^-?\d/.test(text)) {
    return Number.isFinite(value) ? { value, text: String(value), key: `n:${value}` } : undefined;
  }
  return { value, text, key: `n:${text}` };
}

/**
 * An exact id from its JSON text (a captured member of a line too long to parse whole): a
 * number is its own text, digits and all. Undefined when the text is not JSON or not an id.
 */
export function exactIdOfText(text: string | undefined): JsonRpcId | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value === "number" && !Number.isSafeInteger(value)) {
    return { value, text, key: `n:${text}` };
  }
  return exactId(value, undefined, []);
}

/** The map key of an id given as a value (an id from `params`, a progress token). */
export function idKey(value: unknown): IdKey | undefined {
  return exactId(value, undefined, [])?.key;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Classify a parsed JSON value; `line` (its text) lets big number ids keep their digits. */
export function classifyValue(value: unknown, line?: Uint8Array): JsonRpcMessage {
  if (Array.isArray(value)) {
    const requestIds: JsonRpcId[] = [];
    let notifications = 0;
    for (const [index, item] of value.entries()) {
      if (!isObject(item) || typeof item.method !== "string") continue;
      if (!Object.hasOwn(item, "id")) {
        notifications += 1;
        continue;
      }
      const id = exactId(item.id, line, [index, "id"]);
      if (id) requestIds.push(id);
    }
    return { kind: "batch", requestIds, notifications };
  }
  if (!isObject(value)) return { kind: "invalid", reason: "not-an-object" };
  if (value.jsonrpc !== "2.0") return { kind: "invalid", reason: "no-jsonrpc-2.0" };
  const hasId = Object.hasOwn(value, "id");
  const params =
    isObject(value.params) || Array.isArray(value.params)
      ? (value.params as Record<string, unknown> | unknown[])
      : undefined;
  if (typeof value.method === "string") {
    if (!hasId) return { kind: "notification", method: value.method, params };
    const id = exactId(value.id, line, ["id"]);
    if (id === undefined) return { kind: "invalid", reason: "neither-request-nor-response" };
    return { kind: "request", id, method: value.method, params };
  }
  const isError = Object.hasOwn(value, "error");
  if (hasId && (isError || Object.hasOwn(value, "result"))) {
    const id = exactId(value.id, line, ["id"]);
    if (id === undefined) return { kind: "invalid", reason: "neither-request-nor-response" };
    const response: JsonRpcResponse = { kind: "response", id, isError };
    if (isObject(value.error)) {
      const { code, message } = value.error;
      if (typeof code === "number") response.errorCode = code;
      response.error = {
        code: typeof code === "number" ? code : 0,
        message: typeof message === "string" ? message : "",
        ...(Object.hasOwn(value.error, "data") ? { data: value.error.data } : {}),
      };
    } else if (!isError) {
      response.result = value.result;
    }
    return response;
  }
  return { kind: "invalid", reason: "neither-request-nor-response" };
}

/**
 * A message's line with its top-level id written as `id` (its exact text), every other byte as
 * it was: no number is rounded and no escape rewritten, as a parse and a serialization would.
 * Undefined when the line has no top-level id.
 */
export function lineWithId(raw: Uint8Array, id: JsonRpcId): Buffer | undefined {
  const span = scanJson(raw, { capture: [["id"]] }).spans.get(ID_PATH);
  if (span === undefined) return undefined;
  const [from, to] = span;
  return Buffer.concat([raw.subarray(0, from), Buffer.from(id.text), raw.subarray(to)]);
}

const ID_PATH = pathKey(["id"]);

/**
 * Classify the bytes of one line (without its `\n`). Never throws. A line that does not parse
 * is `truncated` when it is the valid beginning of an object or array (it may go on in the
 * next line), else `not-json`.
 */
export function classifyLine(bytes: Uint8Array): JsonRpcMessage {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { kind: "invalid", reason: "not-utf8" };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const scan = scanJson(bytes);
    const opened = scan.root === "object" || scan.root === "array";
    return {
      kind: "invalid",
      reason: scan.status === "truncated" && opened ? "truncated" : "not-json",
    };
  }
  return classifyValue(value, bytes);
}

/** A JSON-RPC error response, as one line, with the id written back exactly. */
export function errorResponse(
  id: JsonRpcId | null,
  code: number,
  message: string,
  data?: Record<string, unknown>,
): string {
  const error = JSON.stringify({ code, message, ...(data === undefined ? {} : { data }) });
  return `{"jsonrpc":"2.0","id":${id === null ? "null" : id.text},"error":${error}}\n`;
}

/**
 * A message of one's own as one line: `jsonrpc`, then the id written back exactly (its `text`),
 * then the other members in the order given.
 */
export function messageLine(message: {
  id?: JsonRpcId | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: JsonRpcError;
}): string {
  const { id, ...rest } = message;
  const body = JSON.stringify(rest);
  if (id === undefined) return `{"jsonrpc":"2.0"${body === "{}" ? "" : `,${body.slice(1, -1)}`}}\n`;
  const idText = id === null ? "null" : id.text;
  return `{"jsonrpc":"2.0","id":${idText}${body === "{}" ? "" : `,${body.slice(1, -1)}`}}\n`;
}

/** A number `JSON.parse` cannot hold exactly (or a fraction) is logged as its digits. */
const loggedAsText = (id: JsonRpcId): boolean =>
  typeof id.value === "number" && !Number.isSafeInteger(id.value);

/**
 * An id as a log record holds it: its value, or its exact text when it is a number `JSON.parse`
 * cannot hold (a reader of the log must not see a rounded id).
 */
export const loggedId = (id: JsonRpcId): unknown => (loggedAsText(id) ? id.text : id.value);

/**
 * {@link loggedId} as JSON, for a record written as text: the id's own text (no number turned
 * into text again, see `integerText`), quoted when it is logged as text.
 */
export const loggedIdJson = (id: JsonRpcId): string =>
  loggedAsText(id) ? JSON.stringify(id.text) : id.text;

/** A notification, as one line. */
export function notificationLine(method: string, params?: Record<string, unknown>): string {
  return `${JSON.stringify({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) })}\n`;
}

/** JSON-RPC's own error codes. */
export const JSON_RPC_ERRORS = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
} as const;

/**
 * The lines that answer a batch which is not passed on (MCP and ACP use none): an error for
 * each request in it; for a batch of neither requests nor notifications (`[]`, `[1, 2]`) one
 * Invalid Request with a null id, as JSON-RPC answers an empty or invalid batch; for one of
 * notifications only, none.
 */
export function batchRejection(
  batch: JsonRpcBatch,
  code: number,
  message: string,
  data?: Record<string, unknown>,
): string[] {
  const lines = batch.requestIds.map((id) => errorResponse(id, code, message, data));
  if (batch.requestIds.length === 0 && batch.notifications === 0) {
    lines.push(errorResponse(null, code, `Invalid Request: ${message}`, data));
  }
  return lines;
}
