// Reads one direction of newline-delimited JSON-RPC: lines out of chunks (byte for byte), each
// classified; a line too long to hold streamed through in pieces while its envelope (top-level
// `jsonrpc`, `id`, `method`) is read as it passes; and, for a peer that is not trusted, the
// smuggling guard: only a line cut short inside an object may cast doubt on the lines after it,
// and only on those that come before the peer's output pauses.
// The framing is the project's one line reader (@cursor-wrap/events/line-reader); this module is
// its JSON-RPC classifier.

import { createLineReader, LINE_HEAD_BYTES, type LinePiece } from "@cursor-wrap/events/line-reader";

import {
  createJsonScanner,
  type JsonPath,
  type JsonScanner,
  pathKey,
  type ScanResult,
} from "./json-scanner.js";
import {
  classifyLine,
  exactIdOfText,
  type InvalidReason,
  type JsonRpcId,
  type JsonRpcMessage,
} from "./message.js";

/** A message: anything but an invalid line. */
export type ValidMessage = Exclude<JsonRpcMessage, { kind: "invalid" }>;

/** What the envelope of a line too long to parse says so far. */
export interface OversizeEnvelope {
  /** The line so far is JSON (or the beginning of it). */
  valid: boolean;
  root: ScanResult["root"];
  /** `jsonrpc` is `"2.0"` (seen so far). */
  jsonrpc2: boolean;
  /** The top-level `id`, exactly, once seen. */
  id?: JsonRpcId;
  /** The top-level `method`, once seen. */
  method?: string;
  /** Top-level keys seen so far. */
  keys: readonly string[];
  /** Exact text of the members asked for (`capture`), by `pathKey`. */
  captures: ReadonlyMap<string, string>;
}

/** One piece of a line above the cap, as it passes. */
export interface OversizePiece {
  /** This piece's exact bytes. */
  raw: Buffer;
  first: boolean;
  final: boolean;
  /** Bytes of the line so far. */
  bytes: number;
  /** The line's first bytes (up to 4 KiB). */
  head: Buffer;
  /** What the line's envelope says after this piece. */
  envelope: OversizeEnvelope;
  /** On the final piece: the whole line's classification. */
  message?: JsonRpcMessage;
  /** The line came while the guard distrusted what follows a line cut short. */
  suspect: boolean;
}

/** What the reader produces, in input order. */
export type ReadItem =
  | {
      kind: "message";
      message: ValidMessage;
      /** The exact bytes to forward (the line and its terminator). */
      raw: Buffer;
      /** The line without its `\n`. */
      line: Buffer;
      /** The stream ended without a `\n` after it. */
      unterminated: boolean;
      /** Not valid UTF-8 as it came: `raw` is it repaired (see `repairUtf8`). */
      repaired?: true;
    }
  | {
      kind: "dropped";
      /** Why: the line is not a message, or (`smuggled`) it followed a line cut short. */
      reason: InvalidReason | "smuggled";
      /** For `smuggled`: the message that was dropped. */
      message?: ValidMessage;
      raw: Buffer;
      line: Buffer;
      unterminated: boolean;
    }
  | { kind: "oversize"; piece: OversizePiece };

/** Options for {@link createMessageReader}. */
export interface MessageReaderOptions {
  /** Lines longer than this (bytes, without the `\n`) are streamed through in pieces. */
  maxLineBytes: number;
  /**
   * For a peer whose output is not trusted: after a line that is the beginning of an object cut
   * short (a raw newline inside a string), the lines that follow may have been inside it (the
   * messages a naive splitter would take for its own), so valid messages among them are
   * dropped as `smuggled`, until a line that is not JSON on its own (the rest of the broken
   * one), or until the peer's output pauses: input that comes `burstGapMs` or more after the
   * previous input. What was inside one message was written with it, at once (even a writer
   * that flushes at every newline writes its lines microseconds apart); a log line that only
   * begins like an object must not cost the answers the peer writes later. Any other line
   * affects no other.
   */
  guard?: boolean;
  /** With `guard`: the pause in the peer's output that ends the doubt, ms. Default 100. */
  burstGapMs?: number;
  /** Monotonic clock, ms, for `burstGapMs`. Default `performance.now`. */
  now?: () => number;
  /** Members to read from lines too long to parse, besides `jsonrpc`, `id` and `method`. */
  oversizeCapture?: readonly JsonPath[];
  /**
   * A line that is not valid UTF-8 is read with each invalid sequence replaced by U+FFFD (as a
   * lenient reader reads it): when it is then a message, it comes out `repaired`, its `raw`
   * the repaired bytes, judged by the guard as any message (a repaired line inside a line cut
   * short is smuggled all the same). Without it, such a line is dropped (`not-utf8`).
   */
  repairUtf8?: boolean;
}

/** A reader for one stream. */
export interface MessageReader {
  push(chunk: Buffer): ReadItem[];
  /** The stream ended: its last line, if it had no `\n`. */
  end(): ReadItem[];
}

const ENVELOPE: readonly JsonPath[] = [["jsonrpc"], ["id"], ["method"]];
const NEWLINE = Buffer.from("\n");
/** The pause in a peer's output that ends the guard's doubt, ms (see `burstGapMs`). */
const DEFAULT_BURST_GAP_MS = 100;
const BATCH_MEMBERS = 16;

function stringFromText(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}

function envelopeOf(result: ScanResult): OversizeEnvelope {
  const id = exactIdOfText(result.captures.get(pathKey(["id"])));
  const method = stringFromText(result.captures.get(pathKey(["method"])));
  return {
    valid: result.status !== "invalid",
    root: result.root,
    jsonrpc2: stringFromText(result.captures.get(pathKey(["jsonrpc"]))) === "2.0",
    ...(id ? { id } : {}),
    ...(method === undefined ? {} : { method }),
    keys: result.keys,
    captures: result.captures,
  };
}

