// The JSON-RPC plumbing of the ACP proxy, in one place and behind one small interface: lines
// in (framed byte for byte, classified with exact ids) and lines out (forwarded bytes, or a
// line of the proxy's own between them). All of it is `@cursor-wrap/jsonrpc`, the MCP
// watchdog's too: the reader (with its smuggling guard for the agent's output), the
// classification, the outbox. This module only puts what it reads in the shape the proxy
// works with; everything ACP means lives elsewhere.

import type { Writable } from "node:stream";
import {
  classifyLine,
  createMessageReader as createJsonRpcReader,
  createOutbox,
  exactId,
  type IdKey,
  type JsonRpcBatch,
  type JsonRpcError,
  type JsonRpcId,
  type InvalidReason as JsonRpcInvalidReason,
  type JsonRpcMessage,
  messageLine,
  type ReadItem,
} from "@cursor-wrap/jsonrpc";

export type { IdKey, JsonRpcId };

/** A JSON object, as messages and their params are. */
export type JsonObject = Record<string, unknown>;

/** A JSON-RPC error object. */
export type RpcError = JsonRpcError;

/**
 * Why a line is not a message the proxy reads: JSON-RPC's reasons, a batch (ACP has none), or
 * `smuggled` (a message from the agent after a line cut short, which may have been inside it).
 */
export type InvalidReason = JsonRpcInvalidReason | "batch" | "smuggled";

/** One framed unit from a stream: a whole line (a message, or not one) or a piece of a line too long to parse. */
export type Incoming =
  | {
      kind: "request";
      /** The exact bytes to forward, terminator included. */
      raw: Buffer;
      /** The stream ended without a newline after it. */
      unterminated: boolean;
      /** The id exactly as written (`id.key` tells `1` from `"1"`). */
      id: JsonRpcId;
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
      /** A batch's requests and notifications (reason `batch`), to answer them. */
      batch?: JsonRpcBatch;
    }
  | {
      /** A piece of a line above the size cap: passed on as it comes, never parsed. */
      kind: "oversize";
      raw: Buffer;
      first: boolean;
      final: boolean;
      /** Bytes of the line so far. */
      bytes: number;
      /**
       * On the final piece, what the whole line was, read from its envelope as it passed (a
       * response's id, a request's method): the proxy settles what it answers.
       */
      message?: JsonRpcMessage;
    };

/** Reads one stream of newline-delimited JSON-RPC. */
export interface MessageReader {
  push(chunk: Buffer): Incoming[];
  /** The stream ended: a last line without a newline, if any. */
  end(): Incoming[];
}

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The id of a value the proxy makes up itself (its own requests, a renamed id). */
export function rpcId(value: string | number): JsonRpcId {
  return exactId(value, undefined, [])!;
}

const headOf = (line: Buffer): string => line.subarray(0, 200).toString("utf8");

/** A classified line in the proxy's shape. */
function incomingOf(
  message: JsonRpcMessage,
  line: Buffer,
  raw: Buffer,
  unterminated: boolean,
): Incoming {
  switch (message.kind) {
    case "request":
      return {
        kind: "request",
        raw,
        unterminated,
        id: message.id,
        method: message.method,
        params: isObject(message.params) ? message.params : undefined,
      };
    case "notification":
      return {
        kind: "notification",
        raw,
        unterminated,
        method: message.method,
        params: isObject(message.params) ? message.params : undefined,
      };
    case "response":
      return {
        kind: "response",
        raw,
        unterminated,
        id: message.id,
        result: message.result,
        error: message.error,
      };
    case "batch":
      return {
        kind: "invalid",
        raw,
        unterminated,
        reason: "batch",
        head: headOf(line),
        batch: message,
      };
    case "invalid":
      return { kind: "invalid", raw, unterminated, reason: message.reason, head: headOf(line) };
    default: {
      const unreachable: never = message;
      return unreachable;
    }
  }
}

/** Read one line (without its terminator) into what it is. Never throws. */
export function parseLine(line: Buffer, raw: Buffer, unterminated: boolean): Incoming {
  return incomingOf(classifyLine(line), line, raw, unterminated);
}

