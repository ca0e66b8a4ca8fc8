// The JSON-RPC plumbing of the ACP proxy, in one place and behind one small interface: lines
// in (framed byte for byte, classified with exact ids) and lines out (forwarded bytes, or a
// line of the proxy's own between them). The framing and classification are the MCP proxy's
// protocol-neutral parts (`@cursor-wrap/jsonrpc`), shared rather than copied; everything ACP
// means lives elsewhere.

import type { Writable } from "node:stream";
import {
  classifyValue,
  createLineSplitter,
  idKey,
  type InvalidReason as JsonRpcInvalidReason,
} from "@cursor-wrap/jsonrpc";

export { idKey };

/** A JSON-RPC id: a number or a string (`null` only in error responses to unparsable requests). */
export type JsonRpcId = number | string | null;

/** Why a line is not a message the proxy reads: JSON-RPC's reasons, or a batch (ACP has none). */
export type InvalidReason = JsonRpcInvalidReason | "batch";

/** A JSON object, as messages and their params are. */
export type JsonObject = Record<string, unknown>;

/** A JSON-RPC error object. */
export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** One framed unit from a stream: a whole line (a message, or not one) or a piece of a line too long to parse. */
export type Incoming =
  | {
      kind: "request";
      /** The exact bytes to forward, terminator included. */
      raw: Buffer;
      /** The stream ended without a newline after it. */
      unterminated: boolean;
      id: JsonRpcId;
      /** The id as a map key: `n:1` and `s:1` are different requests. */
      key: string;
      method: string;
      params: JsonObject | undefined;
    }
  | {
      kind: "notification";
      raw: Buffer;
      unterminated: boolean;
      method: string;
      params: JsonObject | undefined;
    }
  | {
      kind: "response";
      raw: Buffer;
      unterminated: boolean;
      id: JsonRpcId;
      key: string;
      /** The result of a success response. */
      result: unknown;
      /** The error of an error response. */
      error: RpcError | undefined;
    }
  | {
      /** Not a JSON-RPC 2.0 message: forwarded or dropped by the caller. */
      kind: "invalid";
      raw: Buffer;
      unterminated: boolean;
      reason: InvalidReason;
      /** The line's first bytes, for the log. */
      head: string;
    }
  | {
      /** A piece of a line above the size cap: passed on as it comes, never parsed. */
      kind: "oversize";
      raw: Buffer;
      first: boolean;
      final: boolean;
      /** Bytes of the line so far. */
      bytes: number;
    };

/** Reads one stream of newline-delimited JSON-RPC. */
export interface MessageReader {
  push(chunk: Buffer): Incoming[];
  /** The stream ended: a last line without a newline, if any. */
  end(): Incoming[];
}

const decoder = new TextDecoder("utf-8", { fatal: true });
const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Parse one line (without its terminator) into what it is. Never throws. */
export function parseLine(line: Buffer, raw: Buffer, unterminated: boolean): Incoming {
  const invalid = (reason: InvalidReason): Incoming => ({
    kind: "invalid",
    raw,
    unterminated,
    reason,
    head: line.subarray(0, 200).toString("utf8"),
  });
  let text: string;
  try {
    text = decoder.decode(line);
  } catch {
    return invalid("not-utf8");
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return invalid("not-json");
  }
  const message = classifyValue(value, line);
  const object = value as JsonObject;
  switch (message.kind) {
    case "request":
      return {
        kind: "request",
        raw,
        unterminated,
        id: message.id.value,
        key: message.id.key,
        method: message.method,
        params: isObject(object.params) ? object.params : undefined,
      };
    case "notification":
      return {
        kind: "notification",
        raw,
        unterminated,
        method: message.method,
        params: isObject(message.params) ? message.params : undefined,
      };
    case "response": {
      const error = isObject(object.error)
        ? {
            code: typeof object.error.code === "number" ? object.error.code : 0,
            message: typeof object.error.message === "string" ? object.error.message : "",
            ...(Object.hasOwn(object.error, "data") ? { data: object.error.data } : {}),
          }
        : undefined;
      return {
        kind: "response",
        raw,
        unterminated,
        id: message.id.value,
        key: message.id.key,
        result: object.result,
        error,
      };
    }
    case "batch":
      return invalid("batch");
    case "invalid":
      return invalid(message.reason);
    default: {
      const unreachable: never = message;
      return unreachable;
    }
  }
}

/** A reader for one stream: lines longer than `maxLineBytes` come out as unparsed pieces. */
export function createMessageReader(options: { maxLineBytes: number }): MessageReader {
  const splitter = createLineSplitter({ maxLineBytes: options.maxLineBytes });
  const convert = (framed: ReturnType<typeof splitter.push>): Incoming[] =>
    framed.map((item) =>
      item.kind === "oversize"
        ? {
            kind: "oversize",
            raw: item.raw,
            first: item.first,
            final: item.final,
            bytes: item.bytes,
          }
        : parseLine(item.line, item.raw, item.unterminated === true),
    );
  return {
    push: (chunk) => convert(splitter.push(chunk)),
    end: () => convert(splitter.end()),
  };
}

/** Writes lines to one stream: forwarded bytes, and lines of the proxy's own between them. */
export interface MessageWriter {
  /** Forward bytes as they came (`whole`: they end a line). */
  forward(bytes: Buffer, whole: boolean): void;
  /** A message of the proxy's own, written as one line between the lines passing through. */
  send(message: JsonObject): void;
  /** The stream is gone (ended, destroyed or failed): writes are dropped. */
  readonly closed: boolean;
}

/**
 * A writer for one stream. `onBlocked` is called when the stream's buffer is full (stop
 * reading what feeds it) and `onDrained` when it empties again, so the proxy never holds more
 * than one pipe's worth for a slow reader.
 */
export function createMessageWriter(
  stream: Writable,
  hooks: { onBlocked?: () => void; onDrained?: () => void } = {},
): MessageWriter {
  let midLine = false;
  let blocked = false;
  const queued: string[] = [];
  const gone = (): boolean => stream.destroyed || stream.writableEnded;
  const write = (bytes: Buffer | string): void => {
    if (gone()) return;
    if (!stream.write(bytes) && !blocked) {
      blocked = true;
      hooks.onBlocked?.();
      stream.once("drain", () => {
        blocked = false;
        hooks.onDrained?.();
      });
    }
  };
  return {
    forward(bytes, whole) {
      write(bytes);
      midLine = !whole;
      if (!midLine) for (const line of queued.splice(0)) write(line);
    },
    send(message) {
      const line = `${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`;
      if (midLine) queued.push(line);
      else write(line);
    },
    get closed() {
      return gone();
    },
  };
}