/** The classification of a whole oversize line, from what its scan kept. */
function classifyScanned(result: ScanResult, envelope: OversizeEnvelope): JsonRpcMessage {
  if (result.status !== "complete") {
    const opened = result.root === "object" || result.root === "array";
    return {
      kind: "invalid",
      reason: result.status === "truncated" && opened ? "truncated" : "not-json",
    };
  }
  if (result.root === "array") {
    const requestIds: JsonRpcId[] = [];
    let notifications = 0;
    for (let index = 0; index < BATCH_MEMBERS; index += 1) {
      if (!result.captures.has(pathKey([index, "method"]))) continue;
      const idText = result.captures.get(pathKey([index, "id"]));
      const id = exactIdOfText(idText);
      if (id) requestIds.push(id);
      else if (idText === undefined) notifications += 1;
    }
    return { kind: "batch", requestIds, notifications };
  }
  if (result.root !== "object") return { kind: "invalid", reason: "not-an-object" };
  if (!envelope.jsonrpc2) return { kind: "invalid", reason: "no-jsonrpc-2.0" };
  const hasId = envelope.keys.includes("id");
  if (envelope.method !== undefined) {
    if (!hasId) return { kind: "notification", method: envelope.method, params: undefined };
    if (!envelope.id) return { kind: "invalid", reason: "neither-request-nor-response" };
    return { kind: "request", id: envelope.id, method: envelope.method, params: undefined };
  }
  const isError = envelope.keys.includes("error");
  if (envelope.id && (isError || envelope.keys.includes("result"))) {
    return { kind: "response", id: envelope.id, isError };
  }
  return { kind: "invalid", reason: "neither-request-nor-response" };
}

/** Create a reader; see {@link MessageReaderOptions}. */
export function createMessageReader(options: MessageReaderOptions): MessageReader {
  const capture: JsonPath[] = [...ENVELOPE, ...(options.oversizeCapture ?? [])];
  for (let index = 0; index < BATCH_MEMBERS; index += 1) {
    capture.push([index, "id"], [index, "method"]);
  }
  // Set by a line cut short inside an object or array: what follows may have been in it.
  let suspect = false;
  const now = options.now ?? (() => performance.now());
  const burstGapMs = options.burstGapMs ?? DEFAULT_BURST_GAP_MS;
  let lastInputAt = Number.NEGATIVE_INFINITY;
  let scanner: JsonScanner | undefined;
  let oversizeSuspect = false;
  let oversizeHead: Buffer = Buffer.alloc(0);

  /** A line cut short starts the doubt; a line that is not JSON on its own ends it. */
  function updateSuspicion(message: JsonRpcMessage): void {
    if (message.kind !== "invalid") return;
    if (message.reason === "truncated") suspect = true;
    else if (message.reason === "not-json" || message.reason === "not-utf8") suspect = false;
  }

  const line = (given: Buffer, terminated: boolean): ReadItem => {
    const unterminated = !terminated;
    let raw = given;
    let text = terminated ? raw.subarray(0, raw.length - 1) : raw;
    let message = classifyLine(text);
    let repaired = false;
    if (options.repairUtf8 && message.kind === "invalid" && message.reason === "not-utf8") {
      const fixed = Buffer.from(text.toString("utf8"), "utf8");
      const again = classifyLine(fixed);
      if (again.kind !== "invalid") {
        message = again;
        text = fixed;
        raw = terminated ? Buffer.concat([fixed, NEWLINE]) : fixed;
        repaired = true;
      }
    }
    const wasSuspect = suspect;
    if (options.guard) updateSuspicion(message);
    if (message.kind === "invalid") {
      return { kind: "dropped", reason: message.reason, raw, line: text, unterminated };
    }
    if (wasSuspect && options.guard) {
      return { kind: "dropped", reason: "smuggled", message, raw, line: text, unterminated };
    }
    return {
      kind: "message",
      message,
      raw,
      line: text,
      unterminated,
      ...(repaired ? { repaired: true as const } : {}),
    };
  };

  const piece = (framed: LinePiece): ReadItem => {
    if (framed.first) {
      scanner = createJsonScanner({ capture });
      oversizeSuspect = suspect;
      // A copy: the head outlives the chunk it came in.
      oversizeHead = Buffer.from(framed.raw.subarray(0, LINE_HEAD_BYTES));
    }
    const raw = framed.raw;
    scanner!.push(framed.terminated ? raw.subarray(0, raw.length - 1) : raw);
    const result = scanner!.result();
    const envelope = envelopeOf(result);
    const oversize: OversizePiece = {
      raw,
      first: framed.first,
      final: framed.final,
      bytes: framed.offset + raw.length,
      head: oversizeHead,
      envelope,
      suspect: oversizeSuspect,
    };
    if (framed.final) {
      oversize.message = classifyScanned(result, envelope);
      scanner = undefined;
      if (options.guard) updateSuspicion(oversize.message);
    }
    return { kind: "oversize", piece: oversize };
  };

  const lines = createLineReader<ReadItem>(
    { line, piece },
    { maxLineBytes: options.maxLineBytes, copyPartial: true },
  );
  return {
    push(chunk) {
      // Input after a pause was written after it: not inside what came before the pause.
      const at = now();
      if (at - lastInputAt >= burstGapMs) suspect = false;
      lastInputAt = at;
      return lines.push(chunk);
    },
    end: () => lines.end(),
  };
}