/**
 * A reader for one stream: lines longer than `maxLineBytes` come out as unparsed pieces. With
 * `guard` (the agent's output, which is not trusted), a message after a line cut short inside
 * an object comes out `invalid` (`smuggled`): it may have been inside that line.
 */
export function createMessageReader(options: {
  maxLineBytes: number;
  guard?: boolean;
  /** Monotonic clock, ms: the guard's doubt ends at a pause in the agent's output. */
  now?: () => number;
  /**
   * Read a message that is not valid UTF-8 repaired, each invalid sequence as U+FFFD (what the
   * ACP SDK's lenient decoder reads; a strict reader could not read it at all), and say so.
   */
  onRepaired?: (repaired: { bytes: number; head: string }) => void;
}): MessageReader {
  const reader = createJsonRpcReader({
    maxLineBytes: options.maxLineBytes,
    ...(options.guard ? { guard: true } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.onRepaired ? { repairUtf8: true } : {}),
  });
  const convert = (items: ReadItem[]): Incoming[] =>
    items.map((item): Incoming => {
      switch (item.kind) {
        case "message":
          if (item.repaired) {
            options.onRepaired?.({ bytes: item.raw.length, head: headOf(item.line) });
          }
          return incomingOf(item.message, item.line, item.raw, item.unterminated);
        case "dropped":
          return {
            kind: "invalid",
            raw: item.raw,
            unterminated: item.unterminated,
            reason: item.reason,
            head: headOf(item.line),
          };
        case "oversize":
          return {
            kind: "oversize",
            raw: item.piece.raw,
            first: item.piece.first,
            final: item.piece.final,
            bytes: item.piece.bytes,
            ...(item.piece.final && item.piece.message ? { message: item.piece.message } : {}),
          };
        default: {
          const unreachable: never = item;
          return unreachable;
        }
      }
    });
  return {
    push: (chunk) => convert(reader.push(chunk)),
    end: () => convert(reader.end()),
  };
}

/** A message of the proxy's own: the id, when it has one, is written back exactly. */
export interface OwnMessage {
  id?: JsonRpcId;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: RpcError;
}

/** Writes lines to one stream: forwarded bytes, and lines of the proxy's own between them. */
export interface MessageWriter {
  /** Forward bytes as they came (`whole`: they end a line). */
  forward(bytes: Buffer, whole: boolean): void;
  /** A message of the proxy's own (or a line made already), written between the lines passing through. */
  send(message: OwnMessage | string): void;
  /**
   * End a line left unfinished by a writer that will write no more of it (its process gone or
   * replaced): a newline, so the reader's framing recovers and what waits behind it goes out.
   * Whether a line was unfinished.
   */
  endLine(): boolean;
}

const LINE_END = Buffer.from("\n");

/**
 * Queued bytes the writer's outbox is sized for. The proxy does not answer for a slow reader
 * (it stops reading what feeds it instead, `onBlocked`), so this is never consulted.
 */
const QUEUE_BYTES = 16 * 1024 * 1024;

/**
 * A writer for one stream, over `@cursor-wrap/jsonrpc`'s outbox. `onBlocked` is called when
 * the stream's pipe is full (stop reading what feeds it) and `onDrained` when what waited is
 * written, so the proxy never holds more than one pipe's worth for a slow reader.
 */
export function createMessageWriter(
  stream: Writable,
  hooks: { onBlocked?: () => void; onDrained?: () => void } = {},
): MessageWriter {
  const outbox = createOutbox({
    stream,
    maxQueuedBytes: QUEUE_BYTES,
    ...(hooks.onBlocked ? { onBlocked: hooks.onBlocked } : {}),
    ...(hooks.onDrained ? { onDrained: hooks.onDrained } : {}),
  });
  return {
    forward(bytes, whole) {
      // A line that does not end here (a long one in pieces, or the stream's last without a
      // newline) goes as pieces, so no line of the proxy's own lands inside it.
      if (whole && !outbox.midLine) outbox.forward(bytes);
      else outbox.forwardPiece(bytes, whole);
    },
    send(message) {
      outbox.insert(typeof message === "string" ? message : messageLine(message));
    },
    endLine() {
      if (!outbox.midLine) return false;
      outbox.forwardPiece(LINE_END, true);
      return true;
    },
  };
}
